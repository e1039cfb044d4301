// The re-check queue's preparation: each tool is prepared (a hand edit's preflight load) outside the lock's hold, its
// check starts only once it is prepared, the asked-for first is prepared first, and closing drops what is preparing;
// a load that failed before the lock is answered to the take-in under it.
import { describe, expect, it } from "vitest";
import { ForgeError, fail, ok } from "../../src/contract/forge-error.ts";
import { FailedLoads } from "../../src/toolbox/precheck-edit.ts";
import { RecheckQueue } from "../../src/toolbox/recheck.ts";

/** A queue whose preparations wait until released by name; `log` says what happened in order. */
function preparedQueue(concurrency: number) {
	const log: string[] = [];
	const gates = new Map<string, () => void>();
	let holding = false;
	const queue = new RecheckQueue<string>(
		async (work) => {
			holding = true;
			log.push("hold");
			try {
				await work();
			} finally {
				holding = false;
				log.push("release");
			}
		},
		async (name) => {
			log.push(`check ${name}`);
			return `${name} checked`;
		},
		concurrency,
		(name) => {
			log.push(`prepare ${name}${holding ? " (held!)" : ""}`);
			return new Promise<void>((resolve) => gates.set(name, resolve));
		},
	);
	const tick = () => new Promise((resolve) => setImmediate(resolve));
	const prepared = async (name: string) => {
		gates.get(name)!();
		await tick();
	};
	return { queue, log, prepared, tick };
}

describe("RecheckQueue with a preparation", () => {
	it("prepares outside the hold, up to its concurrency, and checks each tool once it is prepared", async () => {
		const { queue, log, prepared, tick } = preparedQueue(2);
		const results = ["a", "b", "c"].map((name) => queue.request(name));
		await tick();
		expect(log).toEqual(["prepare a", "prepare b"]);
		await prepared("b");
		expect(log).toEqual(["prepare a", "prepare b", "prepare c", "hold", "check b", "release"]);
		await prepared("a");
		await prepared("c");
		expect(await Promise.all(results)).toEqual(["a checked", "b checked", "c checked"]);
		expect(log.filter((line) => line.includes("held!"))).toEqual([]);
		await queue.idle();
		expect(queue.size).toBe(0);
	});

	it("the asked-for tool is prepared first; a request while it prepares joins it", async () => {
		const { queue, log, prepared, tick } = preparedQueue(1);
		const a = queue.request("a");
		const b = queue.request("b");
		const urgent = queue.request("c", { first: true });
		await tick();
		expect(log).toEqual(["prepare a"]);
		expect(queue.pending("a")).toBe(queue.request("a"));
		await prepared("a");
		expect(log.slice(1, 2)).toEqual(["prepare c"]);
		await prepared("c");
		await prepared("b");
		expect([await a, await urgent, await b]).toEqual(["a checked", "c checked", "b checked"]);
		expect(log.filter((line) => line.startsWith("prepare"))).toEqual(["prepare a", "prepare c", "prepare b"]);
	});

	it("closing drops what is preparing or waiting; nothing of it is checked", async () => {
		const { queue, log, prepared, tick } = preparedQueue(1);
		const a = queue.request("a");
		const b = queue.request("b");
		await tick();
		const closed = queue.cancel();
		await expect(a).rejects.toThrow("closed");
		await expect(b).rejects.toThrow("closed");
		await prepared("a");
		await closed;
		expect(log).toEqual(["prepare a"]);
		expect(queue.size).toBe(0);
	});
});

describe("FailedLoads", () => {
	it("answers a load that failed before the lock once, with that failure; passes and runner failures load again", async () => {
		const failed = new FailedLoads();
		const loads: string[] = [];
		const preflight = failed.preflight(async (_path, code) => {
			loads.push(code);
			return ok({ name: "t", description: "d", parameters: {} });
		});
		failed.remember("t", "broken", fail(new ForgeError("load", "top level fails")));
		failed.remember("t", "no-runner", fail(new ForgeError("runner", "could not start")));
		failed.remember("t", "fine", ok({ name: "t", description: "d", parameters: {} }));
		const first = await preflight("/p", "broken", "t", "forge-t.ts");
		expect(!first.ok && first.error.message).toBe("top level fails");
		expect((await preflight("/p", "broken", "t", "forge-t.ts")).ok).toBe(true);
		expect((await preflight("/p", "no-runner", "t", "forge-t.ts")).ok).toBe(true);
		expect((await preflight("/p", "fine", "t", "forge-t.ts")).ok).toBe(true);
		expect(loads).toEqual(["broken", "no-runner", "fine"]);
	});
});
