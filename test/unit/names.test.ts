// The forge's name check: which tool names are accepted, and what the refusal tells the model.
import { describe, expect, it } from "vitest";
import { FORGE_TOOL_NAMES, NAME_PATTERN, suggestName, validateName } from "../../src/contract/names.ts";

const noneTaken = new Map<string, string>();

function refusal(name: unknown, taken: ReadonlyMap<string, string> = noneTaken) {
	const result = validateName(name, taken);
	if (result.ok) throw new Error(`expected ${JSON.stringify(name)} to be refused`);
	return result.error;
}

describe("validateName", () => {
	it("accepts a name of 1 character and of 48 characters", () => {
		expect(validateName("a", noneTaken)).toEqual({ ok: true, value: "a" });
		const longest = `a${"b".repeat(47)}`;
		expect(longest).toHaveLength(48);
		expect(validateName(longest, noneTaken)).toEqual({ ok: true, value: longest });
	});

	it("accepts digits, '-' and '_' after the first letter", () => {
		for (const name of ["sql-explorer", "log_parser", "x9", "a-_-0"]) {
			expect(validateName(name, noneTaken)).toEqual({ ok: true, value: name });
		}
	});

	it("refuses 49 characters, saying how long the name is", () => {
		const error = refusal(`a${"b".repeat(48)}`);
		expect(error.phase).toBe("name");
		expect(error.message).toContain("is 49 characters long (at most 48)");
	});

	it("refuses a name that is missing or not a string", () => {
		for (const name of ["", undefined, null, 42, { name: "x" }]) {
			const error = refusal(name);
			expect(error.phase).toBe("name");
			expect(error.message).toBe("The tool needs a name (a non-empty string).");
			expect(error.details.hint).toContain("'my-tool'");
		}
	});

	it("refuses a name that does not start with a lowercase letter", () => {
		for (const name of ["Abc", "1abc", "_abc", "-abc", "..", "/abc"]) {
			expect(refusal(name).message).toBe(`The name '${name}' must start with a lowercase letter.`);
		}
	});

	it("names the characters that are not allowed", () => {
		expect(refusal("myTool").message).toBe(`The name 'myTool' contains characters that are not allowed: "T".`);
		expect(refusal("my tool").message).toContain(`characters that are not allowed: " "`);
		expect(refusal("a/b/c").message).toContain(`characters that are not allowed: "/".`);
		expect(refusal("a..b").message).toContain(`characters that are not allowed: ".".`);
		expect(refusal("café").message).toContain(`characters that are not allowed: "é".`);
		expect(refusal("a.b c.d").message).toContain(`characters that are not allowed: ".", " ".`);
	});

	it("never echoes a NUL byte raw", () => {
		const error = refusal("ab\u0000c");
		expect(error.message).not.toContain("\u0000");
		expect(error.message).toContain("ab\\u0000c");
		expect(error.message).toContain(`"\\u0000"`);
	});

	it("refuses a trailing newline (the pattern has no multiline flag)", () => {
		expect(refusal("abc\n").message).toContain(`characters that are not allowed: "\\n"`);
	});

	it("hints at a valid suggestion derived from the bad name", () => {
		expect(refusal("My Tool").details.hint).toContain("a name like 'my-tool'");
		expect(refusal("SQL Explorer!").details.hint).toContain("a name like 'sql-explorer'");
	});

	it("refuses the forge's own tool names, whatever pi reports", () => {
		for (const name of FORGE_TOOL_NAMES) {
			const error = refusal(name);
			expect(error.message).toBe(`'${name}' is one of Agent Forge's own tools.`);
			expect(error.details.hint).toContain(`'my-${name.replace(/_/g, "-")}'`);
		}
	});

	it("refuses the reserved name 'registry' (it would collide with forge-registry.json)", () => {
		const error = refusal("registry");
		expect(error.message).toContain("'registry' is reserved");
		expect(error.message).toContain("forge-registry.json");
		expect(error.details.hint).toContain("'registry-tool'");
	});

	it("refuses a name held by a tool that is not forged, naming the holder", () => {
		const taken = new Map([
			["bash", "pi's built-in tool"],
			["web-search", "the extension at /ext/search.ts"],
		]);
		expect(refusal("bash", taken).message).toBe(
			"The name 'bash' is already held by pi's built-in tool, which is not a forged tool.",
		);
		expect(refusal("web-search", taken).message).toContain("the extension at /ext/search.ts");
		expect(refusal("bash", taken).details.hint).toContain("'bash-forged'");
		expect(validateName("bash-forged", taken)).toEqual({ ok: true, value: "bash-forged" });
	});
});

describe("suggestName", () => {
	it("lowercases and joins words with '-'", () => {
		expect(suggestName("My Cool Tool")).toBe("my-cool-tool");
		expect(suggestName("parse.csv/rows")).toBe("parse-csv-rows");
	});

	it("drops a leading non-letter prefix and trailing dashes", () => {
		expect(suggestName("123-_abc")).toBe("abc");
		expect(suggestName("tool!!!")).toBe("tool");
	});

	it("falls back to 'my-tool' when nothing usable remains", () => {
		expect(suggestName("")).toBe("my-tool");
		expect(suggestName("1234")).toBe("my-tool");
		expect(suggestName("ÄÖÜ")).toBe("my-tool");
	});

	it("caps the suggestion at 48 characters", () => {
		expect(suggestName("x".repeat(100))).toBe("x".repeat(48));
	});

	it("always suggests a name that matches the pattern", () => {
		for (const raw of [
			"My Tool",
			"__init__",
			"café au lait",
			"a\u0000b",
			"..",
			"UPPER_case-Mixed 42",
			"x".repeat(80),
		]) {
			expect(suggestName(raw)).toMatch(NAME_PATTERN);
		}
	});
});

describe("taken names with an empty description", () => {
	it("are still taken", () => {
		expect(validateName("grep", new Map([["grep", ""]])).ok).toBe(false);
	});
});
