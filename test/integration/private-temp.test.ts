// The runner's folder in the OS temp dir carries pi's pid; a runner starting removes the folders of runners whose pi
// was killed (no such process any more), and keeps those of live ones and folders it did not make.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempRoot, removeTempRoot } from "../../src/run/isolated/parent/private-temp.ts";

const osTemp = realpathSync(mkdtempSync(join(tmpdir(), "forge-os-temp-")));
afterAll(() => rmSync(osTemp, { recursive: true, force: true }));

describe("makeTempRoot", () => {
	it("removes what a killed pi's runner left, keeps a live one's and folders of other names", async () => {
		const dead = spawnSync("true").pid;
		const sleeper = spawn("sleep", ["30"]);
		try {
			const left = join(osTemp, `agent-forge-${dead}-AbC123`);
			const live = join(osTemp, `agent-forge-${sleeper.pid}-XyZ789`);
			const other = join(osTemp, "agent-forge-test-runtime");
			for (const dir of [left, live, other]) {
				mkdirSync(join(dir, "tool"), { recursive: true });
				writeFileSync(join(dir, "tool", "scratch.txt"), "left by a tool");
			}
			const root = makeTempRoot(osTemp);
			expect(basename(root)).toMatch(new RegExp(`^agent-forge-${process.pid}-[A-Za-z0-9]{6}$`));
			expect(existsSync(left)).toBe(false);
			expect(existsSync(live)).toBe(true);
			expect(existsSync(other)).toBe(true);
			// A second runner of this pi keeps the first one's folder.
			const second = makeTempRoot(osTemp);
			expect(existsSync(root)).toBe(true);
			removeTempRoot(root);
			removeTempRoot(second);
		} finally {
			sleeper.kill();
		}
	});
});
