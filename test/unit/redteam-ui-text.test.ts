// The pure parts of the red team's UI findings (issue 11): whitespace runs marked in what a dialog shows (F20), text
// and JSON made inert for a terminal and control characters found (F9), content-bound grant keys (F5), and the
// bubblewrap arguments of a granted command's view (F5, F7, F16).
import { describe, expect, it } from "vitest";
import { capabilityKey } from "../../src/policy/capability.ts";
import { commandTooLong, permissionTitle } from "../../src/policy/display.ts";
import { parseGrantKey } from "../../src/policy/grant-key.ts";
import { controlCharacter, inertJson, inertText, markWhitespace } from "../../src/policy/terminal-text.ts";
import { bwrapArgs } from "../../src/run/isolated/parent/os-sandbox.ts";

const DIGEST = "ab".repeat(32);

describe("what a dialog shows of a command line", () => {
	it("marks long whitespace runs by kind and keeps short ones", () => {
		expect(markWhitespace(`a${" ".repeat(3000)}b`)).toBe("a⟨3000 spaces⟩b");
		expect(markWhitespace("a\t\t\t\tb")).toBe("a⟨4 tabs⟩b");
		expect(markWhitespace("a\n\n\n\n\nb")).toBe("a⟨5 newlines⟩b");
		expect(markWhitespace("a \t \nb")).toBe("a⟨4 whitespace characters⟩b");
		expect(markWhitespace("a   b")).toBe("a   b");
		expect(markWhitespace(`a${"\u3000".repeat(6)}b`)).toBe("a⟨6 whitespace characters⟩b");
	});

	it("shows the payload after a padded run, and refuses to show a line too long to show whole", () => {
		const padded = {
			kind: "exec",
			program: "/bin/sh",
			commandLine: `echo ok${" ".repeat(5000)}; rm -rf ~`,
			shell: true,
		} as const;
		expect(permissionTitle(padded, { tool: "t" })).toContain("echo ok⟨5000 spaces⟩; rm -rf ~");
		expect(commandTooLong(padded)).toBeUndefined();
		const long = { ...padded, commandLine: `echo ${"word ".repeat(1000)}` };
		expect(commandTooLong(long)).toBeGreaterThan(2000);
	});

	it("says that Always covers a program a tool can write only as it is now", () => {
		const title = permissionTitle(
			{ kind: "exec", program: "/p/build.sh", commandLine: "/p/build.sh", content: DIGEST },
			{ tool: "t" },
		);
		expect(title).toContain('"Always" allows /p/build.sh as it is now with any arguments');
	});
});

describe("text from tool files, made inert", () => {
	it("keeps lines and tabs, shows escapes", () => {
		expect(inertText("a\tb\n\u001b]0;x\u0007c\u202e")).toBe("a\tb\n\\e]0;x\\x07c\\u202e");
	});

	it("keeps JSON meaning the same", () => {
		const value = { description: "x\u001b[2J\u202e\u0085\u2028y" };
		const json = inertJson(JSON.stringify(value, null, 2));
		expect(json).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u202e]/);
		expect(JSON.parse(json)).toEqual(value);
	});

	it("finds the first control or direction-changing character, not newlines or tabs", () => {
		expect(controlCharacter("Counts words.\n\tOK")).toBeUndefined();
		expect(controlCharacter("ab\u001b[2J")).toEqual({ index: 2, shown: "\\e" });
		expect(controlCharacter("ab\u202ecd")).toEqual({ index: 2, shown: "\\u202e" });
	});
});

describe("grant keys bound to content", () => {
	it("carries the digest in the key, before the environment's", () => {
		const key = capabilityKey({
			kind: "exec",
			program: "/p/build.sh",
			commandLine: "/p/build.sh",
			content: DIGEST,
			env: [{ name: "A", value: "1" }],
		});
		expect(key).toMatch(new RegExp(`^exec:/p/build\\.sh content#${DIGEST} env:A#[0-9a-f]{12}$`));
		expect(parseGrantKey(key)).toEqual({ ok: true, key });
		expect(parseGrantKey(`exec:/p/build.sh content#${DIGEST}`)).toEqual({
			ok: true,
			key: `exec:/p/build.sh content#${DIGEST}`,
		});
	});
});

describe("a granted command's bubblewrap arguments", () => {
	it("holds placeholders read-only, masks files, pins approved bytes", () => {
		const args = bwrapArgs({
			writable: ["/p"],
			readOnly: ["/p/.pi"],
			network: false,
			placeholders: ["/p/.git"],
			masked: [{ dir: "/p/.pi/forge/extensions", keep: ["/p/.pi/forge/extensions/forge-a.ts"] }],
			pinned: [{ path: "/p/build.sh", fd: 3 }],
		}).join(" ");
		expect(args).toContain("--tmpfs /p/.git --remount-ro /p/.git");
		expect(args).toContain(
			"--tmpfs /p/.pi/forge/extensions --ro-bind-try /p/.pi/forge/extensions/forge-a.ts /p/.pi/forge/extensions/forge-a.ts --remount-ro /p/.pi/forge/extensions",
		);
		expect(args).toContain("--perms 0555 --ro-bind-data 3 /p/build.sh");
		// After the project is bound, so they win inside it.
		expect(args.indexOf("--bind /p /p")).toBeLessThan(args.indexOf("--tmpfs /p/.git"));
	});
});
