// Node's permission flags, chosen from the version of the Node that runs the runner host.
import { describe, expect, it } from "vitest";
import {
	canDenyNetwork,
	parseNodeVersion,
	permissionFlag,
	permissionFlags,
} from "../../src/run/isolated/parent/node-flags.ts";

describe("the permission flag for each Node", () => {
	it.each([
		["v20.19.0", "--experimental-permission"],
		["v20.20.2", "--experimental-permission"],
		["v22.12.0", "--experimental-permission"],
		["v22.13.0", "--permission"],
		["v22.19.0", "--permission"],
		["v23.4.0", "--experimental-permission"],
		["v23.5.0", "--permission"],
		["v24.21.0", "--permission"],
		["v26.10.0", "--permission"],
	])("%s → %s", (version, flag) => {
		expect(permissionFlag(parseNodeVersion(version))).toBe(flag);
	});

	it("the Node running these tests accepts the flag chosen for it", async () => {
		const { spawnSync } = await import("node:child_process");
		const run = spawnSync(process.execPath, [
			...permissionFlags(parseNodeVersion(process.version), { readRoots: ["/"], network: true }),
			"-e",
			"process.exit(7)",
		]);
		expect(run.stderr.toString()).toBe("");
		expect(run.status).toBe(7);
	});
});

describe("the rest of the flags", () => {
	it("one read grant per folder, no duplicates, workers allowed, no write grant", () => {
		expect(permissionFlags(parseNodeVersion("v24.0.0"), { readRoots: ["/a", "/b", "/a"], network: true })).toEqual([
			"--permission",
			"--allow-fs-read=/a",
			"--allow-fs-read=/b",
			"--allow-worker",
		]);
	});

	it("network: denied by Node 25 and later unless allowed; Node 24 and earlier cannot deny it", () => {
		expect(canDenyNetwork(parseNodeVersion("v24.21.0"))).toBe(false);
		expect(canDenyNetwork(parseNodeVersion("v25.0.0"))).toBe(true);
		expect(permissionFlags(parseNodeVersion("v26.10.0"), { readRoots: [], network: true })).toContain("--allow-net");
		expect(permissionFlags(parseNodeVersion("v26.10.0"), { readRoots: [], network: false })).not.toContain(
			"--allow-net",
		);
		expect(permissionFlags(parseNodeVersion("v24.21.0"), { readRoots: [], network: true })).not.toContain(
			"--allow-net",
		);
	});
});
