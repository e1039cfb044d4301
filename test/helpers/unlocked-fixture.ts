// What the tests of changes made with the toolbox unlocked share: an isolated toolbox per test (closed after it, and
// checked to have run no tool code for a holder of the toolbox lock), whether the toolbox lock is held, a slow tool
// and its test case, and a result read as its message.
import { access } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, vi } from "vitest";
import { ToolboxStore } from "../../src/store/toolbox-store.ts";
import { type IsolatedBox, isolatedToolbox } from "./isolated-fixture.ts";
import { type LockWatch, watchRunner } from "./lock-watch.ts";

/**
 * Opens an isolated toolbox for the running test; it is closed, and its runner ended, after the test, which fails if
 * a holder of the toolbox lock had tool code run on that runner (any toolbox on it, any path).
 */
export function isolatedPerTest(): (env?: Record<string, string>) => Promise<IsolatedBox> {
	let box: IsolatedBox | undefined;
	let watch: LockWatch | undefined;
	afterEach(async () => {
		await box?.toolbox.close();
		await box?.runner.dispose();
		const ranLocked = watch?.byHolder;
		box = undefined;
		watch = undefined;
		expect(ranLocked ?? []).toEqual([]);
	});
	return async (env = {}) => {
		box = await isolatedToolbox(env);
		watch = watchRunner(box.runner, box.dir);
		return box;
	};
}

/** Whether the toolbox lock of `dir` is held now. */
export const locked = (dir: string) =>
	access(join(dir, ".forge.lock")).then(
		() => true,
		() => false,
	);

export const SLOW_TEST = [{ args: { text: "x" }, expect: "x" }];
/** A tool's logic that takes `ms` and returns its text. */
export const slow = (ms: number) => `await new Promise((r) => setTimeout(r, ${ms})); return params.text;`;
export const message = (result: { ok: boolean; error?: { message: string } }) =>
	result.ok ? "ok" : result.error?.message;

/** Pushes "stage" and "lock" to `order` as the store stages a pair and takes the lock; `restore` ends it. */
export function watchStageAndLock(order: string[]): { restore(): void } {
	const { stage: realStage, locked: realLocked } = ToolboxStore.prototype;
	const stage = vi.spyOn(ToolboxStore.prototype, "stage").mockImplementation(function (this: ToolboxStore, ...args) {
		order.push("stage");
		return realStage.apply(this, args);
	});
	const lock = vi.spyOn(ToolboxStore.prototype, "locked").mockImplementation(function (this: ToolboxStore, fn) {
		order.push("lock");
		return realLocked.call(this, fn);
	});
	return {
		restore() {
			stage.mockRestore();
			lock.mockRestore();
		},
	};
}
