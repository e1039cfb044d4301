// A forge whose candidate keeps changing by the time the toolbox is locked (it keeps the tests of a live version that
// another pi process keeps replacing) never runs that candidate under the lock: after a few unlocked rounds it gives
// up with a clear error, nothing changed, and the other process's versions stand. Two processes forging one name at
// once both land, one after the other, with no tool code run under the lock.
import { describe, expect, it } from "vitest";
import { UNLOCKED_ROUNDS } from "../../src/toolbox/changes.ts";
import { openAgain, watchRunner } from "../helpers/lock-watch.ts";
import { toolRequest } from "../helpers/toolbox-fixture.ts";
import { isolatedPerTest, message } from "../helpers/unlocked-fixture.ts";

const openBox = isolatedPerTest();
const ENV = { PI_FORGE_TIMEOUT_MS: "5000" };
const identity = (text: string) => [{ args: { text }, expect: text }];

describe("a forge whose live version keeps changing gives up rather than run its code under the lock", () => {
	it("each time its kept tests ran unlocked, another process forged a new version: it fails, nothing of it lands", async () => {
		const box = await openBox(ENV);
		expect(
			message(
				await box.toolbox.forge(toolRequest("kept", "return params.text;", { tests: identity("t0") }), new Map()),
			),
		).toBe("ok");
		const other = await openAgain(box.cwd, box.runner, ENV);
		const elsewhere: Promise<unknown>[] = [];
		let round = 0;
		// Whenever this forge's candidate runs the tests it keeps, the other process forges a version with new tests.
		const watch = watchRunner(box.runner, box.dir, (kind, tool, code) => {
			if (kind !== "run" || tool !== "kept" || !code.includes("setTimeout")) return;
			const tests = identity(`t${++round}`);
			elsewhere.push(
				other.toolbox.forge(toolRequest("kept", "return params.text;", { tests }), new Map()).then(message),
			);
		});
		try {
			const result = await box.toolbox.forge(
				toolRequest("kept", "await new Promise((r) => setTimeout(r, 1200));\nreturn params.text;"),
				new Map(),
			);
			expect(result.ok).toBe(false);
			expect(!result.ok && result.error.phase).toBe("store");
			expect(!result.ok && result.error.message).toMatch(/'kept' kept changing while this forge was being checked/);
			expect(!result.ok && result.error.message).toContain("Nothing was changed");
			expect(await Promise.all(elsewhere)).toEqual(elsewhere.map(() => "ok"));
			expect(watch.byHolder).toEqual([]);
			expect(await box.toolbox.readSource("kept")).not.toContain("setTimeout");
			// Its own first run and one more per round before it gave up; each set off a version elsewhere, and only those landed.
			expect(round).toBeGreaterThanOrEqual(1 + UNLOCKED_ROUNDS);
			expect((await box.toolbox.versions("kept")).length).toBe(1 + round);
		} finally {
			await other.toolbox.close();
		}
	}, 30_000);

	it("two processes forging one name at once both land, one after the other, running no code under the lock", async () => {
		const box = await openBox(ENV);
		expect(
			message(
				await box.toolbox.forge(toolRequest("same", "return params.text;", { tests: identity("a") }), new Map()),
			),
		).toBe("ok");
		const other = await openAgain(box.cwd, box.runner, ENV);
		const watch = watchRunner(box.runner, box.dir);
		try {
			const [here, there] = await Promise.all([
				box.toolbox.forge(toolRequest("same", "return `${params.text}`;"), new Map()),
				other.toolbox.forge(
					toolRequest("same", "return String(params.text);", { tests: identity("b") }),
					new Map(),
				),
			]);
			expect([message(here), message(there)]).toEqual(["ok", "ok"]);
			const versions = [here.ok && here.value.meta.version, there.ok && there.value.meta.version].sort();
			expect(versions).toEqual([2, 3]);
			expect((await box.toolbox.versions("same")).map((v) => v.version)).toEqual([1, 2, 3]);
			expect(watch.byHolder).toEqual([]);
		} finally {
			await other.toolbox.close();
		}
	});
});
