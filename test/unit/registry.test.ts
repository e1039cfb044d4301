// The registry model: parsing `forge-registry.json` (anything odd means "rebuild") and spotting stale entries.
import { describe, expect, it } from "vitest";
import type { ToolMeta } from "../../src/contract/tool-files.ts";
import {
	emptyRegistry,
	entryFromMeta,
	parseRegistry,
	type Registry,
	serializeRegistry,
	staleNames,
	type ToolStamps,
} from "../../src/store/registry.ts";

const meta = (name: string): ToolMeta => ({
	name,
	description: `The ${name} tool.`,
	parameters: { type: "object" },
	version: 1,
	hash: `sha256-${name}`,
	createdAt: "2025-01-01T00:00:00.000Z",
	updatedAt: "2025-01-01T00:00:00.000Z",
});

const stamps = (size: number, mtimeMs = 1000): ToolStamps => ({ ts: { size, mtimeMs }, json: { size: 10, mtimeMs } });

function registryOf(...names: string[]): Registry {
	const registry = emptyRegistry();
	for (const name of names) registry.tools[name] = entryFromMeta(meta(name), stamps(100));
	return registry;
}

describe("entryFromMeta", () => {
	it("keeps what the registry needs and drops createdAt", () => {
		expect(entryFromMeta(meta("a"), stamps(5))).toEqual({
			name: "a",
			description: "The a tool.",
			parameters: { type: "object" },
			version: 1,
			hash: "sha256-a",
			updatedAt: "2025-01-01T00:00:00.000Z",
			status: "ok",
			stamps: stamps(5),
		});
	});

	it("records a broken status with its error", () => {
		const error = { phase: "syntax" as const, message: "Unexpected ';'" };
		const entry = entryFromMeta(meta("a"), {}, "broken", error);
		expect(entry.status).toBe("broken");
		expect(entry.error).toEqual(error);
		expect("error" in entryFromMeta(meta("a"), {})).toBe(false);
	});
});

describe("parseRegistry", () => {
	it("round-trips what serializeRegistry writes", () => {
		const registry = registryOf("a", "b");
		const text = serializeRegistry(registry);
		expect(text.endsWith("}\n")).toBe(true);
		expect(parseRegistry(text)).toEqual(registry);
	});

	it("accepts an empty registry", () => {
		expect(parseRegistry('{"format":1,"tools":{}}')).toEqual(emptyRegistry());
	});

	it("is undefined for a missing registry", () => {
		expect(parseRegistry(undefined)).toBeUndefined();
	});

	it("is undefined, never a throw, for corrupt text", () => {
		for (const text of ["", "{", "not json", "null", "[]", "42", '"text"']) {
			expect(parseRegistry(text), text).toBeUndefined();
		}
	});

	it("is undefined for another format or a missing tools map", () => {
		for (const data of [
			{ format: 2, tools: {} },
			{ tools: {} },
			{ format: "1", tools: {} },
			{ format: 1 },
			{ format: 1, tools: null },
		]) {
			expect(parseRegistry(JSON.stringify(data)), JSON.stringify(data)).toBeUndefined();
		}
	});

	it("is undefined when an entry's name differs from its key", () => {
		const registry = registryOf("a");
		registry.tools.b = registry.tools.a;
		expect(parseRegistry(JSON.stringify(registry))).toBeUndefined();
	});

	it("is undefined when an entry is null, or lacks its hash or stamps", () => {
		const base = registryOf("a");
		const { hash: _hash, ...noHash } = base.tools.a;
		const { stamps: _stamps, ...noStamps } = base.tools.a;
		for (const entry of [null, noHash, noStamps, { ...base.tools.a, hash: 7 }]) {
			expect(parseRegistry(JSON.stringify({ format: 1, tools: { a: entry } }))).toBeUndefined();
		}
	});
});

describe("staleNames", () => {
	it("is empty when the disk matches the registry", () => {
		expect(
			staleNames(
				registryOf("a", "b"),
				new Map([
					["a", stamps(100)],
					["b", stamps(100)],
				]),
			),
		).toEqual([]);
	});

	it("names tools added on disk", () => {
		expect(
			staleNames(
				registryOf("a"),
				new Map([
					["a", stamps(100)],
					["new", stamps(1)],
				]),
			),
		).toEqual(["new"]);
	});

	it("names tools removed from disk", () => {
		expect(staleNames(registryOf("a", "gone"), new Map([["a", stamps(100)]]))).toEqual(["gone"]);
	});

	it("names tools whose size or mtime changed, in either file", () => {
		const onDisk = new Map<string, ToolStamps>([
			["size", stamps(101)],
			["mtime", stamps(100, 2000)],
			["json", { ts: { size: 100, mtimeMs: 1000 }, json: { size: 11, mtimeMs: 1000 } }],
			["lost-json", { ts: { size: 100, mtimeMs: 1000 } }],
			["same", stamps(100)],
		]);
		expect(staleNames(registryOf("size", "mtime", "json", "lost-json", "same"), onDisk)).toEqual([
			"json",
			"lost-json",
			"mtime",
			"size",
		]);
	});

	it("returns the names sorted", () => {
		expect(
			staleNames(
				emptyRegistry(),
				new Map([
					["c", {}],
					["a", {}],
					["b", {}],
				]),
			),
		).toEqual(["a", "b", "c"]);
	});
});

describe("registries with malformed entries are rebuilt, not trusted", () => {
	it.each([
		['{"format":1,"tools":{"a":{"name":"a","hash":"h","stamps":null}}}', "null stamps"],
		[
			'{"format":1,"tools":{"a":{"name":"a","hash":"h","stamps":{},"description":"d","version":1,"status":"ok"}}}',
			"no parameters",
		],
		[
			'{"format":1,"tools":{"a":{"name":"a","hash":"h","stamps":{},"parameters":{},"version":1,"status":"ok"}}}',
			"no description",
		],
		[
			'{"format":1,"tools":{"a":{"name":"a","hash":"h","stamps":{},"parameters":{},"description":"d","version":1,"status":"weird"}}}',
			"an unknown status",
		],
	])("%s (%s)", (text) => {
		expect(parseRegistry(text)).toBeUndefined();
	});
});
