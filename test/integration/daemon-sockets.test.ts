// A granted command does not reach the sockets of daemons that act as root for whoever connects (docker's, podman's…):
// in the OS sandbox each is replaced by /dev/null, whatever the command's arguments.
import { execFile } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapArgs, detectSandbox } from "../../src/run/isolated/parent/os-sandbox.ts";
import { DAEMON_SOCKETS, daemonSockets } from "../../src/run/isolated/parent/system-sockets.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "forge-daemon-")));
const socket = join(dir, "docker.sock");
let server: Server;
beforeAll(async () => {
	server = createServer((connection) => connection.end("daemon says hi\n"));
	await new Promise<void>((resolve) => server.listen(socket, resolve));
	symlinkSync(socket, join(dir, "link.sock"));
});
afterAll(() => {
	server.close();
	rmSync(dir, { recursive: true, force: true });
});

describe("daemon sockets", () => {
	it("are found by their real paths, once each; what is not a socket or not there is left out", () => {
		expect(daemonSockets([socket, join(dir, "link.sock"), join(dir, "missing.sock"), dir])).toEqual([socket]);
		expect(DAEMON_SOCKETS).toContain("/run/docker.sock");
	});

	it("cannot be connected to from a sandboxed command once nulled (and can be without)", async () => {
		const sandbox = await detectSandbox();
		if (sandbox.kind !== "bubblewrap") throw new Error(`this test needs bubblewrap: ${JSON.stringify(sandbox)}`);
		const connect = `const s = require("net").connect(${JSON.stringify(socket)}); s.on("data", (d) => { console.log(String(d).trim()); s.end(); }); s.on("error", (e) => console.log("refused " + e.code));`;
		// Asynchronously: the daemon answering is this process.
		const run = async (nulled: string[]) =>
			(
				await promisify(execFile)(
					sandbox.path,
					[
						...bwrapArgs({ writable: [dir], readOnly: [], network: false, nulled }),
						"--",
						process.execPath,
						"-e",
						connect,
					],
					{ encoding: "utf8", timeout: 10_000 },
				)
			).stdout.trim();
		expect(await run([])).toBe("daemon says hi");
		expect(await run([socket])).toMatch(/^refused (ECONNREFUSED|ENOTSOCK)/);
	});
});
