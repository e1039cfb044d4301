// "just now", "42s ago", "2m ago": the times the widget, /forge and list_forge show.
import { describe, expect, it } from "vitest";
import { relativeTime } from "../../src/ui/relative-time.ts";

const now = new Date("2025-06-01T12:00:00.000Z");
const ago = (ms: number) => relativeTime(new Date(now.getTime() - ms), now);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe("relativeTime", () => {
	it("says 'just now' under 10 seconds, and for times in the future", () => {
		expect(ago(0)).toBe("just now");
		expect(ago(9 * SECOND)).toBe("just now");
		expect(ago(-5 * MINUTE)).toBe("just now");
	});

	it("counts seconds from 10 to 59", () => {
		expect(ago(10 * SECOND)).toBe("10s ago");
		expect(ago(59 * SECOND)).toBe("59s ago");
	});

	it("counts minutes from 1 to 59", () => {
		expect(ago(60 * SECOND)).toBe("1m ago");
		expect(ago(2 * MINUTE + 59 * SECOND)).toBe("2m ago");
		expect(ago(59 * MINUTE + 59 * SECOND)).toBe("59m ago");
	});

	it("counts hours up to 47, then days", () => {
		expect(ago(HOUR)).toBe("1h ago");
		expect(ago(47 * HOUR + 59 * MINUTE)).toBe("47h ago");
		expect(ago(48 * HOUR)).toBe("2d ago");
		expect(ago(30 * 24 * HOUR)).toBe("30d ago");
	});

	it("rounds to the nearest second", () => {
		expect(ago(9_499)).toBe("just now");
		expect(ago(9_500)).toBe("10s ago");
		expect(ago(59_600)).toBe("1m ago");
	});
});

describe("widget and tiers", async () => {
	const { widgetLines } = await import("../../src/ui/widget.ts");
	const { statusText, tierFor } = await import("../../src/ui/tiers.ts");
	const now = new Date("2026-01-01T12:00:00Z");
	it("names broken and quarantined tools in Health, and counts them", () => {
		expect(widgetLines({ total: 5, broken: ["a"], quarantined: ["b"], executing: [] }, now)).toEqual([
			"Evolved Tools: 5 (3 ok · 1 broken · 1 quarantined)",
			"Last Action: none yet",
			"Health: broken: a; quarantined: b",
		]);
	});
	it("shows what is running, else the last action with its relative time", () => {
		const last = { kind: "forged" as const, name: "sql-explorer", version: 2, at: new Date("2026-01-01T11:58:00Z") };
		expect(widgetLines({ total: 1, broken: [], quarantined: [], executing: [], last }, now)[1]).toBe(
			"Last Action: Forged 'sql-explorer' v2 2m ago",
		);
		expect(widgetLines({ total: 1, broken: [], quarantined: [], executing: ["log-parser"], last }, now)[1]).toBe(
			"Last Action: Executing 'log-parser'…",
		);
	});
	it("tiers by healthy tools", () => {
		expect([0, 1, 3, 10, 25, 100].map((n) => tierFor(n).name)).toEqual([
			"Cold Anvil",
			"Apprentice",
			"Journeyman",
			"Artisan",
			"Master Smith",
			"Legendary Forge",
		]);
		expect(statusText(2)).toBe("Forge Tier: Apprentice (2 tools · 1 to Journeyman)");
		expect(statusText(150)).toBe("Forge Tier: Legendary Forge (150 tools)");
	});
});
