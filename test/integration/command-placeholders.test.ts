// The placeholders a granted command holds are recorded where no tool can write, and what a pi killed hard left is
// removed at the next start (never one a live pi holds, never a folder with something in it); and the walk that finds
// protected names below the top of the project, on a project of ~20k files.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/run/isolated/parent/exec-command.ts";
import { detectSandbox } from "../../src/run/isolated/parent/os-sandbox.ts";
import { real } from "../../src/run/isolated/parent/paths.ts";
import { openPlaceholderRecords } from "../../src/run/isolated/parent/placeholders.ts";
import { protectedNamesAt, removeNew, scanProtected } from "../../src/run/isolated/parent/protected-scan.ts";

const made: string[] = [];
afterEach(() => {
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
	const dir = real(mkdtempSync(join(tmpdir(), prefix)));
	made.push(dir);
	return dir;
}

/** Field 22 of /proc/<pid>/stat, as the records keep it. */
function startTime(pid: number): string {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
}

describe("recorded placeholders", () => {
	it("are recorded while a command holds them, and record and placeholder go when it ends", async () => {
		const sandbox = await detectSandbox("auto");
		expect(sandbox.kind).toBe("bubblewrap");
		const project = tempDir("ph-project-");
		const runtime = tempDir("ph-runtime-");
		const recordDir = openPlaceholderRecords(runtime);
		const running = runCommand(
			{ kind: "exec", file: "sleep 1", args: [], shell: true },
			{
				writable: [project],
				readOnly: [join(project, ".git"), join(project, "AGENTS.md")],
				network: false,
				sandbox,
				cwd: project,
				env: { PATH: "/usr/bin:/bin" },
				children: new Set<ChildProcess>(),
				recordDir,
			},
		);
		const record = join(recordDir, `${process.pid}.json`);
		for (let i = 0; i < 50 && !existsSync(join(project, ".git")); i++) await new Promise((r) => setTimeout(r, 20));
		const held = JSON.parse(readFileSync(record, "utf8")) as { pid: number; paths: string[] };
		expect(held.pid).toBe(process.pid);
		expect(held.paths.sort()).toEqual([join(project, ".git"), join(project, "AGENTS.md")]);
		expect(existsSync(join(project, ".git"))).toBe(true);
		await running;
		expect(existsSync(record)).toBe(false);
		expect(existsSync(join(project, ".git"))).toBe(false);
		expect(existsSync(join(project, "AGENTS.md"))).toBe(false);
	});

	it("a dead process's empty placeholders are removed at start; a live one's, and a filled one, stay", async () => {
		const project = tempDir("ph-left-");
		const runtime = tempDir("ph-runtime-");
		const recordDir = join(runtime, "placeholders");
		mkdirSync(recordDir);
		for (const name of [".git", "AGENTS.md", ".claude", "live"]) mkdirSync(join(project, name));
		writeFileSync(join(project, ".claude", "settings.json"), "{}"); // put there since: not an empty placeholder
		const dead = spawn("true");
		const deadPid = dead.pid!;
		await new Promise((r) => dead.on("close", r));
		writeFileSync(
			join(recordDir, `${deadPid}.json`),
			JSON.stringify({
				pid: deadPid,
				started: "1",
				paths: [".git", "AGENTS.md", ".claude"].map((n) => join(project, n)),
			}),
		);
		const live = spawn("sleep", ["10"]);
		try {
			await new Promise((r) => setTimeout(r, 50));
			writeFileSync(
				join(recordDir, `${live.pid}.json`),
				JSON.stringify({ pid: live.pid, started: startTime(live.pid!), paths: [join(project, "live")] }),
			);
			expect(openPlaceholderRecords(runtime)).toBe(recordDir);
			expect(existsSync(join(project, ".git"))).toBe(false);
			expect(existsSync(join(project, "AGENTS.md"))).toBe(false);
			expect(existsSync(join(project, ".claude", "settings.json"))).toBe(true);
			expect(existsSync(join(project, "live"))).toBe(true);
			expect(existsSync(join(recordDir, `${deadPid}.json`))).toBe(false);
			expect(existsSync(join(recordDir, `${live.pid}.json`))).toBe(true);
		} finally {
			live.kill("SIGKILL");
		}
	});

	it("a record whose pid now belongs to another process (another start time) counts as dead", () => {
		const project = tempDir("ph-reused-");
		const runtime = tempDir("ph-runtime-");
		const recordDir = join(runtime, "placeholders");
		mkdirSync(recordDir);
		mkdirSync(join(project, ".git"));
		// pid 1 is running, but not since "1".
		writeFileSync(
			join(recordDir, "1.json"),
			JSON.stringify({ pid: 1, started: "1", paths: [join(project, ".git")] }),
		);
		openPlaceholderRecords(runtime);
		expect(existsSync(join(project, ".git"))).toBe(false);
	});
});

describe("the walk for protected names", () => {
	it("walks a project of ~20k files in well under a second, and finds a name deep in it", async () => {
		const project = tempDir("ph-walk-");
		for (let d = 0; d < 200; d++) {
			const dir = join(project, `pkg${d}`, "src", "lib");
			mkdirSync(dir, { recursive: true });
			for (let f = 0; f < 100; f++) writeFileSync(join(dir, `file${f}.ts`), "");
		}
		mkdirSync(join(project, "node_modules", "x", ".git"), { recursive: true });
		writeFileSync(join(project, "pkg150", "src", "lib", "Agents.md"), "x");
		const names = protectedNamesAt(project, [join(project, ".git"), join(project, "AGENTS.md")]);
		const started = performance.now();
		const scan = await scanProtected([project], names);
		const ms = performance.now() - started;
		console.log(`walk of 20,000 files in 600 folders: ${ms.toFixed(1)} ms`);
		expect(scan.complete).toBe(true);
		expect([...scan.paths]).toEqual([join(project, "pkg150", "src", "lib", "Agents.md")]);
		expect(ms).toBeLessThan(1000);
		const cut = await scanProtected([project], names, 5000);
		expect(cut.complete).toBe(false);
	});
});

describe("removing what a command made", () => {
	it("never follows a folder swapped for a link since the walk: what is behind the link stays, and is named", async () => {
		const project = tempDir("ph-swap-");
		const outside = tempDir("ph-outside-");
		mkdirSync(join(outside, ".git"));
		writeFileSync(join(outside, ".git", "HEAD"), "ref: refs/heads/main\n");
		mkdirSync(join(project, "real", ".git"), { recursive: true });
		symlinkSync(outside, join(project, "sub"));
		const before = { paths: new Set<string>(), complete: true };
		const after = { paths: new Set([join(project, "sub", ".git"), join(project, "real", ".git")]), complete: true };
		const result = await removeNew(before, after, new Set());
		expect(result).toEqual({ removed: [join(project, "real", ".git")], left: [join(project, "sub", ".git")] });
		expect(readFileSync(join(outside, ".git", "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
		expect(existsSync(join(project, "real", ".git"))).toBe(false);
	});

	it("leaves a placeholder another command holds", async () => {
		const project = tempDir("ph-held-");
		mkdirSync(join(project, "x", ".git"), { recursive: true });
		const after = { paths: new Set([join(project, "x", ".git")]), complete: true };
		const result = await removeNew(
			{ paths: new Set(), complete: true },
			after,
			new Set([join(project, "x", ".git")]),
		);
		expect(result).toEqual({ removed: [], left: [] });
		expect(existsSync(join(project, "x", ".git"))).toBe(true);
	});
});
