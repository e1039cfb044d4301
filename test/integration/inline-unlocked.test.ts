// The inline runner (tools granted to run in pi's process) loads a candidate with jiti from the file, so its forge's
// run before the lock loads the pair it stages there; the change under the lock promotes that same pair and loads
// nothing. Its tests, a hand edit's load and a roll-back's run before the lock too: while they run the lock is free.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { watchRunner } from "../helpers/lock-watch.ts";
import { tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";
import { locked, message, SLOW_TEST, slow, watchStageAndLock } from "../helpers/unlocked-fixture.ts";

const ENV = { PI_FORGE_TIMEOUT_MS: "5000" };

describe("with the inline runner, a change runs its candidate's code before the toolbox is locked", () => {
	it("while a forge's slow test runs the lock is free, and another tool is forged meanwhile", async () => {
		const { toolbox, dir } = await tempToolbox(ENV);
		const watch = watchRunner(toolbox.runner, dir);
		const slowForge = toolbox.forge(toolRequest("slow-one", slow(1500), { tests: SLOW_TEST }), new Map());
		await new Promise((r) => setTimeout(r, 500));
		expect(await locked(dir)).toBe(false);
		const started = performance.now();
		expect(message(await toolbox.forge(toolRequest("other", "return 'other';"), new Map()))).toBe("ok");
		expect(performance.now() - started).toBeLessThan(900); // not behind the slow test's remaining second
		expect(message(await slowForge)).toBe("ok");
		expect(watch.seen.filter((s) => s.endsWith("slow-one"))).toEqual(["preflight slow-one", "run slow-one"]);
		expect(watch.whileLockFile.filter((s) => s.endsWith("slow-one"))).toEqual([]);
		expect(watch.byHolder).toEqual([]);
	});

	it("the pair loaded before the lock is the one promoted, written once, and no staging is left", async () => {
		const { toolbox, dir } = await tempToolbox();
		const order: string[] = [];
		const watch = watchRunner(toolbox.runner, dir, (kind) => order.push(kind));
		const watched = watchStageAndLock(order);
		try {
			expect(message(await toolbox.forge(toolRequest("once", "return params.text;"), new Map()))).toBe("ok");
			expect(order).toEqual(["stage", "preflight", "lock"]);
			expect(watch.whileLockFile).toEqual([]);
			expect(await toolbox.readSource("once")).toContain("return params.text;");
			await toolbox.flush(); // the commit's last steps (the promoted pair's folder removed) follow its answer
			expect(await readdir(join(dir, ".staging")).catch(() => [])).toEqual([]);
		} finally {
			watched.restore();
		}
	});

	it("a roll-back and a hand edit's re-check load and test before the lock", async () => {
		const { toolbox, dir } = await tempToolbox(ENV);
		expect(
			message(await toolbox.forge(toolRequest("back", "return params.text;", { tests: SLOW_TEST }), new Map())),
		).toBe("ok");
		expect(message(await toolbox.forge(toolRequest("back", "return `${params.text}`;"), new Map()))).toBe("ok");
		await toolbox.flush(); // the forge's last steps, which keep the lock after it answered, are over
		const watch = watchRunner(toolbox.runner, dir);
		expect(message(await toolbox.rollback("back", 1))).toBe("ok");
		await toolbox.flush(); // the roll-back's last steps (no tool code) keep the lock a moment after it answered
		const path = toolbox.toolPath("back");
		await writeFile(
			path,
			(await readFile(path, "utf8")).replace("export const metadata", "// edited\nexport const metadata"),
		);
		expect((await toolbox.reload("back"))?.version).toBe(4);
		expect(watch.seen).toEqual(["preflight back", "run back", "preflight back"]);
		expect(watch.whileLockFile).toEqual([]);
		expect(watch.byHolder).toEqual([]);
	});
});
