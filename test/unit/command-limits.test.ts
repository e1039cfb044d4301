// A granted command's limits: the prlimit line it runs under, and what a person is told about them in each case.
import { describe, expect, it } from "vitest";
import {
	countTasks,
	defaultCommandLimits,
	describeLimits,
	limited,
} from "../../src/run/isolated/parent/command-limits.ts";
import { boundsTmpfs, bwrapArgs, describeSandbox, limitSupport } from "../../src/run/isolated/parent/os-sandbox.ts";

const LIMITS = { processes: 64, dataMb: 300 };

describe("command limits", () => {
	it("runs the command under prlimit with the process, data and core limits, the command's words untouched", () => {
		expect(
			limited({ prlimit: "/usr/bin/prlimit", watch: false }, LIMITS, "/bin/sh", ["-c", "echo '$x'; --"]),
		).toEqual({
			command: "/usr/bin/prlimit",
			args: ["--nproc=64", `--data=${300 * 1024 * 1024}`, "--core=0", "--", "/bin/sh", "-c", "echo '$x'; --"],
		});
		// Where pi keeps the count (root, a setuid bubblewrap), the kernel's count is not asked for.
		expect(limited({ prlimit: "/usr/bin/prlimit", watch: true }, LIMITS, "git", ["status"]).args).toEqual([
			`--data=${300 * 1024 * 1024}`,
			"--core=0",
			"--",
			"git",
			"status",
		]);
		expect(limited({ watch: true }, LIMITS, "git", ["status"])).toEqual({ command: "git", args: ["status"] });
	});

	it("is watched by pi where the kernel's process limit does not bind (root) or prlimit is missing", () => {
		const bwrap = { kind: "bubblewrap" as const, path: "/usr/bin/bwrap", version: "0.8.0" };
		expect(limitSupport({ ...bwrap, prlimit: "/usr/bin/prlimit", root: false })).toEqual({
			prlimit: "/usr/bin/prlimit",
			watch: false,
		});
		expect(limitSupport({ ...bwrap, prlimit: "/usr/bin/prlimit", root: true }).watch).toBe(true);
		expect(limitSupport({ ...bwrap, prlimit: "/usr/bin/prlimit", setuid: true }).watch).toBe(true);
		expect(limitSupport(bwrap)).toEqual({ watch: true });
		expect(limitSupport({ kind: "none", reason: "off" })).toEqual({ watch: false });
	});

	it("says how the limits are kept, and plainly when there is no memory limit", () => {
		expect(describeLimits({ prlimit: "/usr/bin/prlimit", watch: false }, LIMITS)).toBe(
			"Granted commands: at most 64 processes and threads, 300 MB of data per process (kernel-enforced).",
		);
		expect(describeLimits({ prlimit: "/usr/bin/prlimit", watch: true }, LIMITS)).toContain(
			"kept by pi, where the kernel cannot keep it",
		);
		expect(describeLimits({ watch: true }, LIMITS)).toBe(
			"Granted commands: at most 64 processes and threads (counted by pi every 50 ms); no memory limit (util-linux's prlimit was not found).",
		);
		expect(describeSandbox({ kind: "bubblewrap", path: "/usr/bin/bwrap", version: "0.8.0" })).toMatch(
			/^OS sandbox: bubblewrap 0\.8\.0 \(kernel-enforced; Node's permission model inside it\)\. Granted commands: at most 1024 /,
		);
	});

	it("defaults to 1024 processes and at most 4 GB of data, never more than half the machine", () => {
		const limits = defaultCommandLimits();
		expect(limits.processes).toBe(1024);
		expect(limits.dataMb).toBeGreaterThanOrEqual(256);
		expect(limits.dataMb).toBeLessThanOrEqual(4096);
	});

	it("counts a process's threads (this one has several) and stops counting past the limit", () => {
		expect(countTasks(process.pid, 10_000)).toBeGreaterThan(1);
		expect(countTasks(process.pid, 0)).toBeGreaterThanOrEqual(1);
		expect(countTasks(2 ** 22 + 7, 10)).toBe(0);
	});
});

describe("the size of hidden folders' empty ones", () => {
	it("is bounded where bubblewrap can (0.6.0 on), before each hidden folder's tmpfs", () => {
		const status = (version: string) => ({ kind: "bubblewrap" as const, path: "/usr/bin/bwrap", version });
		expect(boundsTmpfs(status("0.8.0"))).toBe(true);
		expect(boundsTmpfs(status("0.6.1"))).toBe(true);
		expect(boundsTmpfs(status("0.4.1"))).toBe(false);
		expect(boundsTmpfs(status("unknown"))).toBe(false);
		const args = bwrapArgs({ writable: [], readOnly: [], network: false, hidden: ["/h", "/tmp"], hiddenMb: 2 });
		const size = String(2 * 1024 * 1024);
		expect(args.join(" ")).toContain(`--size ${size} --tmpfs /h --size ${size} --tmpfs /tmp`);
	});
});
