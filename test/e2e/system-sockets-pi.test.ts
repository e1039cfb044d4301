// Through the real pi (issue 11's leftover): a command a tool was granted (permissive: with the network) cannot reach a
// daemon's unix socket in a system tree, made after pi started, nor through a link to it in the project, whatever
// the client; a socket in the project itself it reaches.
import { accessSync, constants, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const REPO = resolve(import.meta.dirname, "../..");
const INDEX = join(REPO, "index.ts");
const NO_PARAMS = { type: "object", properties: {} };

let pi: PiHarness | undefined;
const made: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
	for (const server of servers.splice(0)) server.close();
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function daemon(path: string, greeting: string): Promise<string> {
	const server = createServer((connection) => connection.end(`${greeting}\n`));
	await new Promise<void>((listening) => server.listen(path, listening));
	servers.push(server);
	return path;
}

/** A folder in a system tree this user may make a socket in (/run/lock is world-writable on Debian). */
function systemPlace(): string {
	const place = ["/run/lock", "/run", "/var/lock"].find((dir) => {
		try {
			accessSync(dir, constants.W_OK);
			return true;
		} catch {
			return false;
		}
	});
	expect(place, "a writable /run/lock (or /run) is needed for the stand-in daemon").toBeDefined();
	const dir = mkdtempSync(join(place!, "forge-e2e-daemon-"));
	made.push(dir);
	return dir;
}

/** A tool that connects to each socket with node and python, and returns what it heard or "refused". */
const connector = (sockets: string[]) => `import { execFileSync } from "node:child_process";
const out = [];
for (const path of ${JSON.stringify(sockets)}) {
  const js = "const s = require('net').connect(" + JSON.stringify(path) + "); s.on('data', (d) => { process.stdout.write(String(d).trim()); s.end(); }); s.on('error', () => process.stdout.write('refused'));";
  const py = "import socket\\ns = socket.socket(socket.AF_UNIX)\\ntry:\\n  s.connect(" + JSON.stringify(path) + "); print(s.recv(100).decode().strip())\\nexcept OSError:\\n  print('refused')";
  out.push(execFileSync("/usr/bin/node", ["-e", js], { encoding: "utf8" }).trim() + " " + execFileSync("/usr/bin/python3", ["-c", py], { encoding: "utf8" }).trim());
}
return out.join("\\n");`;

describe("unix sockets outside a granted command's own folders (permissive)", () => {
	it("a daemon's in /run is refused, directly and through a link; the project's own is reached", async () => {
		const cwd = await makeTempDir("forge-sock-e2e");
		made.push(cwd);
		pi = await startPi({ extensionPaths: [INDEX], cwd, env: { PI_FORGE_POLICY: "permissive" } });
		// Made after pi started.
		const root = await daemon(join(systemPlace(), "root.sock"), "ROOT-DAEMON");
		const own = await daemon(join(cwd, "own.sock"), "PROJECT-SERVER");
		symlinkSync(root, join(cwd, "link.sock"));
		const run = await pi.run("connect", [
			[
				{
					name: "forge_tool",
					args: {
						name: "connector",
						description: "Connects to sockets.",
						parametersSchema: NO_PARAMS,
						logic: connector([root, join(cwd, "link.sock"), own]),
					},
				},
			],
			[{ name: "use_forge_tool", args: { name: "connector", args: {} } }],
			{ text: "done" },
		]);
		const result = run.toolEvents.find((event) => event.toolName === "use_forge_tool");
		expect(result?.isError).toBe(false);
		expect(result!.text.split("\n")).toEqual(["refused refused", "refused refused", "PROJECT-SERVER PROJECT-SERVER"]);
	});
});
