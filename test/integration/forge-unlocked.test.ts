// A forge runs its candidate's code — the preflight load and the tests — before it locks the toolbox: while a slow
// test runs, the lock is free (another process could change the toolbox), another tool is forged and called, and the
// forges of one name still land in the order they were made.
import { access } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host, toolRequest } from "../helpers/toolbox-fixture.ts";

let box: IsolatedBox | undefined;
afterEach(async () => {
	await box?.toolbox.close();
	await box?.runner.dispose();
	box = undefined;
});

const locked = (dir: string) =>
	access(join(dir, ".forge.lock")).then(
		() => true,
		() => false,
	);
const SLOW_TEST = [{ args: { text: "x" }, expect: "x" }];
const slow = (ms: number) => `await new Promise((r) => setTimeout(r, ${ms})); return params.text;`;

describe("a forge's tests run with the toolbox unlocked", () => {
	it("while a slow test runs the lock file is free, and another tool is forged and called meanwhile", async () => {
		box = await isolatedToolbox({ PI_FORGE_TIMEOUT_MS: "5000" });
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
		box = await isolatedToolbox({ PI_FORGE_TIMEOUT_MS: "5000" });
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
		box = await isolatedToolbox();
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
