// A change's remembered runs: each preflight and test run is made once; under the lock a run not made before is
// refused (the change lets the lock go and runs it first). Per-name turns: the changes of a name land in order.
import { describe, expect, it } from "vitest";
import { ok } from "../../src/contract/forge-error.ts";
import type { ToolMeta } from "../../src/contract/tool-files.ts";
import type { ToolboxStore } from "../../src/store/toolbox-store.ts";
import { CandidateRuns } from "../../src/toolbox/candidate-runs.ts";
import { asLockHolder, handedOff, holdsLock, NotRunBeforeLock } from "../../src/toolbox/lock-guard.ts";
import { NameTurns } from "../../src/toolbox/turns.ts";

const shape = { name: "t", description: "d", parameters: { type: "object" } };
const meta = (tests: ToolMeta["tests"]): ToolMeta => ({
	name: "t",
	description: "d",
	parameters: { type: "object" },
	version: 1,
	hash: "h",
	createdAt: "",
	updatedAt: "",
	tests,
});

function runs() {
	const made: string[] = [];
	const candidate = new CandidateRuns(
		async (_path, code) => {
			made.push(`preflight ${code}`);
			return ok(shape);
		},
		async (code, m) => {
			made.push(`tests ${code.code} ${JSON.stringify(m.tests)}`);
			return [];
		},
		{} as ToolboxStore,
		() => new Date(0),
	);
	return { candidate, made };
}

describe("CandidateRuns", () => {
	it("makes each run once, and under the lock reuses it", async () => {
		const { candidate, made } = runs();
		const tests = [{ args: {}, expect: "1" }];
		await candidate.preflight("/p", "code", "t", "forge-t.ts");
		await candidate.runner({ code: "code", map: "" }, meta(tests));
		await asLockHolder(async () => {
			await candidate.preflight("/staged", "code", "t", "forge-t.ts");
			await candidate.runner({ code: "code", map: "" }, meta(tests));
		});
		expect(made).toEqual(["preflight code", `tests code ${JSON.stringify(tests)}`]);
	});

	it("under the lock refuses a run not made before, and makes it once unlocked again", async () => {
		const { candidate, made } = runs();
		await asLockHolder(async () => {
			await expect(candidate.preflight("/p", "other", "t", "forge-t.ts")).rejects.toBeInstanceOf(NotRunBeforeLock);
			await expect(candidate.runner({ code: "code", map: "" }, meta([]))).rejects.toThrow(
				/runs again before the toolbox is locked/,
			);
		});
		expect(made).toEqual([]);
		await candidate.preflight("/p", "other", "t", "forge-t.ts");
		const again = await asLockHolder(() => candidate.preflight("/p", "other", "t", "forge-t.ts"));
		expect(again.ok).toBe(true);
		expect(made).toEqual(["preflight other"]);
	});

	it("a run asked for by a holder of the lock is refused; handed off or outside, it runs", async () => {
		const { candidate, made } = runs();
		let holderSees = false;
		let outside = false;
		await asLockHolder(async () => {
			await Promise.resolve();
			holderSees = holdsLock();
			// Work the holder starts and does not wait for runs as unlocked code.
			await handedOff(() => candidate.preflight("/p", "handed", "t", "forge-t.ts"));
		});
		outside = holdsLock();
		await candidate.preflight("/p", "outside", "t", "forge-t.ts");
		expect([holderSees, outside]).toEqual([true, false]);
		expect(made).toEqual(["preflight handed", "preflight outside"]);
	});
});

describe("NameTurns", () => {
	it("a change of a name joins after the earlier ones of that name are over; other names do not wait", async () => {
		const turns = new NameTurns();
		const order: string[] = [];
		let release!: () => void;
		const held = new Promise<void>((resolve) => (release = resolve));
		const first = turns.inTurn("a", Promise.resolve(), async () => {
			order.push("a1 joins");
			await held;
			order.push("a1 over");
		});
		const second = turns.inTurn("a", Promise.resolve(), async () => void order.push("a2 joins"));
		const other = turns.inTurn("b", Promise.resolve(), async () => void order.push("b joins"));
		await other;
		expect(order).toEqual(["a1 joins", "b joins"]);
		release();
		await Promise.all([first, second]);
		expect(order).toEqual(["a1 joins", "b joins", "a1 over", "a2 joins"]);
	});

	it("a change that fails does not stop the next of its name", async () => {
		const turns = new NameTurns();
		const failed = turns.inTurn("a", Promise.reject(new Error("dry run")), async () => {
			throw new Error("locked half");
		});
		await expect(failed).rejects.toThrow("locked half");
		await expect(turns.inTurn("a", Promise.resolve(), async () => "next")).resolves.toBe("next");
	});
});
