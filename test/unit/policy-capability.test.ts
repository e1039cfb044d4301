// Capabilities: their grant keys, how a person reads them, and the environment every tool may see.
import { describe, expect, it } from "vitest";
import {
	type Capability,
	capabilityKey,
	describeCapability,
	SAFE_ENV,
	safeEnvironment,
} from "../../src/policy/capability.ts";

describe("capabilityKey", () => {
	it.each<[Capability, string]>([
		[{ kind: "fs-read", path: "/etc/hosts" }, "read:/etc/hosts"],
		[{ kind: "fs-write", path: "/x/y" }, "write:/x/y"],
		[{ kind: "exec", program: "git", commandLine: "git status" }, "exec:git"],
		[{ kind: "exec", program: "sh", commandLine: "ls | wc -l" }, "exec:sh"],
		[{ kind: "env", name: "OPENAI_API_KEY" }, "env:OPENAI_API_KEY"],
		[{ kind: "inline" }, "inline"],
	])("keys %j as %s", (capability, key) => {
		expect(capabilityKey(capability)).toBe(key);
	});
});

describe("describeCapability", () => {
	it.each<[Capability, string]>([
		[{ kind: "fs-read", path: "/etc/hosts" }, "read /etc/hosts"],
		[{ kind: "fs-write", path: "/x/y" }, "write /x/y"],
		[{ kind: "exec", program: "git", commandLine: "git status" }, "run `git status`"],
		[{ kind: "env", name: "OPENAI_API_KEY" }, "see the environment variable OPENAI_API_KEY"],
		[{ kind: "inline" }, "run inside pi's process with the full extension API"],
	])("describes %j as %s", (capability, text) => {
		expect(describeCapability(capability)).toBe(text);
	});

	it("keeps a multi-line command on one line and cuts a long one", () => {
		const text = describeCapability({ kind: "exec", program: "sh", commandLine: "echo a\n  echo b" });
		expect(text).toBe("run `echo a echo b`");
		const long = describeCapability({ kind: "exec", program: "sh", commandLine: "x".repeat(1000) });
		expect(long.length).toBeLessThan(220);
		expect(long).toContain("…");
	});

	it("shows terminal escapes in a path, a variable's name or a command instead of sending them", () => {
		for (const capability of [
			{ kind: "fs-read", path: "/tmp/\u001b[2J" },
			{ kind: "fs-write", path: "/tmp/\u001b]0;x\u0007" },
			{ kind: "env", name: "A\u001bB" },
			{ kind: "exec", program: "sh", commandLine: "echo \u001b[31m" },
		] as Capability[]) {
			expect(describeCapability(capability)).not.toMatch(/[\u0000-\u001f]/);
			expect(describeCapability(capability)).toContain("\\e");
		}
	});

	it("names the program when the command line is empty", () => {
		expect(describeCapability({ kind: "exec", program: "make", commandLine: "" })).toBe("run `make`");
	});
});

describe("safe environment", () => {
	it("holds the names that locate things and shape output", () => {
		for (const name of [
			"PATH",
			"HOME",
			"USER",
			"LOGNAME",
			"SHELL",
			"LANG",
			"LANGUAGE",
			"LC_ALL",
			"LC_CTYPE",
			"TERM",
			"TZ",
			"TMPDIR",
			"TEMP",
			"TMP",
			"PWD",
			"NODE_ENV",
			"CI",
			"COLUMNS",
			"LINES",
			"NO_COLOR",
			"FORCE_COLOR",
		]) {
			expect(SAFE_ENV.has(name), name).toBe(true);
		}
		expect(SAFE_ENV.size).toBe(21);
		expect(SAFE_ENV.has("OPENAI_API_KEY")).toBe(false);
	});

	it("keeps only safe variables that have a value", () => {
		const env = {
			PATH: "/usr/bin",
			HOME: "/home/me",
			OPENAI_API_KEY: "sk-secret",
			AWS_SECRET_ACCESS_KEY: "x",
			TERM: undefined,
			path: "/lower",
		};
		expect(safeEnvironment(env)).toEqual({ PATH: "/usr/bin", HOME: "/home/me" });
	});
});
