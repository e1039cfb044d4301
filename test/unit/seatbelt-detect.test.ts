// Finding the macOS sandbox: only on darwin, only with sandbox-exec there, and only when Node runs under a real profile
// (a trial); a trial that fails leaves "no OS sandbox" with sandbox-exec's reason. The platform, the file check and
// the trial are injected: no Mac here.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { detectSeatbelt, SANDBOX_EXEC } from "../../src/run/isolated/parent/seatbelt.ts";
import { decide, readSbpl } from "../helpers/sbpl.ts";

const mac = { platform: "darwin" as const, exists: () => true, home: "/Users/me", tempDir: "/private/var/folders/T" };

describe("detectSeatbelt", () => {
	it("says none on a platform other than macOS, without looking further", async () => {
		let looked = false;
		const status = await detectSeatbelt({
			platform: "linux",
			exists: () => {
				looked = true;
				return true;
			},
		});
		expect(status).toEqual({ kind: "none", reason: "sandbox-exec (Seatbelt) is macOS only; this is linux" });
		expect(looked).toBe(false);
		expect((await detectSeatbelt({ platform: "win32" })).kind).toBe("none");
	});

	it("says none when sandbox-exec is not there", async () => {
		const status = await detectSeatbelt({ ...mac, exists: (path) => path !== SANDBOX_EXEC });
		expect(status).toEqual({ kind: "none", reason: "/usr/bin/sandbox-exec is not there" });
	});

	it("falls back to none with sandbox-exec's reason when the trial fails", async () => {
		const status = await detectSeatbelt({
			...mac,
			trial: async () => ({ ok: false, detail: "sandbox-exec: unbound variable: file-link" }),
		});
		expect(status).toEqual({
			kind: "none",
			reason: "sandbox-exec refused the profile: sandbox-exec: unbound variable: file-link",
		});
	});

	it("runs Node under a profile with and without the network, and finds seatbelt when both run", async () => {
		const trials: { file: string; args: string[] }[] = [];
		const status = await detectSeatbelt({
			...mac,
			execPath: "/Users/me/.nvm/versions/node/v24.1.0/bin/node",
			trial: async (file, args) => {
				trials.push({ file, args });
				return { ok: true, detail: "" };
			},
		});
		expect(status).toEqual({ kind: "seatbelt", path: SANDBOX_EXEC });
		expect(trials).toHaveLength(2);
		for (const { file, args } of trials) {
			expect(file).toBe(SANDBOX_EXEC);
			expect(args[0]).toBe("-p");
			expect(args.slice(2, 5)).toEqual(["--", "/Users/me/.nvm/versions/node/v24.1.0/bin/node", "-e"]);
			expect(args[5]).toContain("process.send");
			readSbpl(args[1]!);
		}
		const [closed, open] = trials.map(({ args }) => args[1]!);
		expect(decide(closed!, { operation: "network-outbound" })).toBe("deny");
		expect(decide(open!, { operation: "network-outbound" })).toBe("allow");
		// A representative profile: the home hidden but for Node's installation in it.
		const read = (path: string) => decide(closed!, { operation: "file-read-data", path });
		expect(read("/Users/me/.ssh/id_ed25519")).toBe("deny");
		expect(read("/Users/me/.nvm/versions/node/v24.1.0/bin/node")).toBe("allow");
		for (const kind of ["require-all", "require-not", "regex", "literal", "subpath", "vnode-type"])
			expect(closed).toContain(`(${kind} `);
	});

	it("one failed trial of the two is enough to fall back", async () => {
		let calls = 0;
		const status = await detectSeatbelt({
			...mac,
			trial: async () =>
				++calls === 2 ? { ok: false, detail: "Operation not permitted" } : { ok: true, detail: "" },
		});
		expect(status).toEqual({ kind: "none", reason: "sandbox-exec refused the profile: Operation not permitted" });
	});

	describe("the trial itself, with a stand-in for sandbox-exec", () => {
		const dir = mkdtempSync(join(tmpdir(), "seatbelt-trial-"));
		afterAll(() => rmSync(dir, { recursive: true, force: true }));
		/** A script that takes sandbox-exec's arguments (`-p <profile> --`) and runs the rest, or does `body`. */
		const standIn = (name: string, body: string) => {
			const path = join(dir, name);
			writeFileSync(path, `#!/bin/sh\n[ "$1" = "-p" ] && [ "$3" = "--" ] || exit 64\nshift 3\n${body}\n`);
			chmodSync(path, 0o755);
			return path;
		};

		it("finds seatbelt when Node ran and spoke over its IPC channel", async () => {
			const sandboxExec = standIn("runs", 'exec "$@"');
			expect(await detectSeatbelt({ ...mac, sandboxExec, exists: undefined })).toEqual({
				kind: "seatbelt",
				path: sandboxExec,
			});
		});

		it("falls back with the first line sandbox-exec printed when it refuses", async () => {
			const sandboxExec = standIn("refuses", 'echo "sandbox-exec: syntax error in profile" >&2; exit 65');
			expect(await detectSeatbelt({ ...mac, sandboxExec, exists: undefined })).toEqual({
				kind: "none",
				reason: "sandbox-exec refused the profile: sandbox-exec: syntax error in profile",
			});
		});

		it("falls back when Node ran but its IPC channel did not", async () => {
			const sandboxExec = standIn("no-ipc", "exit 0");
			expect(await detectSeatbelt({ ...mac, sandboxExec, exists: undefined })).toEqual({
				kind: "none",
				reason: "sandbox-exec refused the profile: Node ran but its IPC channel did not",
			});
		});
	});
});
