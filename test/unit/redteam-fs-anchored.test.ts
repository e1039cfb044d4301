// pi's side of brokered file operations (issue 11; red team F3, F4, F10): one operation that never ends holds the
// queue every tool's file operations wait in for a bounded time only; an operation whose call ended while it waited
// is not done; anchored operations read only regular files, capped, and never follow a link swapped in.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { anchoredFs } from "../../src/run/isolated/parent/anchored-fs.ts";
import { READ_CAP_BYTES } from "../../src/run/isolated/parent/anchors.ts";
import { Broker, type BrokerCall, CALL_OVER, FS_OPERATION_BOUND_MS } from "../../src/run/isolated/parent/broker.ts";
import type { BrokerOperations } from "../../src/run/isolated/parent/operations.ts";
import type { PolicyGate } from "../../src/run/isolated/parent/policy-gate.ts";

const gate: PolicyGate = {
	network: false,
	authorise: async () => undefined,
	protectedPaths: () => [],
	runsInline: async () => false,
	recordCall: () => undefined,
	flush: async () => undefined,
};
const call = (alive: () => boolean = () => true): BrokerCall => ({
	tool: "t",
	hash: "h",
	pause: () => () => undefined,
	children: new Set(),
	alive,
});

describe("the broker's file-operation queue", () => {
	it("a stuck operation holds the queue for FS_OPERATION_BOUND_MS at most; the next one then runs", async () => {
		vi.useFakeTimers();
		try {
			const done: string[] = [];
			const operations: BrokerOperations = {
				fs: (request) =>
					request.args[0] === "/p/stuck" ? new Promise(() => undefined) : Promise.resolve(done.push("next")),
				exec: async () => ({ stdout: "", stderr: "", status: 0, signal: null }),
				fetch: async () => ({ status: 200, statusText: "OK", headers: [], url: "" }),
				realpath: async (path) => path,
				isFolder: async () => false,
			};
			const broker = new Broker({ gate, projectDir: "/p", tempDir: "/tmp", env: {}, commandEnv: {}, operations });
			const stuck = broker.handle({ kind: "fs", action: "writeFile", args: ["/p/stuck", "x"] }, call());
			const next = broker.handle({ kind: "fs", action: "writeFile", args: ["/p/next", "x"] }, call());
			await vi.advanceTimersByTimeAsync(FS_OPERATION_BOUND_MS - 100);
			expect(done).toEqual([]);
			await vi.advanceTimersByTimeAsync(200);
			expect(await stuck).toMatchObject({ ok: false, error: { code: "ETIMEDOUT" } });
			expect(await next).toMatchObject({ ok: true });
			expect(done).toEqual(["next"]);
		} finally {
			vi.useRealTimers();
		}
	});

	it("an operation whose call ended while it waited its turn is not done", async () => {
		const done: string[] = [];
		let release: () => void = () => undefined;
		const operations: BrokerOperations = {
			fs: (request) =>
				request.args[0] === "/p/slow"
					? new Promise<void>((resolve) => {
							release = resolve;
						})
					: Promise.resolve(done.push(String(request.args[0]))),
			exec: async () => ({ stdout: "", stderr: "", status: 0, signal: null }),
			fetch: async () => ({ status: 200, statusText: "OK", headers: [], url: "" }),
			realpath: async (path) => path,
			isFolder: async () => false,
		};
		const broker = new Broker({ gate, projectDir: "/p", tempDir: "/tmp", env: {}, commandEnv: {}, operations });
		let alive = true;
		const slow = broker.handle({ kind: "fs", action: "writeFile", args: ["/p/slow", "x"] }, call());
		const late = broker.handle(
			{ kind: "fs", action: "writeFile", args: ["/p/late", "x"] },
			call(() => alive),
		);
		await new Promise((resolve) => setTimeout(resolve, 20));
		alive = false;
		release();
		await slow;
		expect(await late).toEqual({ ok: false, error: CALL_OVER });
		expect(done).toEqual([]);
	});
});

describe.runIf(process.platform === "linux")("anchored operations", () => {
	const dir = mkdtempSync(join(tmpdir(), "forge-anchored-"));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("read a regular file, refuse a device and a file past the cap", async () => {
		writeFileSync(join(dir, "a.txt"), "hello");
		expect(await anchoredFs("readFile", [join(dir, "a.txt"), "utf8"], [])).toBe("hello");
		await expect(anchoredFs("readFile", ["/dev/zero"], [])).rejects.toMatchObject({ code: "ERR_FORGE_UNSUPPORTED" });
		writeFileSync(join(dir, "big.bin"), Buffer.alloc(READ_CAP_BYTES + 1));
		await expect(anchoredFs("readFile", [join(dir, "big.bin")], [])).rejects.toThrow(/larger than 32 MB/);
	});

	it("never write through a link in the last part, nor through a folder that is not the one checked", async () => {
		mkdirSync(join(dir, "real"));
		mkdirSync(join(dir, "target"));
		symlinkSync(join(dir, "target", "f.txt"), join(dir, "real", "link.txt"));
		await expect(anchoredFs("writeFile", [join(dir, "real", "link.txt"), "x"], [])).rejects.toMatchObject({
			code: "ERR_FORGE_UNSUPPORTED",
		});
		// The checked folder `dir/swapped` became a link to `target`: the kernel's path of what opens is not the checked one.
		symlinkSync(join(dir, "target"), join(dir, "swapped"));
		await expect(anchoredFs("writeFile", [join(dir, "swapped", "g.txt"), "x"], [])).rejects.toMatchObject({
			code: "ERR_FORGE_PERMISSION",
		});
		await expect(anchoredFs("readdir", [join(dir, "target")], [])).resolves.toEqual([]);
	});

	it("list a tree without descending into a link (recursive readdir)", async () => {
		mkdirSync(join(dir, "tree", "sub"), { recursive: true });
		writeFileSync(join(dir, "tree", "sub", "f.txt"), "f");
		symlinkSync("/etc", join(dir, "tree", "etc"));
		const names = (await anchoredFs("readdir", [join(dir, "tree"), { recursive: true }], [])) as string[];
		expect([...names].sort()).toEqual(["etc", "sub", "sub/f.txt"]);
		const typed = (await anchoredFs(
			"readdir",
			[join(dir, "tree"), { recursive: true, withFileTypes: true }],
			[],
		)) as {
			name: string;
		}[];
		expect(typed.map((entry) => entry.name).sort()).toEqual(["etc", "f.txt", "sub"]);
	});

	it("say the real paths in errors, not /proc ones", async () => {
		await expect(anchoredFs("readFile", [join(dir, "missing.txt")], [])).rejects.toThrow(
			new RegExp(`ENOENT.*${join(dir, "missing.txt")}`),
		);
	});
});
