// A forge runs its candidate's code — the preflight load and the tests — before it locks the toolbox: while a slow
// test runs, the lock is free (another process could change the toolbox), another tool is forged and called, and the
// forges of one name still land in the order they were made. The dry run stages the candidate's pair too, and the change
// under the lock promotes it unless it is gone or no longer the pair to promote.
import { access, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { host, toolRequest } from "../helpers/toolbox-fixture.ts";
import { isolatedPerTest, locked, SLOW_TEST, slow, watchStageAndLock } from "../helpers/unlocked-fixture.ts";

const openBox = isolatedPerTest();

describe("a forge's tests run with the toolbox unlocked", () => {
	it("while a slow test runs the lock file is free, and another tool is forged and called meanwhile", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox, dir } = box;
		await toolbox.forge(toolRequest("quick", "return params.text.length;"), new Map());
		const slowForge = toolbox.forge(toolRequest("slow-one", slow(1500), { tests: SLOW_TEST }), new Map());
		await new Promise((r) => setTimeout(r, 500));
		expect(await locked(dir)).toBe(false);
		const started = performance.now();
		const other = await toolbox.forge(toolRequest("other", "return 'other';"), new Map());
		const call = await toolbox.use("quick", { text: "abc" }, { host });
		const meanwhile = performance.now() - started;
		expect(other.ok, other.ok ? "" : other.error.message).toBe(true);
		expect(call.ok).toBe(true);
		expect(meanwhile).toBeLessThan(900); // not behind the slow test's remaining second
		const forged = await slowForge;
		expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
		expect(toolbox.get("slow-one")?.version).toBe(1);
	});

	it("forges of one name made in a row land in that order, whatever their tests take", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox } = box;
		const first = toolbox.forge(toolRequest("ordered", slow(800), { tests: SLOW_TEST }), new Map());
		const second = toolbox.forge(toolRequest("ordered", "return params.text;", { tests: SLOW_TEST }), new Map());
		const [a, b] = await Promise.all([first, second]);
		expect([a.ok ? "ok" : a.error.message, b.ok ? "ok" : b.error.message]).toEqual(["ok", "ok"]);
		expect(a.ok && a.value.meta.version).toBe(1);
		expect(b.ok && b.value.meta.version).toBe(2);
		expect(await toolbox.readSource("ordered")).not.toContain("setTimeout");
	});

	it("a failing test fails the forge as before, and nothing is staged or changed", async () => {
		const box = await openBox();
		const { toolbox } = box;
		const result = await toolbox.forge(
			toolRequest("wrong", "return 'nope';", { tests: [{ args: { text: "x" }, expect: "x" }] }),
			new Map(),
		);
		expect(result.ok).toBe(false);
		expect(!result.ok && result.error.phase).toBe("tests");
		expect(toolbox.get("wrong")).toBeUndefined();
	});
});

describe("the dry run stages the candidate's pair, and the change under the lock promotes that pair", () => {
	const staging = (dir: string) => join(dir, ".staging");
	const stagedPairs = async (dir: string) => (await readdir(staging(dir)).catch(() => [] as string[])).length;

	it("a forge writes its pair once, before the lock, and leaves no staging folder", async () => {
		const box = await openBox();
		const order: string[] = [];
		const watched = watchStageAndLock(order);
		try {
			const result = await box.toolbox.forge(toolRequest("once", "return params.text;"), new Map());
			expect(result.ok, result.ok ? "" : result.error.message).toBe(true);
			expect(order).toEqual(["stage", "lock"]);
			expect(await box.toolbox.readSource("once")).toContain("return params.text;");
			await box.toolbox.flush(); // the commit's last steps (the promoted pair's folder removed) follow its answer
			expect(await stagedPairs(box.dir)).toBe(0);
		} finally {
			watched.restore();
		}
	});

	it("a pair removed before the lock (another process's recovery) is staged again, and the forge lands", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox, dir } = box;
		const forged = toolbox.forge(toolRequest("restaged", slow(700), { tests: SLOW_TEST }), new Map());
		// The dry run's test is running: its pair is on disk by now.
		await vi.waitFor(async () => expect(await stagedPairs(dir)).toBe(1), { timeout: 2000, interval: 20 });
		await rm(staging(dir), { recursive: true, force: true });
		const result = await forged;
		expect(result.ok, result.ok ? "" : result.error.message).toBe(true);
		expect(await toolbox.readSource("restaged")).toContain("setTimeout");
		expect(await readFile(join(dir, "forge-restaged.json"), "utf8")).toContain('"version": 1');
		await toolbox.flush();
		expect(await stagedPairs(dir)).toBe(0);
	});

	it("a pair the lock cannot use (the tool changed meanwhile) and a failed candidate's pair are discarded", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox, dir } = box;
		// The second forge's dry run numbers it v1; by its turn the first has made v1, so it lands as v2 from a new pair.
		const first = toolbox.forge(toolRequest("moving", slow(500), { tests: SLOW_TEST }), new Map());
		const second = toolbox.forge(toolRequest("moving", "return params.text;"), new Map());
		const failed = toolbox.forge(toolRequest("broken", "return 'no';", { tests: SLOW_TEST }), new Map());
		const [a, b, c] = await Promise.all([first, second, failed]);
		expect([a.ok, b.ok, c.ok]).toEqual([true, true, false]);
		expect(b.ok && b.value.meta.version).toBe(2);
		await toolbox.flush();
		expect(await stagedPairs(dir)).toBe(0);
		await expect(access(staging(dir))).rejects.toThrow();
	});
});
