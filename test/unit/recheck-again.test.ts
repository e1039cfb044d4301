// A take-in that finds a tool's files changed since they were prepared (NotRunBeforeLock) sends the tool back to be
// prepared again, outside the hold; past RECHECK_ROUNDS the re-check settles with the tool as it was and the tool is
// re-checked after RETRY_AFTER_MS. Any other failure of a take-in still fails its re-check.
import { afterEach, describe, expect, it, vi } from "vitest";
import { asLockHolder, holdsLock, NotRunBeforeLock } from "../../src/toolbox/lock-guard.ts";
import { RECHECK_ROUNDS, RETRY_AFTER_MAX_MS, RETRY_AFTER_MS, RecheckQueue } from "../../src/toolbox/recheck.ts";

let queues: RecheckQueue<string>[] = [];
afterEach(async () => {
	await Promise.all(queues.map((queue) => queue.cancel()));
	queues = [];
});

/** A queue whose take-in fails with `failure(n)` at its n-th call (1-based), if that is set; `log` says what ran. */
function queueFailing(failure: (call: number) => Error | undefined) {
	const log: string[] = [];
	let calls = 0;
	const queue = new RecheckQueue<string>(
		(work) => asLockHolder(work),
		async (name) => {
			const error = failure(++calls);
			log.push(`take in ${name}${error ? " refused" : ""}`);
			if (error) throw error;
			return `${name} taken in`;
		},
		4,
		async (name) => void log.push(`prepare ${name}${holdsLock() ? " (held!)" : ""}`),
		(name) => `${name} as it was`,
	);
	queues.push(queue);
	return { queue, log };
}

describe("a take-in refused because the files changed again", () => {
	it("goes back to be prepared, outside the hold, and is taken in then", async () => {
		const { queue, log } = queueFailing((call) => (call <= 2 ? new NotRunBeforeLock("t") : undefined));
		expect(await queue.request("t")).toBe("t taken in");
		expect(log).toEqual([
			"prepare t",
			"take in t refused",
			"prepare t",
			"take in t refused",
			"prepare t",
			"take in t",
		]);
		expect(queue.size).toBe(0);
	});

	it("past RECHECK_ROUNDS settles as it was, is still counted as re-checking, and is re-checked later", async () => {
		const { queue, log } = queueFailing((call) =>
			call <= 1 + RECHECK_ROUNDS ? new NotRunBeforeLock("t") : undefined,
		);
		expect(await queue.request("t")).toBe("t as it was");
		expect(log.filter((line) => line === "prepare t").length).toBe(1 + RECHECK_ROUNDS);
		expect(queue.size).toBe(1);
		await new Promise((r) => setTimeout(r, RETRY_AFTER_MS + 200));
		await queue.idle();
		expect(log.at(-1)).toBe("take in t");
		expect(log.some((line) => line.includes("held!"))).toBe(false);
	});

	it("left as it was again and again, it is re-checked ever less often (a runner that cannot start)", async () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		try {
			const { queue, log } = queueFailing(() => new NotRunBeforeLock("t"));
			const prepared = () => log.filter((line) => line === "prepare t").length / (1 + RECHECK_ROUNDS);
			expect(await queue.request("t")).toBe("t as it was");
			const advance = async (ms: number) => {
				await vi.advanceTimersByTimeAsync(ms);
				await vi.waitFor(() => expect(Number.isInteger(prepared())).toBe(true));
				return prepared();
			};
			// Left once: again after RETRY_AFTER_MS; twice: after twice that; and so on, up to RETRY_AFTER_MAX_MS.
			expect(await advance(RETRY_AFTER_MS)).toBe(2);
			expect(await advance(RETRY_AFTER_MS)).toBe(2);
			expect(await advance(RETRY_AFTER_MS)).toBe(3);
			expect(await advance(4 * RETRY_AFTER_MS)).toBe(4);
			for (let times = 5; times < 12; times++) await advance(RETRY_AFTER_MAX_MS);
			const before = prepared();
			expect(await advance(RETRY_AFTER_MAX_MS / 2)).toBe(before);
			expect(await advance(RETRY_AFTER_MAX_MS / 2)).toBe(before + 1);
		} finally {
			vi.useRealTimers();
		}
	});

	it("any other failure of the take-in fails the re-check at once", async () => {
		const { queue, log } = queueFailing(() => new Error("disk gone"));
		await expect(queue.request("t")).rejects.toThrow("disk gone");
		expect(log).toEqual(["prepare t", "take in t refused"]);
		expect(queue.size).toBe(0);
	});
});
