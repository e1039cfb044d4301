// A granted command on macOS goes through sandbox-exec with the profile made from its view: here a stand-in for
// sandbox-exec (it checks the arguments, keeps the profile and runs the command), since no Mac is at hand. The kept
// profile is read back and asked what the command may do.
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CommandSetting, runCommand } from "../../src/run/isolated/parent/exec-command.ts";
import { describeSandbox, limitSupport, sandboxed } from "../../src/run/isolated/parent/os-sandbox.ts";
import { shellFilesDigest } from "../../src/run/isolated/parent/program-content.ts";
import { decide } from "../helpers/sbpl.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "seatbelt-wiring-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const project = join(dir, "project");
const temp = join(dir, "tmp");
mkdirSync(join(project, ".git"), { recursive: true });
mkdirSync(temp);
writeFileSync(join(dir, "secret"), "another project's file");
writeFileSync(join(project, "build.sh"), "echo built > built.txt\n");
const kept = join(dir, "profile.sb");
const standIn = join(dir, "sandbox-exec");
writeFileSync(
	standIn,
	`#!/bin/sh\n[ "$1" = "-p" ] && [ "$3" = "--" ] || exit 64\nprintf '%s' "$2" > '${kept}'\nshift 3\nexec "$@"\n`,
);
chmodSync(standIn, 0o755);
const status = { kind: "seatbelt" as const, path: standIn };
/** A protected path three levels down whose folders are absent: no placeholder and no name holds it. */
const deep = join(project, "deep", "er", "hook.sh");

const setting: CommandSetting = {
	writable: [project, temp],
	readOnly: [".git", ".pi", "AGENTS.md", ".vscode/tasks.json"].map((name) => join(project, name)).concat(deep),
	network: false,
	sandbox: status,
	cwd: project,
	env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: temp },
	children: new Set(),
};

describe("a granted command under Seatbelt", () => {
	it("runs through sandbox-exec, with the project writable but the protected paths and names at any depth", async () => {
		const result = await runCommand(
			{
				kind: "exec",
				file: "echo x > made.txt && [ ! -e AGENTS.md ] && [ ! -e .pi ] && echo ran",
				args: [],
				shell: true,
			},
			setting,
		);
		// No placeholder is made on disk: the profile denies the absent paths by name.
		expect(result).toMatchObject({ stdout: "ran\n", status: 0 });
		expect(result.error).toBeUndefined();
		expect(readFileSync(join(project, "made.txt"), "utf8")).toBe("x\n");
		expect(existsSync(join(project, "AGENTS.md"))).toBe(false);
		const profile = readFileSync(kept, "utf8");
		const write = (path: string) => decide(profile, { operation: "file-write-create", path });
		expect(write(join(project, "src", "a.ts"))).toBe("allow");
		expect(write(join(project, ".git", "hooks", "pre-commit"))).toBe("deny");
		expect(write(join(project, "AGENTS.md"))).toBe("deny");
		expect(write(join(project, ".pi", "settings.json"))).toBe("deny");
		expect(write(join(project, "sub", ".git", "config"))).toBe("deny");
		expect(write(join(project, "docs", "AGENTS.md"))).toBe("deny");
		expect(write(join(project, ".vscode", "tasks.json"))).toBe("deny");
		expect(write(join(project, ".vscode"))).toBe("deny");
		expect(write(deep)).toBe("deny");
		expect(write(join(project, "node_modules", "pkg", ".git", "x"))).toBe("allow");
		expect(write(join(temp, "out.txt"))).toBe("allow");
		// The tool's own temp dir is not walked on Linux either: a clone there keeps its .git.
		expect(write(join(temp, "clone", ".git", "config"))).toBe("allow");
		expect(write("/etc/passwd")).toBe("deny");
		const read = (path: string) => decide(profile, { operation: "file-read-data", path });
		expect(read(join(project, "src", "a.ts"))).toBe("allow");
		expect(read(join(dir, "secret"))).toBe("deny");
		expect(decide(profile, { operation: "network-outbound" })).toBe("deny");
	});

	it("a protected name brought out of node_modules (which the profile lets be) is found after the command, and goes", async () => {
		mkdirSync(join(project, "docs"));
		writeFileSync(join(project, "docs", "AGENTS.md"), "the user's own");
		const result = await runCommand(
			{
				kind: "exec",
				file: "mkdir -p node_modules/p/.git && echo x > node_modules/p/.git/config && echo y > node_modules/p/AGENTS.md && mv node_modules/p lib",
				args: [],
				shell: true,
			},
			setting,
		);
		expect(result.error).toBe(
			`the command made ${join(project, "lib", ".git")}, ${join(project, "lib", "AGENTS.md")}, which no forged tool may write (pi, git or another agent runs or obeys it); removed.`,
		);
		expect(existsSync(join(project, "lib", ".git"))).toBe(false);
		expect(existsSync(join(project, "lib", "AGENTS.md"))).toBe(false);
		// What was there before the command is not the command's.
		expect(readFileSync(join(project, "docs", "AGENTS.md"), "utf8")).toBe("the user's own");
		// The one there before cannot be moved to another folder with its own (bubblewrap's bind refuses that too).
		const profile = readFileSync(kept, "utf8");
		expect(decide(profile, { operation: "file-write-unlink", path: join(project, "docs") })).toBe("deny");
		expect(decide(profile, { operation: "file-write-create", path: join(project, "docs", "b.md") })).toBe("allow");
	});

	it("records no placeholder for a start after a hard kill to remove (none is made on disk)", async () => {
		const recordDir = join(dir, "placeholders");
		mkdirSync(recordDir);
		const result = await runCommand(
			{ kind: "exec", file: `ls -A '${recordDir}'; echo listed`, args: [], shell: true },
			{ ...setting, recordDir },
		);
		expect(result).toMatchObject({ stdout: "listed\n", status: 0 });
		const profile = readFileSync(kept, "utf8");
		expect(decide(profile, { operation: "file-write-create", path: join(project, "AGENTS.md") })).toBe("deny");
	});

	it("an approved script is run as approved and cannot be rewritten by the command", async () => {
		const line = "sh build.sh";
		const programDigest = await shellFilesDigest(line, project, setting.writable, realpath);
		expect(programDigest).toBeDefined();
		const result = await runCommand({ kind: "exec", file: line, args: [], shell: true, programDigest }, setting);
		expect(result).toMatchObject({ status: 0 });
		expect(readFileSync(join(project, "built.txt"), "utf8")).toBe("built\n");
		const profile = readFileSync(kept, "utf8");
		expect(decide(profile, { operation: "file-write-data", path: join(project, "build.sh") })).toBe("deny");
		expect(decide(profile, { operation: "file-write-unlink", path: join(project, "build.sh") })).toBe("deny");
	});

	it("the runner host's command line, what /forge says, and no limits", () => {
		const { command, args } = sandboxed(status, { writable: [], readOnly: [], network: false }, "/usr/bin/node", [
			"h.js",
		]);
		expect(command).toBe(standIn);
		expect(args[0]).toBe("-p");
		expect(args.slice(2)).toEqual(["--", "/usr/bin/node", "h.js"]);
		expect(describeSandbox(status)).toBe(
			"OS sandbox: sandbox-exec (macOS Seatbelt, kernel-enforced; Node's permission model inside it). Granted commands have no process or memory limits on macOS (no prlimit there).",
		);
		expect(limitSupport(status)).toEqual({ watch: false });
	});
});
