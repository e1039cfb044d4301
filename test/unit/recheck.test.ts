// The re-check queue: several at once under one hold, the asked-for first, a tool asked for again while it runs checked
// once more after it, a failing check failing only its own tool, and what has not started dropped on cancel.
import { describe, expect, it } from "vitest";
import { RecheckQueue } from "../../src/toolbox/recheck.ts";

/** A queue whose checks wait until released by name; `holds` counts the holds of the lock. */
function gatedQueue(concurrency: number) {
	const started: string[] = [];
	const gates = new Map<string, Array<(value: string) => void>>();
	let holds = 0;
	const queue = new RecheckQueue<string>(
		// Taking a lock takes a turn of the event loop.
		async (work) => {
			holds++;
			await new Promise((resolve) => setImmediate(resolve));
			await work();
		},
		(name) => {
			started.push(name);
			return new Promise<string>((resolve, reject) => {
				const list = gates.get(name) ?? [];
				list.push((value) => (value === "fail" ? reject(new Error(`${name} failed`)) : resolve(value)));
				gates.set(name, list);
			});
		},
		concurrency,
	);
	const release = async (name: string, value = `${name} checked`) => {
		gates.get(name)!.shift()!(value);
		await new Promise((resolve) => setImmediate(resolve));
	};
	const tick = () => new Promise((resolve) => setImmediate(resolve));
	return { queue, started, release, tick, holds: () => holds };
}

describe("RecheckQueue", () => {
	it("runs up to its concurrency at once, under one hold, the asked-for first", async () => {
		const { queue, started, release, tick, holds } = gatedQueue(2);
		const results = ["a", "b", "c", "d"].map((name) => queue.request(name));
		const urgent = queue.request("d", { first: true });
		await tick();
		expect(started).toEqual(["d", "a"]);
		await release("d");
		expect(started).toEqual(["d", "a", "b"]);
		await release("a");
		await release("b");
		await release("c");
		expect(await Promise.all(results)).toEqual(["a checked", "b checked", "c checked", "d checked"]);
		expect(await urgent).toBe("d checked");
		expect(holds()).toBe(1);
		await queue.idle();
		expect(queue.size).toBe(0);
	});

	it("a request made while others run starts at once in a free slot", async () => {
		const { queue, started, release, tick } = gatedQueue(2);
		const a = queue.request("a");
		await tick();
		await tick();
		expect(started).toEqual(["a"]);
		const b = queue.request("b");
		await tick();
		expect(started).toEqual(["a", "b"]);
		await release("a");
		await release("b");
		expect([await a, await b]).toEqual(["a checked", "b checked"]);
	});

	it("a tool asked for again while its check runs is checked once more, after it", async () => {
		const { queue, started, release, tick } = gatedQueue(4);
		const first = queue.request("a");
		await tick();
		const again = queue.request("a");
		const meanwhile = queue.request("a");
		await tick();
		expect(started).toEqual(["a"]);
		await release("a", "old files");
		expect(await first).toBe("old files");
		expect(started).toEqual(["a", "a"]);
		await release("a", "new files");
		expect(await again).toBe("new files");
		expect(await meanwhile).toBe("new files");
	});

	it("a failing check fails its own tool only", async () => {
		const { queue, release, tick } = gatedQueue(2);
		const a = queue.request("a");
		const b = queue.request("b");
		await tick();
		await release("a", "fail");
		await release("b");
		await expect(a).rejects.toThrow("a failed");
		expect(await b).toBe("b checked");
	});

	it("a noticed change waits for quiet unless hurried; cancel drops what has not started", async () => {
		const { queue, started, release, tick } = gatedQueue(1);
		queue.notice("n", 60_000);
		expect(queue.size).toBe(1);
		await tick();
		expect(started).toEqual([]);
		queue.hurry();
		await tick();
		expect(started).toEqual(["n"]);
		const waiting = queue.request("w");
		const cancelled = queue.cancel();
		await expect(waiting).rejects.toThrow("closed");
		await release("n");
		await cancelled;
		expect(started).toEqual(["n"]);
		expect(queue.size).toBe(0);
	});
});
