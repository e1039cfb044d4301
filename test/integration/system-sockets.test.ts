// A granted command reaches no unix socket outside its writable folders (issue 11's leftover): a stand-in daemon
// listens in a system tree (/run/lock, world-writable on Debian) and in a hidden home's folder a PATH shows again, and
// commands run for real in bubblewrap try it with node, python, curl, through a link, through /proc, and after the
// socket was made while pi ran; the project's own socket stays reachable.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ApprovedExec, type CommandSetting, runCommand } from "../../src/run/isolated/parent/exec-command.ts";
import { detectSandbox, type SandboxStatus } from "../../src/run/isolated/parent/os-sandbox.ts";
import { real } from "../../src/run/isolated/parent/paths.ts";

let sandbox: SandboxStatus;
const made: string[] = [];
const servers: Server[] = [];
const savedHome = process.env.HOME;
/** A folder in a system tree that this user may make a socket in. */
let system: string;

beforeAll(async () => {
	sandbox = await detectSandbox("auto");
	expect(sandbox.kind, "bubblewrap must be installed for these tests").toBe("bubblewrap");
	const place = ["/run/lock", "/run", "/var/lock"].find((dir) => writable(dir));
	expect(place, "a writable /run/lock (or /run) is needed for the stand-in daemon").toBeDefined();
	system = real(mkdtempSync(join(place!, "forge-daemon-")));
});

afterEach(() => {
	process.env.HOME = savedHome;
	for (const server of servers.splice(0)) server.close();
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

afterAll(() => rmSync(system, { recursive: true, force: true }));

function writable(dir: string): boolean {
	try {
		accessSync(dir, constants.W_OK);
		return true;
	} catch {
		return false;
	}
}

function tempDir(prefix: string): string {
	const dir = real(mkdtempSync(join(tmpdir(), prefix)));
	made.push(dir);
	return dir;
}

/** A daemon that greets whoever connects. */
async function daemon(path: string, greeting = "daemon says hi"): Promise<string> {
	const server = createServer((connection) => connection.end(`${greeting}\n`));
	await new Promise<void>((resolve) => server.listen(path, resolve));
	servers.push(server);
	return path;
}

function setting(extra: Partial<CommandSetting> = {}): CommandSetting & { project: string } {
	const project = tempDir("sock-project-");
	const toolTemp = join(tempDir("agent-forge-"), "tool");
	mkdirSync(toolTemp, { mode: 0o700 });
	return {
		project,
		writable: [project, toolTemp],
		readOnly: [],
		network: false,
		sandbox,
		cwd: project,
		env: { PATH: "/usr/local/bin:/usr/bin:/bin", TMPDIR: toolTemp },
		children: new Set<ChildProcess>(),
		...extra,
	};
}

const file = (path: string, args: string[]): ApprovedExec => ({
	kind: "exec",
	file: path,
	args,
	shell: false,
	timeoutMs: 20_000,
});

/** node as the client: what the daemon said, or "refused <code>". */
const nodeClient = (socket: string) =>
	file("/usr/bin/node", [
		"-e",
		`const s = require("net").connect(${JSON.stringify(socket)}); s.on("data", (d) => { process.stdout.write(String(d)); s.end(); }); s.on("error", (e) => console.log("refused " + e.code));`,
	]);

async function output(request: ApprovedExec, s: CommandSetting): Promise<string> {
	const result = await runCommand(request, s);
	return `${result.stdout}${result.stderr}`.trim();
}

describe("a socket in a system tree", () => {
	it("is reached without the sandbox's rule and refused to a granted command, whichever client it uses", async () => {
		const socket = await daemon(join(system, "root.sock"));
		// The stand-in answers outside the sandbox (asynchronously: the daemon is this process).
		const outside = await promisify(execFile)("/usr/bin/curl", [
			"-s",
			"--http0.9",
			"--unix-socket",
			socket,
			"http://x/",
		]);
		expect(outside.stdout).toBe("daemon says hi\n");
		const s = setting();
		expect(await output(nodeClient(socket), s)).toMatch(/^refused (ECONNREFUSED|ENOTSOCK)$/);
		const python = `import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n  s.connect(${JSON.stringify(socket)}); print(s.recv(100).decode().strip())\nexcept OSError as e:\n  print("refused", e.errno)`;
		expect(await output(file("/usr/bin/python3", ["-c", python]), s)).toMatch(/^refused \d+$/);
		const curl = await runCommand(
			file("/usr/bin/curl", ["-s", "--http0.9", "--unix-socket", socket, "http://x/"]),
			s,
		);
		expect(curl.stdout).toBe("");
		expect(curl.status).toBe(7);
	});

	it("is refused through a link in the project and through /proc/<pid>/root", async () => {
		const socket = await daemon(join(system, "linked.sock"));
		const s = setting();
		symlinkSync(socket, join(s.project, "docker.sock"));
		expect(await output(nodeClient(join(s.project, "docker.sock")), s)).toMatch(/^refused/);
		expect(await output(nodeClient(`/proc/self/root${socket}`), s)).toMatch(/^refused/);
		expect(await output(nodeClient(`/proc/1/root${socket}`), s)).toMatch(/^refused/);
	});

	it("made after an earlier command ran (pi already up) is refused too", async () => {
		const s = setting();
		expect(await output(nodeClient(join(system, "later.sock")), s)).toBe("refused ENOENT");
		const nested = join(system, "later", "deeper");
		mkdirSync(nested, { recursive: true });
		const socket = await daemon(join(nested, "later.sock"));
		expect(await output(nodeClient(socket), s)).toMatch(/^refused (ECONNREFUSED|ENOTSOCK)$/);
	});
});

describe("a socket where a command may reach it", () => {
	it("in the project is reached (its own writable folder)", async () => {
		const s = setting();
		const socket = await daemon(join(s.project, "dev.sock"), "project server");
		expect(await output(nodeClient(socket), s)).toBe("project server");
	});
});

describe("a socket in the hidden home", () => {
	it("is refused where a PATH folder shows its installation again (~/.docker/run/docker.sock)", async () => {
		const home = tempDir("sock-home-");
		process.env.HOME = home;
		mkdirSync(join(home, ".docker", "bin"), { recursive: true });
		mkdirSync(join(home, ".docker", "run"));
		const socket = await daemon(join(home, ".docker", "run", "docker.sock"));
		const s = setting();
		s.env.PATH = `${join(home, ".docker", "bin")}:${s.env.PATH}`;
		// ~/.docker is seen again (its bin is on the PATH), its socket not.
		const listing = await output(file("/bin/ls", [join(home, ".docker")]), s);
		expect(listing.split("\n").sort()).toEqual(["bin", "run"]);
		expect(await output(nodeClient(socket), s)).toMatch(/^refused (ECONNREFUSED|ENOTSOCK)$/);
	});
});

describe("a socket that comes and goes", () => {
	it("gone between the look and bubblewrap's start, does not fail the command (it runs once more)", async () => {
		const dir = join(system, "flicker");
		mkdirSync(dir);
		// Another process makes a socket there and removes it 150 ms later, again 150 ms after that, while commands start.
		const flicker = spawn(
			process.execPath,
			[
				"-e",
				`const net = require("net"); const path = ${JSON.stringify(join(dir, "flicker.sock"))};
				const once = () => { const s = net.createServer().listen(path, () => setTimeout(() => s.close(() => setTimeout(once, 150)), 150)); };
				once();`,
			],
			{ stdio: "ignore" },
		);
		try {
			const s = setting();
			const results = [];
			for (let i = 0; i < 60; i++) results.push(await runCommand(file("/bin/echo", ["ran"]), s));
			expect(results.map((result) => `${result.status} ${result.stdout.trim()}${result.stderr.trim()}`)).toEqual(
				Array(60).fill("0 ran"),
			);
		} finally {
			flicker.kill("SIGKILL");
		}
	});
});
