// The command line's grammar: help, version, usage errors and checked commands, as pure data; versions as N or vN.
import { describe, expect, it } from "vitest";
import { COMMANDS, parseInvocation } from "../../src/cli/parse-args.ts";
import { USAGE } from "../../src/cli/usage.ts";
import { parseVersion } from "../../src/ui/version.ts";

describe("parseVersion", () => {
	it("reads N and vN (either case, spaces around)", () => {
		expect(["1", "v1", "V1", " v12 ", "007"].map(parseVersion)).toEqual([1, 1, 1, 12, 7]);
	});

	it("refuses what is not a version", () => {
		for (const text of ["", "v", "0", "v0", "-1", "1.5", "two", "v2v", "2 3", "1e3", "9999999999"])
			expect(parseVersion(text), text).toBeUndefined();
	});
});

describe("parseInvocation", () => {
	it("asks for help with no command, help, -h or --help (which wins over anything else)", () => {
		for (const argv of [[], ["help"], ["-h"], ["--help"], ["show", "x", "--help"], ["--help", "--bogus"]]) {
			expect(parseInvocation(argv), argv.join(" ")).toEqual(
				argv.includes("--bogus")
					? { kind: "usage-error", message: expect.stringContaining("--bogus") }
					: { kind: "help" },
			);
		}
	});

	it("asks for the version with -v or --version", () => {
		expect(parseInvocation(["--version"])).toEqual({ kind: "version" });
		expect(parseInvocation(["-v", "list"])).toEqual({ kind: "version" });
	});

	it("returns a checked command with its arguments, flags and --cwd", () => {
		expect(parseInvocation(["list", "csv", "files", "--json"])).toEqual({
			kind: "run",
			command: "list",
			args: ["csv", "files"],
			json: true,
			force: false,
			cwd: undefined,
		});
		expect(parseInvocation(["--cwd", "/p", "diff", "t", "v2", "3"])).toEqual({
			kind: "run",
			command: "diff",
			args: ["t", "v2", "3"],
			json: false,
			force: false,
			cwd: "/p",
		});
		expect(parseInvocation(["import", "dir", "--force"])).toMatchObject({
			kind: "run",
			command: "import",
			force: true,
		});
		expect(parseInvocation(["grant", "t", "read:/etc/hostname"])).toMatchObject({
			kind: "run",
			command: "grant",
			args: ["t", "read:/etc/hostname"],
		});
		// A shell line typed without quotes arrives as several words (the command joins them); after --, options too.
		expect(parseInvocation(["grant", "t", "shell:ls", "|", "wc"])).toMatchObject({
			kind: "run",
			command: "grant",
			args: ["t", "shell:ls", "|", "wc"],
		});
		expect(parseInvocation(["grant", "t", "--", "shell:ls", "-l"])).toMatchObject({
			kind: "run",
			command: "grant",
			args: ["t", "shell:ls", "-l"],
		});
		expect(parseInvocation(["grant", "t"])).toEqual({
			kind: "usage-error",
			message: "missing arguments: agent-forge grant <tool> <capability>",
		});
		expect(parseInvocation(["revoke", "t"])).toMatchObject({ kind: "run", command: "revoke", args: ["t"] });
		expect(parseInvocation(["grants"])).toMatchObject({ kind: "run", command: "grants", args: [] });
		expect(parseInvocation(["rollback", "t", "V1"])).toMatchObject({
			kind: "run",
			command: "rollback",
			args: ["t", "V1"],
		});
	});

	it("refuses an unknown command, naming the ones there are", () => {
		expect(parseInvocation(["frobnicate"])).toEqual({
			kind: "usage-error",
			message:
				"unknown command 'frobnicate' (commands: list, show, history, diff, test, check, export, rollback, remove, import, promote, demote, grant, revoke, grants).",
		});
		expect(parseInvocation(["constructor"])).toMatchObject({ kind: "usage-error" });
	});

	it("refuses missing and extra arguments with the command's usage", () => {
		expect(parseInvocation(["show"])).toEqual({
			kind: "usage-error",
			message: "missing arguments: agent-forge show <tool>",
		});
		expect(parseInvocation(["rollback", "t"])).toEqual({
			kind: "usage-error",
			message: "missing arguments: agent-forge rollback <tool> <version>",
		});
		expect(parseInvocation(["diff", "t", "1", "2", "3"])).toEqual({
			kind: "usage-error",
			message: "too many arguments: agent-forge diff <tool> [from] [to]",
		});
	});

	it("refuses a flag the command does not take", () => {
		expect(parseInvocation(["show", "t", "--json"])).toEqual({
			kind: "usage-error",
			message: "--json applies to list, test, check only, not to show.",
		});
		expect(parseInvocation(["list", "--force"])).toEqual({
			kind: "usage-error",
			message: "--force applies to import, promote, demote only, not to list.",
		});
	});

	it("refuses a version that is not N or vN, in every place a version goes", () => {
		expect(parseInvocation(["diff", "t", "two"])).toEqual({
			kind: "usage-error",
			message: "'two' is not a version: give N or vN (e.g. v2).",
		});
		expect(parseInvocation(["diff", "t", "v1", "latest"])).toMatchObject({
			kind: "usage-error",
			message: expect.stringContaining("'latest'"),
		});
		expect(parseInvocation(["rollback", "t", "v0"])).toMatchObject({
			kind: "usage-error",
			message: expect.stringContaining("'v0'"),
		});
	});

	it("refuses an unknown option, a --cwd without a folder, and an empty one", () => {
		expect(parseInvocation(["list", "--bogus"])).toMatchObject({
			kind: "usage-error",
			message: expect.stringContaining("Unknown option '--bogus'"),
		});
		expect(parseInvocation(["list", "--cwd"])).toMatchObject({
			kind: "usage-error",
			message: expect.stringContaining("--cwd"),
		});
		expect(parseInvocation(["list", "--cwd", " "])).toEqual({
			kind: "usage-error",
			message: "--cwd needs a folder.",
		});
	});
});

describe("the usage", () => {
	it("shows every command with its arguments, which only read, and the exit codes", () => {
		for (const [name, spec] of Object.entries(COMMANDS)) expect(USAGE).toContain(`  ${name} ${spec.args}`);
		expect(USAGE).toContain(
			"Read-only: list, show, history, diff, test, check, export never write into the project.",
		);
		expect(USAGE).toContain(
			"grant, revoke, grants work on your grants file (<agent dir>/forge/grants.json), never on the project.",
		);
		expect(USAGE).toMatch(/Exit codes:\n {2}0 {2}ok\n {2}1 {2}failed: .*\n.*\n {2}2 {2}usage error/);
		for (const line of USAGE.split("\n")) expect(line.length, line).toBeLessThanOrEqual(120);
	});
});
