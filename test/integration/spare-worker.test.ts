// A tool's first call takes a tool worker started ahead (host/spare-worker.ts) when one is ready: each tool still gets a
// worker of its own — fresh globals, its own temp dir, its own roots — and the next tool gets the next spare, never
// one that ran another tool. Run through the isolated runner, many tools one after another (each first call a spare's).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Result } from "../../src/contract/forge-error.ts";
import type { UseSuccess } from "../../src/toolbox/toolbox.ts";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host as noUI, toolRequest } from "../helpers/toolbox-fixture.ts";

const NO_PARAMS = { type: "object", properties: {} };
let box: IsolatedBox;

beforeAll(async () => {
	box = await isolatedToolbox({ PI_FORGE_TIMEOUT_MS: "20000" });
}, 30_000);
afterAll(async () => {
	await box.toolbox.close();
	await box.runner.dispose();
});

function text(result: Result<UseSuccess>): string {
	if (!result.ok) throw new Error(`expected success, got ${result.error.phase}: ${result.error.message}`);
	return result.value.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe("spare tool workers", () => {
	it("each tool's first call gets a worker of its own: no globals, temp dir or module state of another tool", async () => {
		const names = Array.from({ length: 6 }, (_, i) => `spare-${i}`);
		for (const name of names) {
			const logic = [
				"const before = String(globalThis.__left);",
				`globalThis.__left = ${JSON.stringify(name)};`,
				"return JSON.stringify({ before, tmp: process.env.TMPDIR, loaded: typeof execute });",
			].join("\n");
			const forged = await box.toolbox.forge(toolRequest(name, logic, { parametersSchema: NO_PARAMS }), new Map());
			expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
		}
		for (const name of names) {
			// A pause: the spare started after the last first call is ready, and is the one this call takes.
			await new Promise((resolve) => setTimeout(resolve, 150));
			const seen = JSON.parse(text(await box.toolbox.use(name, {}, { host: noUI }))) as Record<string, string>;
			expect(seen.before, name).toBe("undefined");
			expect(seen.tmp.endsWith(`/${name}`), `${name}: ${seen.tmp}`).toBe(true);
			// The second call is the same worker: what the first call left is there.
			const again = JSON.parse(text(await box.toolbox.use(name, {}, { host: noUI }))) as Record<string, string>;
			expect(again.before).toBe(name);
		}
	}, 60_000);

	it("a spare has the runner's heap cap: a tool that outgrows it in a spare fails as memory, the next tool runs", async () => {
		const small = await isolatedToolbox({ PI_FORGE_TIMEOUT_MS: "20000", PI_FORGE_MAX_MEMORY_MB: "64" });
		try {
			const hog =
				"const keep = []; for (let i = 0; i < 1e6; i++) keep.push(new Array(1e4).fill(i)); return keep.length;";
			for (const [name, logic] of [
				["spare-first", "return 'first';"],
				["spare-hog", hog],
				["spare-after", "return 'after';"],
			]) {
				const forged = await small.toolbox.forge(
					toolRequest(name, logic, { parametersSchema: NO_PARAMS }),
					new Map(),
				);
				expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
			}
			expect(text(await small.toolbox.use("spare-first", {}, { host: noUI }))).toBe("first");
			await new Promise((resolve) => setTimeout(resolve, 150));
			const hogged = await small.toolbox.use("spare-hog", {}, { host: noUI });
			expect(!hogged.ok && hogged.error.phase).toBe("memory");
			await new Promise((resolve) => setTimeout(resolve, 150));
			expect(text(await small.toolbox.use("spare-after", {}, { host: noUI }))).toBe("after");
		} finally {
			await small.toolbox.close();
			await small.runner.dispose();
		}
	}, 60_000);
});
