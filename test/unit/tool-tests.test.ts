// Judging one test case: outputs and expectations are shown exactly (JSON-quoted, whitespace and newlines visible).
import { describe, expect, it } from "vitest";
import { ForgeError } from "../../src/contract/forge-error.ts";
import { firstDifference, judge, quote, testsChange } from "../../src/contract/tool-tests.ts";

const pass = (text: string) => ({ ok: true as const, text });

describe("quote", () => {
	it("keeps runs of spaces, tabs and newlines visible", () => {
		expect(quote("beta      gamma")).toBe('"beta      gamma"');
		expect(quote("beta gamma")).toBe('"beta gamma"');
		expect(quote("a\n\tb\r\n")).toBe('"a\\n\\tb\\r\\n"');
		expect(quote("  padded  ")).toBe('"  padded  "');
	});

	it("cuts a long text to a window around the given position, saying which characters are shown", () => {
		const text = `${"a".repeat(1000)}X${"b".repeat(1000)}`;
		const shown = quote(text, 1000);
		expect(shown).toContain("X");
		expect(shown).toMatch(/^…"a+Xb+"… \(characters 901-1200 of 2001\)$/);
		expect(quote(text)).toMatch(/^"a{300}"… \(characters 1-300 of 2001\)$/);
	});
});

describe("judge", () => {
	it("an equals failure that differs only in whitespace is visible, with where it differs", () => {
		const verdict = judge({ args: {}, equals: "beta gamma" }, 0, pass("beta      gamma"));
		expect(verdict.pass).toBe(false);
		expect(verdict.expected).toBe('output equal to "beta gamma"');
		expect(verdict.actual).toBe('"beta      gamma" (the first difference is at character 6)');
		expect(verdict.expected).not.toBe(`output equal to ${verdict.actual}`);
	});

	it("newlines in the output are shown, not turned into spaces", () => {
		const verdict = judge({ args: {}, equals: "one two" }, 0, pass("one\ntwo"));
		expect(verdict.actual).toContain('"one\\ntwo"');
		const contains = judge({ args: {}, expect: "x  y" }, 0, pass("x y\n"));
		expect(contains.expected).toBe('output containing "x  y"');
		expect(contains.actual).toBe('"x y\\n"');
	});

	it("a long equals failure shows both texts around the first difference", () => {
		const expected = `${"word ".repeat(200)}end`;
		const actual = `${"word ".repeat(200)}END`;
		const verdict = judge({ args: {}, equals: expected }, 0, pass(actual));
		expect(verdict.expected).toContain('end"');
		expect(verdict.actual).toContain('END"');
		expect(verdict.actual).toContain("first difference is at character 1001");
	});

	it("a JSON value expectation is named as one", () => {
		const verdict = judge({ args: {}, equals: { count: 2 } }, 0, pass('{"count":3}'));
		expect(verdict.expected).toBe('output equal to the JSON value {"count":2}');
		expect(judge({ args: {}, equals: { count: 2 } }, 0, pass('{ "count": 2 }')).pass).toBe(true);
	});

	it("a regular expression is shown as written, with newlines and tabs in it visible", () => {
		expect(judge({ args: {}, matches: "^\\d+$" }, 0, pass("x")).expected).toBe("output matching /^\\d+$/");
		expect(judge({ args: {}, matches: "a\nb" }, 0, pass("x")).expected).toBe("output matching /a\\nb/");
	});

	it("error messages are quoted exactly too", () => {
		const verdict = judge({ args: {}, expectError: "empty" }, 0, {
			ok: false,
			error: new ForgeError("runtime", "Error: text\n  is blank"),
		});
		expect(verdict.pass).toBe(false);
		expect(verdict.actual).toBe('runtime error: "Error: text\\n  is blank"');
	});

	it("equals still accepts output that differs only by surrounding whitespace", () => {
		expect(judge({ args: {}, equals: "done" }, 0, pass("done\n")).pass).toBe(true);
	});
});

describe("firstDifference", () => {
	it("is the index of the first differing character, or the shorter length", () => {
		expect(firstDifference("abc", "abd")).toBe(2);
		expect(firstDifference("ab", "abc")).toBe(2);
		expect(firstDifference("same", "same")).toBe(4);
	});
});

describe("testsChange", () => {
	const a = { args: { text: "a" }, expect: "1" };
	const b = { args: { text: "" }, expectError: "empty" };
	const c = { args: { text: "a b" }, equals: 2 };

	it("omitted tests: the previous ones are kept", () => {
		expect(testsChange([a, b], [a, b], false, 2)).toEqual({ kind: "kept", count: 2, fromVersion: 2 });
		expect(testsChange([], [], false)).toEqual({ kind: "none" });
	});

	it("given tests replace the previous ones: kept, added and dropped are counted by args and expectation", () => {
		expect(testsChange([a, b], [{ ...a, name: "renamed" }, c], true, 3)).toEqual({
			kind: "replaced",
			count: 2,
			kept: 1,
			added: 1,
			dropped: [b],
			fromVersion: 3,
		});
		expect(testsChange([], [a], true)).toEqual({
			kind: "replaced",
			count: 1,
			kept: 0,
			added: 1,
			dropped: [],
			fromVersion: undefined,
		});
		expect(testsChange([a], [], true, 1)).toEqual({
			kind: "replaced",
			count: 0,
			kept: 0,
			added: 0,
			dropped: [a],
			fromVersion: 1,
		});
	});

	it("a changed expectation for the same arguments is another case", () => {
		expect(testsChange([a], [{ ...a, expect: "2" }], true, 1)).toMatchObject({ kept: 0, added: 1, dropped: [a] });
	});
});
