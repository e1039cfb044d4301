// A change of a tool's code answers once it is committed (its marker durable) and renamed into place; the commit's
// last steps (the toolbox folder's fsync, the marker's removal) and its records (history, compile cache) run after,
// still under the lock. What reads them waits for them, and a crash in between rolls the change forward.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import { InlineRunner } from "../../src/run/inline-runner.ts";
import { ToolHistory } from "../../src/store/history.ts";
import { faults, type TransactionStep } from "../../src/store/transaction.ts";
import { createToolbox } from "../../src/toolbox/open-toolbox.ts";
import { makeTempDir } from "../helpers/pi-harness.ts";
import { host, toolRequest } from "../helpers/toolbox-fixture.ts";

afterEach(() => {
	faults.at = undefined;
});

async function openBox(cwd: string) {
	const { config } = readConfig(cwd, {});
	const toolbox = createToolbox(config, new InlineRunner());
	await toolbox.open();
	return { toolbox, dir: config.toolboxDir };
}

describe("a change answers before its commit's last steps", () => {
	it("answers with the files live, then fsyncs, removes the marker and records the version, lock held", async () => {
		const { toolbox, dir } = await openBox(await makeTempDir("forge-settle"));
		let answered = false;
		const seen: { step: TransactionStep; answered: boolean }[] = [];
		faults.at = (step) => seen.push({ step, answered });
		const result = await toolbox.forge(toolRequest("early", "return 'one';"), new Map());
		answered = true;
		expect(result.ok).toBe(true);
		expect(await readFile(join(dir, "forge-early.ts"), "utf8")).toContain("return 'one';");
		await toolbox.flush();
		expect(seen.find((s) => s.step === "committed")?.answered).toBe(false);
		expect(seen.find((s) => s.step === "applied")?.answered).toBe(true);
		expect(await readdir(dir)).not.toContain(".staging");
		await toolbox.close();
	});

	it("history read right after the answer has the new version, and a roll-back to it works at once", async () => {
		const { toolbox } = await openBox(await makeTempDir("forge-settle-history"));
		for (const logic of ["return 'one';", "return 'two';"]) {
			const forged = await toolbox.forge(toolRequest("calc", logic), new Map());
			expect(forged.ok).toBe(true);
		}
		expect((await toolbox.versions("calc")).map((e) => e.version)).toEqual([1, 2]);
		const rolled = await toolbox.rollback("calc", 2);
		expect(rolled.ok && rolled.value.meta.version).toBe(3);
		const used = await toolbox.use("calc", { text: "" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "two" });
		await toolbox.close();
	});

	it("the next change waits for the last one's last steps (the lock is held until they settle)", async () => {
		const { toolbox } = await openBox(await makeTempDir("forge-settle-order"));
		const order: string[] = [];
		faults.at = (step, name) => {
			if (step === "committed" || step === "applied") order.push(`${name} ${step}`);
		};
		const both = await Promise.all([
			toolbox.forge(toolRequest("first", "return 1;"), new Map()),
			toolbox.forge(toolRequest("second", "return 2;"), new Map()),
		]);
		expect(both.every((r) => r.ok)).toBe(true);
		await toolbox.flush();
		// Either may take the lock first (nothing promises which); what matters is that the two never interleave.
		expect(order.map((step) => step.split(" ")[1])).toEqual(["committed", "applied", "committed", "applied"]);
		const [a, b, c, d] = order.map((step) => step.split(" ")[0]);
		expect([a === b, c === d, a !== c]).toEqual([true, true, true]);
		await toolbox.close();
	});

	it("a crash after the answer, before the commit settled, is rolled forward at the next start", async () => {
		const cwd = await makeTempDir("forge-settle-crash");
		const { toolbox, dir } = await openBox(cwd);
		expect((await toolbox.forge(toolRequest("kept", "return 'v1';"), new Map())).ok).toBe(true);
		await toolbox.flush(); // v1's own last steps are not the ones to interrupt
		faults.at = (step, name) => {
			if (step === "applied" && name === "kept") throw new Error("injected crash before the folder's fsync");
		};
		const second = await toolbox.forge(toolRequest("kept", "return 'v2';"), new Map());
		expect(second.ok).toBe(true);
		await toolbox.flush();
		faults.at = undefined;
		// The marker is still there: the commit did not settle.
		const staged = await readdir(join(dir, ".staging"));
		expect(staged).toHaveLength(1);
		const reopened = await openBox(cwd);
		const used = await reopened.toolbox.use("kept", { text: "" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "v2" });
		expect(reopened.toolbox.get("kept")?.version).toBe(2);
		expect(await readdir(dir)).not.toContain(".staging");
		await reopened.toolbox.close();
		await toolbox.close();
	});
});

describe("history records still being written", () => {
	it("are waited for by what reads the tool's history", async () => {
		const dir = await makeTempDir("forge-history-pending");
		const history = new ToolHistory(dir, 10);
		const at = new Date();
		const writes = [1, 2, 3].map((version) =>
			history.record("calc", "forged", version, `// v${version}`, `{"version":${version}}`, at),
		);
		expect((await history.entries("calc")).map((e) => e.version)).toEqual([1, 2, 3]);
		expect((await history.read("calc", 3))?.source).toBe("// v3");
		await Promise.all(writes);
	});
});

describe("a change that is refused", () => {
	it("answers once the lock is let go: nothing of it is left on disk when its answer comes", async () => {
		const { toolbox, dir } = await openBox(await makeTempDir("forge-settle-refused"));
		await toolbox.flush();
		const before = await readdir(dir);
		for (let round = 0; round < 5; round++) {
			// Looked at the moment the answer comes (synchronously): the lock is already let go.
			let lockAtAnswer: boolean | undefined;
			const refused = await toolbox
				.forge(toolRequest("leaky", 'return "sk-proj-4f8Kq2LxZ9mN3pR7tV1wY6bC5dE0gH8j";'), new Map())
				.then((result) => {
					lockAtAnswer = existsSync(join(dir, ".forge.lock"));
					return result;
				});
			expect(!refused.ok && refused.error.phase).toBe("secrets");
			expect(lockAtAnswer).toBe(false);
			expect(await readdir(dir)).toEqual(before);
		}
		await toolbox.close();
	});
});
