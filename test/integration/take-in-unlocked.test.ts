// A hand edit is taken in as a version of its own — by a forge of that tool, a re-check (the watcher, a call, pi's
// start) or an open that finds it — and its preflight load (its top-level code) runs before the toolbox is locked: while
// a slow top level loads, the lock is free and another tool is forged meanwhile. The edit is still recorded, and a
// broken edit still is.
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { toolRequest } from "../helpers/toolbox-fixture.ts";
import { isolatedPerTest, locked, message } from "../helpers/unlocked-fixture.ts";

const openBox = isolatedPerTest();

/** Puts `code` at the top level of the tool's file (a hand edit). */
async function editTopLevel(box: IsolatedBox, name: string, code: string): Promise<void> {
	const path = box.toolbox.toolPath(name);
	const source = await readFile(path, "utf8");
	await writeFile(path, source.replace("export const metadata", `${code}\nexport const metadata`));
}

describe("a forge takes a hand edit in with the toolbox unlocked", () => {
	it("while the edit's slow top level loads, the lock is free and another tool is forged", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox, dir } = box;
		expect(message(await toolbox.forge(toolRequest("edited", "return params.text;"), new Map()))).toBe("ok");
		await editTopLevel(box, "edited", "const until = Date.now() + 1500;\nwhile (Date.now() < until) {}");
		const forge = toolbox.forge(toolRequest("edited", "return params.text.toUpperCase();"), new Map());
		await new Promise((r) => setTimeout(r, 500));
		expect(await locked(dir)).toBe(false);
		const started = performance.now();
		const other = await toolbox.forge(toolRequest("other", "return 'other';"), new Map());
		expect(message(other)).toBe("ok");
		expect(performance.now() - started).toBeLessThan(900); // not behind the edit's remaining second
		expect(message(await forge)).toBe("ok");
		const versions = await toolbox.versions("edited");
		expect(versions.map((v) => [v.version, v.event])).toEqual([
			[1, "forged"],
			[2, "edited"],
			[3, "forged"],
		]);
	});

	it("a hand edit that does not load is still recorded as broken before the forge replaces it", async () => {
		const box = await openBox();
		const { toolbox } = box;
		expect(message(await toolbox.forge(toolRequest("broken-edit", "return params.text;"), new Map()))).toBe("ok");
		await editTopLevel(box, "broken-edit", 'throw new Error("top level fails");');
		const result = await toolbox.forge(toolRequest("broken-edit", "return params.text + '!';"), new Map());
		expect(message(result)).toBe("ok");
		expect(result.ok && result.value.previous?.editedByHand).toBe(true);
		expect(toolbox.get("broken-edit")?.version).toBe(2);
	});
});

/** How long the lock file exists while `work` runs (polled). */
async function lockedFor(dir: string, work: Promise<unknown>): Promise<number> {
	let done = false;
	let held = 0;
	void work.finally(() => (done = true));
	while (!done) {
		const at = performance.now();
		const isHeld = await locked(dir);
		await new Promise((r) => setTimeout(r, 10));
		if (isHeld) held += performance.now() - at;
	}
	return held;
}

const SLOW_TOP_LEVEL = "const until = Date.now() + 1500;\nwhile (Date.now() < until) {}";

/** While `work` loads a slow top level: the lock is free and another tool is forged without waiting for it. */
async function othersGoOn(box: IsolatedBox, work: Promise<unknown>): Promise<void> {
	await new Promise((r) => setTimeout(r, 500));
	expect(await locked(box.dir)).toBe(false);
	const started = performance.now();
	expect(message(await box.toolbox.forge(toolRequest("other", "return 'other';"), new Map()))).toBe("ok");
	expect(performance.now() - started).toBeLessThan(900); // not behind the edit's remaining second
	await work;
}

describe("a re-check or an open takes a hand edit in with the toolbox unlocked", () => {
	it("a re-check (the watcher's, a call's) loads the edit's slow top level with the lock free", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox } = box;
		expect(message(await toolbox.forge(toolRequest("edited", "return params.text;"), new Map()))).toBe("ok");
		await editTopLevel(box, "edited", SLOW_TOP_LEVEL);
		const rechecked = toolbox.reload("edited");
		await othersGoOn(box, rechecked);
		expect((await rechecked)?.status).toBe("ok");
		expect(toolbox.get("edited")?.version).toBe(2);
		expect((await toolbox.versions("edited")).map((v) => v.event)).toEqual(["forged", "edited"]);
	});

	it("an open that finds the edit loads it before it locks the toolbox", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { cwd } = box;
		expect(message(await box.toolbox.forge(toolRequest("edited", "return params.text;"), new Map()))).toBe("ok");
		await editTopLevel(box, "edited", SLOW_TOP_LEVEL);
		// A second toolbox on the same folder opens it, as another process would; the first forges meanwhile.
		const opening = isolatedToolbox({ PI_FORGE_TIMEOUT_MS: "5000" }, cwd).then(async (reopened) => {
			const entry = reopened.toolbox.get("edited");
			await reopened.toolbox.close();
			await reopened.runner.dispose();
			return entry;
		});
		await othersGoOn(box, opening);
		const entry = await opening;
		expect([entry?.status, entry?.version]).toEqual(["ok", 2]);
	});

	it("a broken edit with a slow top level is loaded once, before the lock, and recorded broken", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox, dir } = box;
		expect(message(await toolbox.forge(toolRequest("slow-broken", "return params.text;"), new Map()))).toBe("ok");
		await editTopLevel(box, "slow-broken", `${SLOW_TOP_LEVEL}\nthrow new Error("top level fails");`);
		const rechecked = toolbox.reload("slow-broken");
		expect(await lockedFor(dir, rechecked)).toBeLessThan(700); // not the second load's 1.5 s
		const entry = await rechecked;
		expect(entry?.status).toBe("broken");
		expect(entry?.error?.message).toContain("top level fails");
	});

	it("a broken edit found by a re-check is still recorded broken, with its error", async () => {
		const box = await openBox();
		const { toolbox } = box;
		expect(message(await toolbox.forge(toolRequest("broken-edit", "return params.text;"), new Map()))).toBe("ok");
		await editTopLevel(box, "broken-edit", 'throw new Error("top level fails");');
		const entry = await toolbox.reload("broken-edit");
		expect(entry?.status).toBe("broken");
		expect(entry?.error?.message).toContain("top level fails");
	});
});
