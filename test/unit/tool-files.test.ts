// The on-disk format of one forged tool: which files belong to a tool, its metadata file, and content hashes.
import { describe, expect, it } from "vitest";
import {
	hashSource,
	jsonFileOf,
	parseMeta,
	parseToolFileName,
	serializeMeta,
	type ToolMeta,
	tsFileOf,
} from "../../src/contract/tool-files.ts";

const meta: ToolMeta = {
	name: "word-count",
	description: "Count words.",
	parameters: { type: "object", properties: { text: { type: "string" } } },
	version: 3,
	hash: "sha256-abc",
	createdAt: "2025-01-01T00:00:00.000Z",
	updatedAt: "2025-01-02T00:00:00.000Z",
};

describe("file names", () => {
	it("names the pair of files of a tool", () => {
		expect(tsFileOf("word-count")).toBe("forge-word-count.ts");
		expect(jsonFileOf("word-count")).toBe("forge-word-count.json");
	});

	it("parses the files of a tool", () => {
		expect(parseToolFileName("forge-word-count.ts")).toEqual({ name: "word-count", kind: "ts" });
		expect(parseToolFileName("forge-x.json")).toEqual({ name: "x", kind: "json" });
		expect(parseToolFileName("forge-log_parser2.ts")).toEqual({ name: "log_parser2", kind: "ts" });
	});

	it("ignores the registry, backups, temp files and other files", () => {
		for (const file of [
			"forge-registry.json",
			"forge-x.ts.bak",
			"forge-x.json.bak",
			"forge-x.ts.2841574185",
			"forge-x.json.tmp",
			".forge-health.json",
			".staging",
			"forge-x.js",
			"x.ts",
			"forge-.ts",
			"notforge-x.ts",
		]) {
			expect(parseToolFileName(file), file).toBeUndefined();
		}
	});

	it("ignores files whose name part is not a valid tool name", () => {
		for (const file of [
			"forge-Word.ts",
			"forge-1x.ts",
			"forge-a.b.ts",
			"forge-a b.json",
			`forge-a${"b".repeat(48)}.ts`,
		]) {
			expect(parseToolFileName(file), file).toBeUndefined();
		}
	});
});

describe("hashSource", () => {
	it("is a stable sha256 of the text", () => {
		expect(hashSource("")).toBe("sha256-e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
		expect(hashSource("return 1;")).toBe(hashSource("return 1;"));
	});

	it("changes with any change to the text", () => {
		expect(hashSource("return 1;")).not.toBe(hashSource("return 1; "));
		expect(hashSource("a\nb")).not.toBe(hashSource("a\r\nb"));
	});
});

describe("parseMeta", () => {
	function brokenMessage(text: string, name = "word-count"): string {
		const result = parseMeta(text, name);
		if (result.ok) throw new Error("expected the metadata to be refused");
		expect(result.error.phase).toBe("load");
		expect(result.error.details.tool).toBe(name);
		expect(result.error.details.hint).toBe(`Re-forge '${name}' with forge_tool to rewrite its files.`);
		return result.error.message;
	}

	const without = (key: keyof ToolMeta) => JSON.stringify({ ...meta, [key]: undefined });

	it("round-trips what serializeMeta writes", () => {
		const text = serializeMeta(meta);
		expect(text.endsWith("}\n")).toBe(true);
		expect(text).toContain('\n\t"name": "word-count",');
		expect(parseMeta(text, "word-count")).toEqual({ ok: true, value: meta });
	});

	it("fills missing timestamps with empty strings", () => {
		const result = parseMeta(JSON.stringify({ ...meta, createdAt: undefined, updatedAt: undefined }), "word-count");
		expect(result).toEqual({ ok: true, value: { ...meta, createdAt: "", updatedAt: "" } });
	});

	it("refuses text that is not JSON", () => {
		expect(brokenMessage("{ nope")).toMatch(/^forge-word-count\.json is not valid JSON: /);
	});

	it("refuses JSON that is not an object", () => {
		expect(brokenMessage("null")).toBe("forge-word-count.json is not a JSON object.");
		expect(brokenMessage("42")).toBe("forge-word-count.json is not a JSON object.");
	});

	it("refuses metadata naming another tool", () => {
		expect(brokenMessage(JSON.stringify({ ...meta, name: "other" }))).toBe(
			'forge-word-count.json names the tool "other", expected "word-count".',
		);
		expect(brokenMessage(without("name"))).toBe(
			'forge-word-count.json names the tool undefined, expected "word-count".',
		);
	});

	it("refuses a missing description, parameters, version or hash", () => {
		expect(brokenMessage(without("description"))).toBe("forge-word-count.json has no description.");
		expect(brokenMessage(without("parameters"))).toBe("forge-word-count.json has no parameters schema.");
		expect(brokenMessage(JSON.stringify({ ...meta, parameters: null }))).toBe(
			"forge-word-count.json has no parameters schema.",
		);
		expect(brokenMessage(without("version"))).toBe("forge-word-count.json has no valid version.");
		expect(brokenMessage(without("hash"))).toBe("forge-word-count.json has no hash.");
	});

	it("refuses a version that is not a positive integer", () => {
		for (const version of [0, -1, 1.5, "2"]) {
			expect(brokenMessage(JSON.stringify({ ...meta, version }))).toBe(
				"forge-word-count.json has no valid version.",
			);
		}
	});
});

describe("files of names the forge would refuse", () => {
	it.each(["forge-registry.ts", "forge-list_forge.ts", "forge-forge_tool.json"])("%s is not a tool file", (file) => {
		expect(parseToolFileName(file)).toBeUndefined();
	});
});
