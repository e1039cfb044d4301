import { describe, expect, it } from "vitest";
import { type ActiveCandidate, promptCost, selectActive } from "../../src/toolbox/active-set.ts";
import type { RegistryEntry } from "../../src/store/registry.ts";

const now = new Date("2026-06-01T12:00:00Z");
const candidate = (name: string, daysAgo: number, calls = 0, healthy = true, description = `The ${name} tool.`): ActiveCandidate => ({
	entry: { name, description, parameters: { type: "object", properties: {} }, version: 1, hash: "h", updatedAt: new Date(now.getTime() - daysAgo * 86_400_000).toISOString(), status: "ok", stamps: {} } as RegistryEntry,
	health: { calls, failures: 0, consecutiveFailures: 0 },
	healthy,
});

describe("the active set", () => {
	it("takes pinned tools, then the most recently used, up to the limit, leaving unhealthy tools out", () => {
		const tools = [candidate("old", 30), candidate("fresh", 0), candidate("week", 7), candidate("broken", 0, 0, false), candidate("pin", 400)];
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
