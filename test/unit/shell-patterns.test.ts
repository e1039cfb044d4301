// When the forge speaks up: the pattern of a shell command, counted once per session, said once at the third run.
import { describe, expect, it } from "vitest";
import { commandPattern, ShellPatterns, suggestionLine } from "../../src/pi/shell-patterns.ts";

describe("commandPattern", () => {
	it.each([
		["grep -rn TODO src", "grep -rn"],
		["grep -rn FIXME lib", "grep -rn"],
		["git log --oneline -5", "git log"],
		["git log --author=ada", "git log"],
		["git status", "git status"],
		["cd packages/app && npm test -- --watch=false", "npm test"],
		["FOO=1 sudo /usr/bin/find . -name '*.ts' -newer x", "find -name -newer"],
		["cat data.csv | wc -l", "cat"],
		["jq '.scripts' package.json", "jq"],
		["curl -sS -H 'a: b' https://x", "curl -H -sS"],
		["sort --key=2 file", "sort --key"],
	])("%s → %s", (line, pattern) => {
		expect(commandPattern(line)).toBe(pattern);
	});

	it("nothing worth counting: empty lines and trivial commands", () => {
		expect(commandPattern("")).toBeUndefined();
		expect(commandPattern("cd src")).toBeUndefined();
		expect(commandPattern("echo hi && pwd")).toBeUndefined();
		expect(commandPattern("cd src && ls -la")).toBe("ls -la");
	});
});

describe("ShellPatterns", () => {
	it("speaks at the third run of a pattern, once, and counts patterns apart", () => {
		const patterns = new ShellPatterns();
		expect(patterns.record("grep -rn TODO src")).toBeUndefined();
		expect(patterns.record("git status")).toBeUndefined();
		expect(patterns.record("grep -rn FIXME lib")).toBeUndefined();
		expect(patterns.record("grep -rn HACK test")).toBe("grep -rn");
		expect(patterns.record("grep -rn XXX docs")).toBeUndefined();
		expect(patterns.record("git status")).toBeUndefined();
		expect(patterns.record("git status -s")).toBe("git status");
	});

	it("a new session starts counting again", () => {
		const patterns = new ShellPatterns();
		for (let i = 0; i < 2; i++) patterns.record("ls -la");
		patterns.reset();
		expect(patterns.record("ls -la")).toBeUndefined();
		expect(patterns.record("ls -la")).toBeUndefined();
		expect(patterns.record("ls -la")).toBe("ls -la");
	});

	it("the line names an existing tool when there is one", () => {
		expect(suggestionLine("grep -rn", "todo-scan")).toContain("the forged tool 'todo-scan' may do it in one call");
		expect(suggestionLine("grep -rn", undefined)).toContain("forge_tool can make it a checked, reusable tool");
	});
});
