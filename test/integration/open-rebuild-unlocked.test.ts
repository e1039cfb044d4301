// A registry missing or corrupt (deleted while pi was closed, say) is rebuilt from the tools' files without loading a
// hand edit under the toolbox lock: pi's start leaves the hand edits out under the lock and loads them right after,
// unlocked, before its open returns; an open that loads them first takes in the one changed again meanwhile the same
// way. Meanwhile the lock is free: another process forges.
import { readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { hashSource } from "../../src/contract/tool-files.ts";
import type { IsolatedBox } from "../helpers/isolated-fixture.ts";
import { openAgain, watchRunner } from "../helpers/lock-watch.ts";
import { toolRequest } from "../helpers/toolbox-fixture.ts";
import { isolatedPerTest, locked, message } from "../helpers/unlocked-fixture.ts";

const openBox = isolatedPerTest();
const ENV = { PI_FORGE_TIMEOUT_MS: "5000" };

/** A top level that keeps the load busy for `ms`. */
const busy = (ms: number) => `const until = Date.now() + ${ms};\nwhile (Date.now() < until) {}`;

/** Forges `names`; returns how to hand-edit one (its forged file with `code` at its top level; what was written). */
async function forgedTools(box: IsolatedBox, names: string[]) {
	for (const name of names)
		expect(message(await box.toolbox.forge(toolRequest(name, "return params.text;"), new Map()))).toBe("ok");
	await box.toolbox.flush(); // its registry saved: what the test does to the registry then stays
	const forged = new Map<string, string>();
	for (const name of names) forged.set(name, await readFile(box.toolbox.toolPath(name), "utf8"));
	return async (name: string, code: string) => {
		const source = forged.get(name)!.replace("export const metadata", `${code}\nexport const metadata`);
		await writeFile(box.toolbox.toolPath(name), source);
		return source;
	};
}

describe("a registry rebuilt with hand edits in the toolbox loads none of them under the lock", () => {
	it("pi's start after the registry was deleted: the edits are loaded unlocked and taken in before it returns", async () => {
		const box = await openBox(ENV);
		const edit = await forgedTools(box, ["alpha", "beta", "gamma"]);
		const alpha = await edit("alpha", `${busy(1500)}\n// alpha edited`);
		const beta = await edit("beta", "// beta edited");
		await unlink(join(box.dir, "forge-registry.json"));
		const watch = watchRunner(box.runner, box.dir);
		// pi starts again (another toolbox on the folder); the first one forges meanwhile.
		const opening = openAgain(box.cwd, box.runner, ENV, { verify: "background" });
		await vi.waitFor(() => expect(watch.seen).toContain("preflightBatch alpha"), { timeout: 5000, interval: 10 });
		expect(await locked(box.dir)).toBe(false);
		const started = performance.now();
		expect(message(await box.toolbox.forge(toolRequest("other", "return 'other';"), new Map()))).toBe("ok");
		expect(performance.now() - started).toBeLessThan(1000); // not behind alpha's load
		const { toolbox, report } = await opening;
		try {
			expect(report.rebuilt).toBe("missing");
			const state = (name: string) => [
				toolbox.get(name)?.status,
				toolbox.get(name)?.version,
				toolbox.get(name)?.hash,
			];
			expect(state("alpha")).toEqual(["ok", 2, hashSource(alpha)]);
			expect(state("beta")).toEqual(["ok", 2, hashSource(beta)]);
			expect(state("gamma")?.slice(0, 2)).toEqual(["ok", 1]);
			expect(watch.whileLockFile.filter((s) => !s.endsWith(" other"))).toEqual([]);
			expect(watch.byHolder).toEqual([]);
		} finally {
			await toolbox.close();
		}
	});

	it("an open (the command line's) after the registry was corrupted takes in an edit changed again during its load", async () => {
		const box = await openBox(ENV);
		const edit = await forgedTools(box, ["alpha", "beta"]);
		await edit("alpha", `${busy(1200)}\n// first edit`);
		await writeFile(join(box.dir, "forge-registry.json"), "{ not json");
		const watch = watchRunner(box.runner, box.dir);
		const opening = openAgain(box.cwd, box.runner, ENV);
		await vi.waitFor(() => expect(watch.seen).toContain("preflightBatch alpha"), { timeout: 5000, interval: 10 });
		const second = await edit("alpha", `${busy(200)}\n// second edit`);
		const { toolbox, report } = await opening;
		try {
			expect(report.rebuilt).toBe("corrupt");
			expect([toolbox.get("alpha")?.version, toolbox.get("alpha")?.hash]).toEqual([2, hashSource(second)]);
			expect(toolbox.get("beta")?.version).toBe(1);
			expect(watch.whileLockFile).toEqual([]);
			expect(watch.byHolder).toEqual([]);
			const versions = await toolbox.versions("alpha");
			expect(versions.map((v) => [v.version, `sha256-${v.ts}` === hashSource(second)])).toEqual([
				[1, false],
				[2, true],
			]);
		} finally {
			await toolbox.close();
		}
	});

	it("a broken hand edit found by the rebuild is loaded once, unlocked, and recorded broken", async () => {
		const box = await openBox(ENV);
		const edit = await forgedTools(box, ["fine", "broken"]);
		await edit("broken", 'throw new Error("top level fails");');
		await unlink(join(box.dir, "forge-registry.json"));
		const watch = watchRunner(box.runner, box.dir);
		const { toolbox, report } = await openAgain(box.cwd, box.runner, ENV, { verify: "background" });
		try {
			expect(report.broken).toEqual(["broken"]);
			expect(toolbox.get("broken")?.error?.message).toContain("top level fails");
			expect(toolbox.get("fine")?.status).toBe("ok");
			expect(watch.seen).toEqual(["preflightBatch broken"]);
			expect(watch.whileLockFile).toEqual([]);
		} finally {
			await toolbox.close();
		}
	});
});
