// What the runner host sees in the OS sandbox: the user's home, the shared temp dirs (/tmp, /var/tmp, the OS temp dir)
// and the user's runtime dir are empty folders, but for what the host reads there (the project, its code, Node).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostView } from "../../src/run/isolated/parent/host-process.ts";
import { bwrapArgs, detectSandbox } from "../../src/run/isolated/parent/os-sandbox.ts";
import { sharedTempDirs } from "../../src/run/isolated/parent/shared-dirs.ts";

describe("hostView", () => {
	it("hides each folder, outer ones first, and shows again what the host reads inside them", () => {
		expect(
			hostView(["/tmp", "/home/u", "/run/user/1000", "/var/tmp", "/tmp"], ["/tmp/project", "/home/u/.cache/node"]),
		).toEqual({
			hidden: ["/tmp", "/home/u", "/var/tmp", "/run/user/1000"],
			visible: ["/tmp/project", "/home/u/.cache/node"],
		});
	});

	it("does not hide a folder that lies inside what the host reads, nor '/' or an empty path", () => {
		expect(hostView(["/work/project/tmp", "/", ""], ["/work/project"])).toEqual({ hidden: [], visible: [] });
	});

	it("the shared dirs are the real paths of /tmp, /var/tmp and the OS temp dir that exist", () => {
		const shared = sharedTempDirs();
		expect(shared).toContain(realpathSync("/tmp"));
		expect(shared).toContain(realpathSync("/var/tmp"));
		expect(shared).not.toContain("/");
	});
});

describe("the host's view in bubblewrap", async () => {
	const sandbox = await detectSandbox();
	const made: string[] = [];
	afterAll(() => {
		for (const dir of made) rmSync(dir, { recursive: true, force: true });
	});

	it.runIf(sandbox.kind === "bubblewrap")("shows the project under /tmp but nothing else of /tmp or /var/tmp", () => {
		const project = realpathSync(mkdtempSync("/tmp/forge-host-view-"));
		const other = realpathSync(mkdtempSync("/var/tmp/forge-host-other-"));
		made.push(project, other);
		writeFileSync(join(project, "seen.txt"), "project file");
		mkdirSync(join(other, "secret"));
		const { hidden, visible } = hostView(sharedTempDirs(), [project]);
		const path = sandbox.kind === "bubblewrap" ? sandbox.path : "";
		const script = `cat ${project}/seen.txt; echo; ls -A /var/tmp | wc -l; ls ${other} 2>&1 | head -1`;
		const out = spawnSync(
			path,
			[...bwrapArgs({ writable: [], readOnly: [], network: false, hidden, visible }), "--", "sh", "-c", script],
			{ encoding: "utf8" },
		);
		const [seen, varTmpEntries, otherListing] = out.stdout.trim().split("\n");
		expect(seen).toBe("project file");
		expect(varTmpEntries).toBe("0");
		expect(otherListing).toMatch(/No such file or directory/);
	});
});
