// What a forged tool returned, normalised into pi's content blocks.
import { describe, expect, it } from "vitest";
import { NO_VALUE_TEXT, normaliseResult, outputText, stringify, withConsole } from "../../src/run/result.ts";

const textOf = (value: unknown) => {
	const { content } = normaliseResult(value);
	expect(content).toHaveLength(1);
	expect(content[0].type).toBe("text");
	return (content[0] as { text: string }).text;
};

describe("normaliseResult", () => {
	it("passes a string through as one text block", () => {
		expect(normaliseResult("hello")).toEqual({ content: [{ type: "text", text: "hello" }], returned: "text" });
		expect(textOf("")).toBe("");
	});

	it("says what kind of value was returned (a caller through pi.useTool gets that kind back)", () => {
		expect([undefined, "s", 1, { content: [] }].map((value) => normaliseResult(value).returned)).toEqual([
			"none",
			"text",
			"json",
			"result",
		]);
	});

	it("says so when the tool returned nothing", () => {
		expect(textOf(undefined)).toBe(NO_VALUE_TEXT);
		expect(textOf(null)).toBe(NO_VALUE_TEXT);
	});

	it("writes numbers, booleans and zero as JSON", () => {
		expect(textOf(42)).toBe("42");
		expect(textOf(0)).toBe("0");
		expect(textOf(false)).toBe("false");
	});

	it("writes objects and arrays as indented JSON", () => {
		expect(textOf({ words: 3, list: [1, "a"] })).toBe('{\n  "words": 3,\n  "list": [\n    1,\n    "a"\n  ]\n}');
		expect(textOf([])).toBe("[]");
	});

	it("passes a pi tool result through, with its details", () => {
		const content = [
			{ type: "text", text: "done" },
			{ type: "image", data: "iVBORw0", mimeType: "image/png" },
		];
		expect(normaliseResult({ content, details: { n: 1 } })).toEqual({
			content,
			details: { n: 1 },
			returned: "result",
		});
		expect(normaliseResult({ content: [{ type: "text", text: "x" }] })).toEqual({
			content: [{ type: "text", text: "x" }],
			returned: "result",
		});
	});

	it("treats an object with an invalid content array as plain JSON", () => {
		for (const value of [
			{ content: ["a", "b"] },
			{ content: [{ type: "text", text: 5 }] },
			{ content: [{ type: "video", data: "x" }] },
			{ content: [null] },
			{ content: "text" },
		]) {
			expect(JSON.parse(textOf(value))).toEqual(value);
		}
	});

	it("writes BigInt as its digits", () => {
		expect(textOf(10n)).toBe("10");
		expect(JSON.parse(textOf({ big: 12345678901234567890n }))).toEqual({ big: "12345678901234567890" });
	});

	it("marks cycles instead of throwing", () => {
		const node: Record<string, unknown> = { name: "root" };
		node.self = node;
		expect(JSON.parse(textOf(node))).toEqual({ name: "root", self: "[Circular]" });
	});

	it("writes a Map as an object and a Set as an array", () => {
		const value = {
			map: new Map<string, unknown>([
				["a", 1],
				["b", [2]],
			]),
			set: new Set(["x", "y"]),
		};
		expect(JSON.parse(textOf(value))).toEqual({ map: { a: 1, b: [2] }, set: ["x", "y"] });
	});

	it("writes functions and symbols as text instead of dropping them", () => {
		expect(JSON.parse(textOf({ sym: Symbol("s") }))).toEqual({ sym: "Symbol(s)" });
		expect(JSON.parse(textOf({ fn: function named() {} })).fn).toContain("function named");
		expect(textOf(Symbol("top"))).toBe("Symbol(top)");
	});

	it("uses toJSON, e.g. for dates", () => {
		expect(textOf({ at: new Date("2025-01-02T03:04:05.000Z") })).toBe('{\n  "at": "2025-01-02T03:04:05.000Z"\n}');
	});
});

describe("stringify", () => {
	it("writes primitives as JSON", () => {
		expect(stringify('a"b')).toBe('"a\\"b"');
		expect(stringify(1.5)).toBe("1.5");
		expect(stringify(null)).toBe("null");
	});
});

describe("outputText", () => {
	it("joins the text blocks and skips images", () => {
		const output = {
			content: [
				{ type: "text" as const, text: "one" },
				{ type: "image" as const, data: "x", mimeType: "image/png" },
				{ type: "text" as const, text: "two" },
			],
		};
		expect(outputText(output)).toBe("one\ntwo");
		expect(outputText({ content: [] })).toBe("");
	});
});

describe("stringify keeps shared values", () => {
	it("a value referenced twice without a cycle is printed twice", () => {
		const shared = { v: 1 };
		expect(JSON.parse(stringify({ a: shared, b: shared }))).toEqual({ a: { v: 1 }, b: { v: 1 } });
	});
	it("an image block without a mimeType is not a pi result", () => {
		expect(normaliseResult({ content: [{ type: "image", data: "x" }] }).content[0].type).toBe("text");
	});
	it("an empty pi result says there was no value", () => {
		expect(normaliseResult({ content: [] }).content).toEqual([{ type: "text", text: NO_VALUE_TEXT }]);
	});
});

describe("withConsole", () => {
	it("turns what a call printed into its output when it returned nothing, saying to return it instead", () => {
		for (const value of [undefined, null, { content: [] }]) {
			expect(outputText(withConsole(normaliseResult(value), "hello\nworld"))).toBe(
				"(the tool returned no value; below is what it printed to the console. Return the result from execute instead of printing it.)\nhello\nworld",
			);
		}
	});

	it("leaves a returned value alone, and a call that printed nothing", () => {
		expect(withConsole(normaliseResult("value"), "debug line")).toEqual(normaliseResult("value"));
		expect(withConsole(normaliseResult(undefined), undefined)).toEqual(normaliseResult(undefined));
	});
});
