// The bounded checker runs what a model wrote (a regular expression, a glob, a schema) in a worker with a deadline.
// One job runs at a time, so a tool that queues many slow checks must not hold the others up past its own call
// (third red team, R6): a job whose call is over is not run, and a job that timed out answers "timeout" at once.
import { afterEach, describe, expect, it } from "vitest";
import { BoundedChecker } from "../../src/run/bounded-checker.ts";

const SLOW = { pattern: "^(a|aa)+$", text: `${"a".repeat(40)}!` };
let checker: BoundedChecker | undefined;
afterEach(async () => {
	await checker?.dispose();
	checker = undefined;
});

describe("BoundedChecker", () => {
	it("answers a plain check, and a catastrophic one with 'timeout' within its bound", async () => {
		checker = new BoundedChecker();
		expect(await checker.matches("^b+$", "bbb", 1000)).toBe(true);
		const started = performance.now();
		expect(await checker.matches(SLOW.pattern, SLOW.text, 300)).toBe("timeout");
		expect(performance.now() - started).toBeLessThan(3000);
		expect(await checker.matches("^b+$", "bbc", 1000)).toBe(false); // a fresh worker after the terminated one
	});

	it("a check that timed out answers 'timeout' at once when asked again", async () => {
		checker = new BoundedChecker();
		expect(await checker.matches(SLOW.pattern, SLOW.text, 300)).toBe("timeout");
		const started = performance.now();
		const again = await Promise.all(Array.from({ length: 20 }, () => checker!.matches(SLOW.pattern, SLOW.text, 300)));
		expect(again.every((verdict) => verdict === "timeout")).toBe(true);
		expect(performance.now() - started).toBeLessThan(250);
	});

	it("checks queued by a call that is over are not run: another tool's check waits for one job at most", async () => {
		checker = new BoundedChecker();
		const call = new AbortController();
		// Forty different slow checks (none is remembered as timed out), queued by one call.
		const flood = Array.from({ length: 40 }, (_, i) =>
			checker!.matches(SLOW.pattern, `${"a".repeat(30 + i)}!`, 300, call.signal),
		);
		await new Promise((resolve) => setTimeout(resolve, 100));
		call.abort();
		const started = performance.now();
		expect(await checker.matches("^[a-z]+$", "hello", 1000)).toBe(true);
		expect(performance.now() - started).toBeLessThan(1500); // not 40 × 300 ms
		const verdicts = await Promise.all(flood);
		expect(verdicts.filter((verdict) => verdict === "timeout").length).toBeLessThanOrEqual(2);
		expect(verdicts).toContainEqual({ error: "the call ended before its check ran" });
	});

	it("a glob is matched in the worker; an exploding brace expansion costs the worker's time, not pi's", async () => {
		checker = new BoundedChecker();
		expect(await checker.globMatches("*.ts", ["a.ts", "b.js"], 1000)).toEqual([true, false]);
		let ticks = 0;
		const ticking = setInterval(() => ticks++, 20);
		const started = performance.now();
		// 8^12 patterns: brace-expansion stops at 100,000 of them, which takes the worker a second or two.
		const bomb = await checker.globMatches("{a,b,c,d,e,f,g,h}".repeat(12), ["x"], 1000);
		clearInterval(ticking);
		expect([JSON.stringify([false]), JSON.stringify("timeout")]).toContain(JSON.stringify(bomb));
		expect(ticks).toBeGreaterThan((performance.now() - started) / 20 / 4);
		expect(await checker.globMatches("**/*.json", ["src/a.json", "a.ts"], 1000)).toEqual([true, false]);
	});

	it("an error the worker reports with no job running (out of memory as it ends) is nobody's: pi's process goes on", async () => {
		checker = new BoundedChecker();
		expect(await checker.matches("^a$", "a", 1000)).toBe(true);
		const worker = (checker as unknown as { worker: { emit(event: string, error: Error): boolean } }).worker;
		const oom = Object.assign(new Error("Worker terminated due to reaching memory limit"), {
			code: "ERR_WORKER_OUT_OF_MEMORY",
		});
		expect(() => worker.emit("error", oom)).not.toThrow();
	});
});
