import { describe, expect, it } from "vitest";
import type { RegistryEntry } from "../../src/store/registry.ts";
import {
	type ActiveCandidate,
	admitsFresh,
	FRESH_BUDGET_FACTOR,
	promptCost,
	selectActive,
	selectOffer,
} from "../../src/toolbox/active-set.ts";

const now = new Date("2026-06-01T12:00:00Z");
const candidate = (
	name: string,
	daysAgo: number,
	calls = 0,
	healthy = true,
	description = `The ${name} tool.`,
): ActiveCandidate => ({
	entry: {
		name,
		description,
		parameters: { type: "object", properties: {} },
		version: 1,
		hash: "h",
		updatedAt: new Date(now.getTime() - daysAgo * 86_400_000).toISOString(),
		status: "ok",
		stamps: {},
	} as RegistryEntry,
	health: { calls, failures: 0, consecutiveFailures: 0 },
	healthy,
});

describe("the active set", () => {
	it("takes pinned tools, then the most recently used, up to the limit, leaving unhealthy tools out", () => {
		const tools = [
			candidate("old", 30),
			candidate("fresh", 0),
			candidate("week", 7),
			candidate("broken", 0, 0, false),
			candidate("pin", 400),
		];
		expect(selectActive(tools, ["pin"], 3, now)).toEqual(["pin", "fresh", "week"]);
	});

	it("frequency breaks near ties", () => {
		expect(selectActive([candidate("rare", 1, 1), candidate("busy", 1, 500)], [], 1, now)).toEqual(["busy"]);
	});

	it("stays within the character budget, skipping a big tool for smaller ones", () => {
		const big = candidate("big", 0, 0, true, "x".repeat(2000));
		const small = [candidate("a", 1), candidate("b", 2)];
		const budget = promptCost(small[0].entry) + promptCost(small[1].entry);
		expect(selectActive([big, ...small], [], 12, now, budget)).toEqual(["a", "b"]);
	});
});

describe("tools forged in this run", () => {
	const sized = (name: string, chars: number) => candidate(name, 30, 0, true, "d".repeat(chars));

	it("go in first, whatever the budget, and older unused tools make room", () => {
		const old = [candidate("used-yesterday", 1, 3), candidate("used-last-week", 7, 9)];
		const fresh = [sized("new-a", 900), sized("new-b", 900)];
		const budget = 1600;
		const offer = selectOffer([...old, ...fresh], { pinned: [], limit: 12, now, budget, fresh: ["new-a", "new-b"] });
		expect(offer.active).toEqual(["new-a", "new-b"]);
		expect(offer.left).toEqual(["used-yesterday", "used-last-week"]);
	});

	it("left out: the healthy tools not offered, the busiest first", () => {
		const tools = [candidate("a", 1), candidate("b", 2), candidate("c", 3), candidate("sick", 0, 0, false)];
		expect(selectOffer(tools, { pinned: [], limit: 1, now })).toEqual({ active: ["a"], left: ["b", "c"] });
	});

	it("are promised while the run's forges stay within the count and a multiple of the budget; the first always", () => {
		const entry = (name: string, chars: number) => sized(name, chars).entry;
		const big = entry("huge", 10 * 1600);
		expect(admitsFresh([], big, 12, 1600)).toBe(true);
		expect(admitsFresh([big], entry("next", 100), 12, 1600)).toBe(false);
		expect(admitsFresh([big], big, 12, 1600)).toBe(true);
		const room = FRESH_BUDGET_FACTOR * 1600;
		const first = entry("first", room / 2);
		expect(admitsFresh([first], entry("second", room / 2 - 200), 12, 1600)).toBe(true);
		expect(admitsFresh([first], entry("second", room / 2 + 100), 12, 1600)).toBe(false);
		const twelve = Array.from({ length: 12 }, (_, i) => entry(`t${i}`, 10));
		expect(admitsFresh(twelve.slice(0, 11), entry("t11", 10), 12, 1600)).toBe(true);
		expect(admitsFresh(twelve, entry("t12", 10), 12, 1600)).toBe(false);
	});
});
