// A hand edit changed again between its load before the lock and its take-in under the lock is not loaded under the
// lock: the take-in lets the lock go, the new content is loaded unlocked, and then taken in (a re-check's, a forge's).
// A file rewritten on and on (an editor's autosave) is left as it was after a few rounds, said to be still being
// re-checked, and taken in once the writes stop. No preflight load or test runs while the toolbox lock is held.
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it, vi } from "vitest";
import { hashSource } from "../../src/contract/tool-files.ts";
import type { IsolatedBox } from "../helpers/isolated-fixture.ts";
import { watchRunner } from "../helpers/lock-watch.ts";
import { toolRequest } from "../helpers/toolbox-fixture.ts";
import { isolatedPerTest, message } from "../helpers/unlocked-fixture.ts";

const openBox = isolatedPerTest();

/** A top level that keeps the load busy for `ms`. */
const busy = (ms: number) => `const until = Date.now() + ${ms};\nwhile (Date.now() < until) {}`;

/** Writes the tool's forged file with `code` put at its top level (a hand edit); returns what was written. */
async function editTopLevel(box: IsolatedBox, name: string, forged: string, code: string): Promise<string> {
	const source = forged.replace("export const metadata", `${code}\nexport const metadata`);
	await writeFile(box.toolbox.toolPath(name), source);
	return source;
}

/** Forges `name` and watches the runner from then on; returns the forged file's text. */
async function forged(box: IsolatedBox, name: string) {
	expect(message(await box.toolbox.forge(toolRequest(name, "return params.text;"), new Map()))).toBe("ok");
	await box.toolbox.flush(); // the forge's last steps, which keep the lock after it answered, are over
	const watch = watchRunner(box.runner, box.dir);
	return { watch, source: await readFile(box.toolbox.toolPath(name), "utf8") };
}

describe("a hand edit changed again before its take-in is loaded unlocked, then taken in", () => {
	it("a re-check loads the second edit with the lock free and takes it in", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox } = box;
		const { watch, source } = await forged(box, "edited");
		await editTopLevel(box, "edited", source, `${busy(1200)}\n// first edit`);
		const rechecked = toolbox.reload("edited");
		await vi.waitFor(() => expect(watch.seen).toContain("preflightBatch edited"), { timeout: 3000, interval: 10 });
		// The first edit is loading (unlocked): the file changes again.
		const second = await editTopLevel(box, "edited", source, `${busy(300)}\n// second edit`);
		const entry = await rechecked;
		expect(watch.whileLockFile).toEqual([]);
		expect(watch.byHolder).toEqual([]);
		expect([entry?.status, entry?.version, entry?.hash]).toEqual(["ok", 2, hashSource(second)]);
		expect((await toolbox.versions("edited")).map((v) => v.event)).toEqual(["forged", "edited"]);
	});

	it("a forge whose hand edit changes again while it is loaded takes the second edit in, unlocked", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox } = box;
		const { watch, source } = await forged(box, "edited");
		await editTopLevel(box, "edited", source, `${busy(1200)}\n// first edit`);
		const forge = toolbox.forge(toolRequest("edited", "return params.text.toUpperCase();"), new Map());
		await vi.waitFor(() => expect(watch.seen).toContain("preflightBatch edited"), { timeout: 3000, interval: 10 });
		const second = await editTopLevel(box, "edited", source, `${busy(300)}\n// second edit`);
		expect(message(await forge)).toBe("ok");
		expect(watch.whileLockFile).toEqual([]);
		expect(watch.byHolder).toEqual([]);
		const versions = await toolbox.versions("edited");
		expect(versions.map((v) => [v.version, v.event])).toEqual([
			[1, "forged"],
			[2, "edited"],
			[3, "forged"],
		]);
		expect(`sha256-${versions[1].ts}`).toBe(hashSource(second));
	});

	it("a file rewritten on and on (autosave) is left as it was, said to be re-checked, and taken in once saved", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox } = box;
		const { watch, source } = await forged(box, "autosaved");
		let saves = 0;
		let last = "";
		const save = async () => {
			last = await editTopLevel(box, "autosaved", source, `${busy(250)}\n// save ${++saves}`);
		};
		await save();
		const autosave = setInterval(() => void save(), 60);
		try {
			const entry = await toolbox.reload("autosaved");
			// Every take-in found the file changed since its load: the tool is as it was, its re-check still pending.
			expect(entry?.version).toBe(1);
			const settled = await toolbox.settle(300);
			expect(settled.done).toBe(false);
			expect(settled.rechecking).toBeGreaterThan(0);
		} finally {
			clearInterval(autosave);
		}
		await new Promise((r) => setTimeout(r, 100)); // the last save lands
		await vi.waitFor(() => expect(toolbox.get("autosaved")?.hash).toBe(hashSource(last)), {
			timeout: 8000,
			interval: 50,
		});
		expect(toolbox.get("autosaved")?.version).toBe(2);
		expect(watch.whileLockFile).toEqual([]);
		expect(watch.byHolder).toEqual([]);
		expect(watch.seen.filter((s) => s === "preflightBatch autosaved").length).toBeGreaterThan(3);
	}, 20_000);
});
