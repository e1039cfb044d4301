// A granted command confined further (issue 11's leftovers), run for real in bubblewrap: it sees only its own temp dir
// of the shared ones, only what programs in ~/.local/bin run from, is limited in processes and memory, cannot leave
// protected names below the top of the project, and the placeholders it held are recorded for a start after a hard kill.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { limited } from "../../src/run/isolated/parent/command-limits.ts";
import { type ApprovedExec, type CommandSetting, runCommand } from "../../src/run/isolated/parent/exec-command.ts";
import {
	bwrapArgs,
	detectSandbox,
	limitSupport,
	type SandboxStatus,
} from "../../src/run/isolated/parent/os-sandbox.ts";
import { real } from "../../src/run/isolated/parent/paths.ts";

let sandbox: SandboxStatus;
const made: string[] = [];
const savedHome = process.env.HOME;

beforeAll(async () => {
	sandbox = await detectSandbox("auto");
	expect(sandbox.kind, "bubblewrap must be installed for these tests").toBe("bubblewrap");
});

afterEach(() => {
	process.env.HOME = savedHome;
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
	const dir = real(mkdtempSync(join(tmpdir(), prefix)));
	made.push(dir);
	return dir;
}

/** A project and a tool temp dir in the shared temp dir, as tests and pi's runner make them. */
function setting(extra: Partial<CommandSetting> = {}): CommandSetting & { project: string; toolTemp: string } {
	const project = tempDir("cmd-project-");
	const toolTemp = join(tempDir("agent-forge-"), "tool");
	mkdirSync(toolTemp, { mode: 0o700 });
	return {
		project,
		toolTemp,
		writable: [project, toolTemp],
		readOnly: ["AGENTS.md", "CLAUDE.md", ".git", ".pi", ".vscode/tasks.json"].map((name) => join(project, name)),
		network: false,
		sandbox,
		cwd: project,
		env: { PATH: "/usr/local/bin:/usr/bin:/bin", TMPDIR: toolTemp },
		children: new Set<ChildProcess>(),
		...extra,
	};
}

const sh = (line: string, timeoutMs = 20_000): ApprovedExec => ({
	kind: "exec",
	file: line,
	args: [],
	shell: true,
	timeoutMs,
});

describe("the shared temp dir", () => {
	it("is hidden but for the command's own TMPDIR and the project in it", async () => {
		const other = tempDir("someone-elses-");
		writeFileSync(join(other, "secret.txt"), "another session's file");
		const s = setting();
		const result = await runCommand(
			sh(
				`cat ${other}/secret.txt 2>/dev/null || echo hidden; echo mine > "$TMPDIR/a" && cat "$TMPDIR/a"; echo p > p.txt && cat p.txt; ls -a /tmp | grep -c . ; ls /var/tmp | wc -l`,
			),
			s,
		);
		expect(result.error).toBeUndefined();
		const [secret, mine, project, entries, varTmp] = result.stdout.trim().split("\n");
		expect(secret).toBe("hidden");
		expect(mine).toBe("mine");
		expect(project).toBe("p");
		// ".", ".." and the two folders that lead to the project and the tool's temp dir.
		expect(Number(entries)).toBe(4);
		expect(varTmp).toBe("0");
	});

	it("keeps a PATH folder there usable, and a masked toolbox there visible", async () => {
		const tools = tempDir("cmd-path-");
		mkdirSync(join(tools, "bin"));
		writeFileSync(join(tools, "bin", "hello-forge"), "#!/bin/sh\necho hello from a temp PATH folder\n");
		chmodSync(join(tools, "bin", "hello-forge"), 0o755);
		const box = tempDir("cmd-toolbox-");
		writeFileSync(join(box, "forge-a.ts"), "export {}");
		writeFileSync(join(box, ".forge-health.json"), "{}");
		const s = setting({ unreadable: [join(box, ".forge-health.json")] });
		const result = await runCommand(sh(`hello-forge; ls -a ${box} | tr '\\n' ' '`), {
			...s,
			env: { ...s.env, PATH: `${join(tools, "bin")}:${s.env.PATH}` },
		});
		expect(result.stdout).toBe("hello from a temp PATH folder\n. .. forge-a.ts ");
	});
});

describe("~/.local on the PATH", () => {
	function fakeHome(): string {
		const home = tempDir("cmd-home-");
		const local = join(home, ".local");
		for (const dir of ["bin", "lib/greet", "share/greet", "share/keyrings", "share/pipx/venvs/pytool/bin", "state"])
			mkdirSync(join(local, dir), { recursive: true });
		writeFileSync(join(local, "lib", "greet", "words.sh"), "WORDS='hello from lib'\n");
		writeFileSync(join(local, "share", "greet", "data.txt"), "its own data\n");
		writeFileSync(join(local, "share", "keyrings", "login.keyring"), "KEYRING-SECRET");
		writeFileSync(join(local, "state", "history"), "STATE-SECRET");
		writeFileSync(
			join(local, "bin", "greet"),
			`#!/bin/sh\n. ${local}/lib/greet/words.sh\necho "$WORDS"\ncat ${local}/share/greet/data.txt\n`,
		);
		writeFileSync(join(local, "share", "pipx", "venvs", "pytool", "bin", "pytool"), "#!/bin/sh\necho from a venv\n");
		chmodSync(join(local, "bin", "greet"), 0o755);
		chmodSync(join(local, "share", "pipx", "venvs", "pytool", "bin", "pytool"), 0o755);
		symlinkSync(join(local, "share", "pipx", "venvs", "pytool", "bin", "pytool"), join(local, "bin", "pytool"));
		writeFileSync(join(home, "secret.txt"), "HOME-SECRET");
		process.env.HOME = home;
		return home;
	}

	it("runs a script there that reads its lib, and a pipx-style link, but not keyrings, state or the rest", async () => {
		const home = fakeHome();
		const local = join(home, ".local");
		const s = setting();
		const env = { ...s.env, PATH: `${join(local, "bin")}:${s.env.PATH}` };
		const read = (path: string) => `cat ${path} 2>/dev/null || echo refused`;
		const result = await runCommand(
			sh(
				[
					"greet",
					"pytool",
					read(`${local}/share/keyrings/login.keyring`),
					read(`${local}/state/history`),
					read(`${home}/secret.txt`),
				].join("; "),
			),
			{ ...s, env },
		);
		expect(result.stdout.trim().split("\n")).toEqual([
			"hello from lib",
			"its own data",
			"from a venv",
			"refused",
			"refused",
			"refused",
		]);
		const listed = await runCommand(sh(`ls -a ${local} ${local}/share | tr '\\n' ' '`), { ...s, env });
		expect(listed.stdout).toBe(`${local}: . .. bin lib share  ${local}/share: . .. greet pipx `);
	});
});

describe("processes and memory", () => {
	it("a fork bomb does not get past the process limit, and the command ends", async () => {
		const s = setting({ limits: { processes: 50, dataMb: 512 } });
		const started = Date.now();
		const result = await runCommand(
			sh(`i=0; while [ $i -lt 400 ]; do sleep 30 & i=$((i+1)); echo $i > "$TMPDIR/count"; done; wait`),
			s,
		);
		expect(Date.now() - started).toBeLessThan(15_000);
		const count = Number(readFileSync(join(s.toolTemp, "count"), "utf8"));
		// As root the watch stops it within a count or two of its period; otherwise fork fails at the limit.
		expect(count).toBeLessThan(400);
		expect(result.status === 0 && !result.error).toBe(false);
		if (sandbox.kind === "bubblewrap" && sandbox.root)
			expect(result.error).toContain("more than 50 processes and threads");
	});

	it("a memory hog gets an allocation error, not the machine's memory; Node still runs under the limit", async () => {
		const s = setting({ limits: { processes: 256, dataMb: 300 } });
		const hog = await runCommand(
			sh(`node -e 'try { Buffer.alloc(900e6, 1); console.log("allocated") } catch (e) { console.log(e.message) }'`),
			s,
		);
		expect(hog.stdout.trim()).toBe("Array buffer allocation failed");
		const fine = await runCommand(sh(`node -e 'console.log([1,2,3].map((x) => x * 2).join(","))'`), s);
		expect(fine.stdout.trim()).toBe("2,4,6");
	});
});

describe("the hidden folders' empty ones", () => {
	it("are bounded in size: writing into /tmp or the home does not fill the machine's memory", async () => {
		const s = setting({ limits: { processes: 256, dataMb: 128 } });
		const result = await runCommand(
			sh(
				`head -c 100000000 /dev/zero > /tmp/fill 2>/dev/null; echo $?; head -c 100000000 /dev/zero > "$HOME/fill" 2>/dev/null; echo $?; rm -f /tmp/fill; head -c 1000000 /dev/zero > /tmp/small && echo small`,
			),
			{ ...s, env: { ...s.env, HOME: process.env.HOME ?? "/root" } },
		);
		expect(result.stdout.trim().split("\n")).toEqual(["1", "1", "small"]);
	});
});

describe("protected names below the top of the project", () => {
	it("a nested repository, a docs/AGENTS.md and a sub-package's .pi/extensions are removed, and the tool is told", async () => {
		const s = setting();
		const result = await runCommand(
			sh(
				"git init -q sub && mkdir -p docs && echo x > docs/AGENTS.md && echo ok > docs/readme.md && mkdir -p a/.pi/extensions && echo 'export default () => {}' > a/.pi/extensions/x.ts && echo done",
			),
			s,
		);
		expect(result.stdout.trim()).toBe("done");
		expect(result.error).toContain(join(s.project, "sub", ".git"));
		expect(result.error).toContain(join(s.project, "docs", "AGENTS.md"));
		expect(result.error).toContain(join(s.project, "a", ".pi"));
		expect(result.error).toContain("which no forged tool may write");
		for (const path of ["sub/.git", "docs/AGENTS.md", "a/.pi"])
			expect(existsSync(join(s.project, path)), path).toBe(false);
		expect(existsSync(join(s.project, "docs", "readme.md"))).toBe(true);
		expect(existsSync(join(s.project, "a", "x"))).toBe(false);
	});

	it("those there before are bound read-only and stay; the tool's temp dir is not checked", async () => {
		const s = setting();
		mkdirSync(join(s.project, "vendor", "lib", ".git", "hooks"), { recursive: true });
		writeFileSync(join(s.project, "vendor", "CLAUDE.md"), "be nice\n");
		const result = await runCommand(
			sh(
				`echo evil > vendor/lib/.git/hooks/pre-commit 2>/dev/null || echo refused; echo evil >> vendor/CLAUDE.md 2>/dev/null || echo refused; git init -q "$TMPDIR/scratch" && echo cloned`,
			),
			s,
		);
		expect(result.stdout.trim().split("\n")).toEqual(["refused", "refused", "cloned"]);
		expect(result.error).toBeUndefined();
		expect(existsSync(join(s.project, "vendor", "lib", ".git", "hooks", "pre-commit"))).toBe(false);
		expect(existsSync(join(s.toolTemp, "scratch", ".git"))).toBe(true);
	});
});

describe("a project too big to walk", () => {
	it("removes nothing (a name past the walk's end could have been there) and says so in the command's output", async () => {
		const s = setting({ scanEntries: 10 });
		for (let i = 0; i < 20; i++) writeFileSync(join(s.project, `file${i}.txt`), "");
		const result = await runCommand(sh("git init -q sub && echo inited"), s);
		expect(result.error).toBeUndefined();
		expect(result.stdout).toBe("inited\n");
		expect(result.stderr).toContain("agent-forge: the project has too many files to check all of them");
		expect(existsSync(join(s.project, "sub", ".git"))).toBe(true);
	});
});

describe("the kernel's process limit (RLIMIT_NPROC inside bubblewrap)", () => {
	it("counts only the command's user namespace: a user with many processes elsewhere still gets its limit's worth", async () => {
		const dir = tempDir("cmd-nproc-");
		chmodSync(dir, 0o777);
		// Not root (the kernel exempts root): the same command line as a granted command's, run as nobody.
		const asUser =
			process.getuid?.() === 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
		const outside = Array.from({ length: 60 }, () =>
			spawn(asUser[0] ?? "sleep", [...asUser.slice(1), ...(asUser.length ? ["sleep"] : []), "20"]),
		);
		try {
			const inner = limited(
				{ prlimit: limitSupport(sandbox).prlimit, watch: false },
				{ processes: 40, dataMb: 512 },
				"/bin/sh",
				["-c", `i=0; while [ $i -lt 200 ]; do sleep 20 & i=$((i+1)); echo $i > ${dir}/count; done`],
			);
			const args = [
				...bwrapArgs({ writable: [dir], readOnly: [], network: false }),
				"--",
				inner.command,
				...inner.args,
			];
			const bwrap = (sandbox as { path: string }).path;
			const run = spawnSync(asUser[0] ?? bwrap, [...asUser.slice(1), ...(asUser.length ? [bwrap] : []), ...args], {
				encoding: "utf8",
				timeout: 20_000,
			});
			const count = Number(readFileSync(join(dir, "count"), "utf8"));
			// The shell itself and bubblewrap's init count too; the 60 processes outside do not.
			expect(count).toBeGreaterThan(30);
			expect(count).toBeLessThan(40);
			expect(run.stderr).toMatch(/fork/i);
		} finally {
			for (const child of outside) child.kill("SIGKILL");
		}
	});
});

describe("sockets in the hidden folders", () => {
	it("a command cannot connect to a socket in another temp folder or in the user's runtime dir", async () => {
		const others = tempDir("someone-elses-sockets-");
		const runtime = `/run/user/${process.getuid!()}`;
		const madeRuntime = !existsSync(runtime);
		if (madeRuntime) mkdirSync(runtime, { recursive: true, mode: 0o700 });
		const paths = [join(others, "agent.sock"), join(runtime, `forge-test-${process.pid}.sock`)];
		const servers = paths.map((path) => createServer((socket) => socket.end("CONNECTED\n")).listen(path));
		try {
			await Promise.all(servers.map((server) => new Promise((r) => server.once("listening", r))));
			const probe = (path: string) =>
				`node -e 'require("net").connect(${JSON.stringify(path)}).on("data", (d) => process.stdout.write(String(d))).on("error", (e) => console.log(e.code))'`;
			const result = await runCommand(sh(paths.map(probe).join("; ")), setting());
			expect(result.stdout.trim().split("\n")).toEqual(["ENOENT", "ENOENT"]);
		} finally {
			for (const server of servers) server.close();
			for (const path of paths) rmSync(path, { force: true });
			if (madeRuntime) rmSync(runtime, { recursive: true, force: true });
		}
	});
});
