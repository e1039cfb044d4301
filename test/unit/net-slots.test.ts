// The slots brokered requests wait for (net-slots.ts): shares per tool, turns, a waiter that gives up, a release
// called twice, and requests of no tool, which may hold every slot.
import { describe, expect, it } from "vitest";
import { Slots } from "../../src/run/isolated/parent/net-slots.ts";

const open = () => new AbortController().signal;
/** Whether `promise` has settled after the queued callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
	let done = false;
	promise.then(
		() => (done = true),
		() => (done = true),
	);
	await new Promise((resolve) => setTimeout(resolve, 0));
	return done;
}

describe("slots", () => {
	it("one tool holds at most its share; another tool's request gets a slot at once", async () => {
		const slots = new Slots(4, 3);
		const a = await Promise.all([0, 1, 2].map(() => slots.take(open(), "a")));
		const fourth = slots.take(open(), "a");
		expect(await settled(fourth)).toBe(false);
		expect(await settled(slots.take(open(), "b"))).toBe(true);
		a[0]!();
		expect(await settled(fourth)).toBe(true);
	});

	it("a slot given up goes to the waiting tool holding fewest, whoever waited longer", async () => {
		const slots = new Slots(2, 2);
		const [a1] = await Promise.all([slots.take(open(), "a"), slots.take(open(), "a")]);
		const a3 = slots.take(open(), "a");
		const b1 = slots.take(open(), "b");
		a1!();
		expect(await settled(b1)).toBe(true);
		expect(await settled(a3)).toBe(false);
	});

	it("a waiter whose signal aborts leaves the queue; a release called twice frees one slot", async () => {
		const slots = new Slots(1, 1);
		const first = await slots.take(open(), "a");
		const stop = new AbortController();
		const gone = slots.take(stop.signal, "b");
		stop.abort(new Error("call over"));
		await expect(gone).rejects.toThrow("call over");
		const next = slots.take(open(), "c");
		first();
		first();
		expect(await settled(next)).toBe(true);
		expect(await settled(slots.take(open(), "d"))).toBe(false);
	});

	it("requests of no tool may hold every slot", async () => {
		const slots = new Slots(3, 1);
		await Promise.all([0, 1, 2].map(() => slots.take(open())));
		expect(await settled(slots.take(open()))).toBe(false);
	});
});
