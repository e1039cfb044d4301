// What crosses from a tool's worker to pi: JSON text made in the worker (toJsonValue / toWireJson), read back into
// checked plain data (readWireResult / readErrorData), and what the host relays of a worker's requests (plainData).
import { describe, expect, it } from "vitest";
import {
	MAX_JSON_DEPTH,
	NotPlainData,
	plainData,
	readErrorData,
	readWirePreflight,
	readWireResult,
	toJsonValue,
	toWireJson,
	withinDepth,
} from "../../src/run/isolated/wire.ts";

describe("toJsonValue", () => {
	it("drops functions and symbols as JSON does, keeps BigInt as text and marks cycles", () => {
		const cyclic: Record<string, unknown> = { name: "a" };
		cyclic.self = cyclic;
		expect(
			toJsonValue({ f() {}, s: Symbol("x"), big: 2n ** 70n, list: [() => 1, undefined, Number.NaN], cyclic }),
		).toEqual({
			big: "1180591620717411303424",
			list: [null, null, null],
			cyclic: { name: "a", self: "[Circular]" },
		});
	});

	it("keeps a value that appears twice without calling it a cycle, and honours toJSON", () => {
		const shared = { n: 1 };
		expect(toJsonValue({ a: shared, b: shared, at: new Date(0) })).toEqual({
			a: { n: 1 },
			b: { n: 1 },
			at: "1970-01-01T00:00:00.000Z",
		});
	});

	it("cuts nesting past the limit to a marker", () => {
		let deep: unknown = "bottom";
		for (let i = 0; i < 10_000; i++) deep = [deep];
		const text = toWireJson(deep);
		expect(text).toContain('"[nested too deep]"');
		expect(withinDepth(JSON.parse(text), MAX_JSON_DEPTH)).toBe(true);
	});

	it("reads with the built-ins taken before a tool could replace them", () => {
		const map = Array.prototype.map;
		const keys = Object.keys;
		try {
			Array.prototype.map = (() => ["hijacked"]) as unknown as typeof map;
			Object.keys = (() => ["hijacked"]) as typeof keys;
			expect(toJsonValue({ list: [1, 2], m: new Map([["k", 1]]), s: new Set([3]) })).toEqual({
				list: [1, 2],
				m: { k: 1 },
				s: [3],
			});
		} finally {
			Array.prototype.map = map;
			Object.keys = keys;
		}
	});
});

describe("readWireResult and readErrorData", () => {
	it("reads a result", () => {
		expect(
			readWireResult(
				JSON.stringify({
					ok: true,
					output: { content: [{ type: "text", text: "hi" }], details: { n: 1 } },
					console: "printed",
				}),
			),
		).toEqual({
			ok: true,
			output: { content: [{ type: "text", text: "hi" }], details: { n: 1 } },
			console: "printed",
		});
	});

	it.each([
		["not a string", { ok: true }, "it is not JSON text"],
		["not JSON", "{", "it is not valid JSON"],
		["not an object", "[1]", "it is not an object"],
		[
			"a block of another kind",
			JSON.stringify({ ok: true, output: { content: [{ type: "video" }] } }),
			"its output is not a list of text and image blocks",
		],
		[
			"nested too deep",
			`{"ok":true,"output":{"content":[]},"details":${"[".repeat(200)}${"]".repeat(200)}}`,
			"it is nested deeper than 64 levels",
		],
	])("turns a result that is %s into an error of the call", (_label, json, why) => {
		const read = readWireResult(json);
		expect(read.ok).toBe(false);
		expect(read.ok ? "" : read.error.message).toBe(`The tool's result could not be read: ${why}.`);
	});

	it("keeps only error fields of the right type, bounded, and an unknown phase becomes runtime", () => {
		const error = readErrorData({
			phase: "pwned",
			message: "x".repeat(100_000),
			location: { file: "f.ts", line: "1", column: 2 },
			stack: ["a", 1, "b"],
			notes: "no",
			code: { x: 1 },
			origin: "logic",
			hint: 5,
		});
		expect(error).toEqual({ phase: "runtime", message: "x".repeat(64 * 1024), stack: ["a", "b"], origin: "logic" });
	});

	it("reads a preflight shape, and refuses one without parameters", () => {
		expect(
			readWirePreflight(
				JSON.stringify({ ok: true, shape: { name: "a", description: "d", parameters: { type: "object" } } }),
			),
		).toEqual({ ok: true, shape: { name: "a", description: "d", parameters: { type: "object" } } });
		expect(readWirePreflight(JSON.stringify({ ok: true, shape: { name: "a", description: "d" } })).ok).toBe(false);
	});
});

describe("plainData", () => {
	it("copies strings, numbers, byte arrays, plain objects and arrays", () => {
		const copied = plainData({
			path: "/p",
			n: 1,
			on: true,
			none: null,
			data: Buffer.from("hi"),
			list: [1, "a"],
			nested: { a: { b: 1 } },
		}) as Record<string, unknown>;
		expect(copied.data).toBeInstanceOf(Uint8Array);
		expect(Buffer.from(copied.data as Uint8Array).toString()).toBe("hi");
		expect({ ...copied, data: undefined }).toEqual({
			path: "/p",
			n: 1,
			on: true,
			none: null,
			data: undefined,
			list: [1, "a"],
			nested: { a: { b: 1 } },
		});
	});

	it.each([
		[
			"a WebAssembly.Module",
			new (
				globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } }
			).WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])),
			"it holds a WebAssembly.Module",
		],
		["shared memory", new Uint8Array(new SharedArrayBuffer(4)), "it holds shared memory"],
		["a SharedArrayBuffer", new SharedArrayBuffer(4), "it holds a SharedArrayBuffer"],
		["a Map", new Map(), "it holds a Map"],
		["a symbol", Symbol("s"), "it holds a symbol"],
		["a BigInt", 1n, "it holds a bigint"],
		["deep nesting", JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`), "it is nested too deep"],
	])("refuses %s", (_label, value, why) => {
		expect(() => plainData({ args: [value] })).toThrow(new NotPlainData(why));
	});

	it("refuses more values than its budget", () => {
		expect(() => plainData(new Array(200_000).fill(1))).toThrow("it holds too many values");
	});
});
