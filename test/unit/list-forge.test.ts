import { describe, expect, it } from "vitest";
import { formatListing } from "../../src/pi/list-forge.ts";
import type { RegistryEntry } from "../../src/store/registry.ts";

const entry = (name: string, overrides: Partial<RegistryEntry> = {}): RegistryEntry => ({
	name,
	description: `The ${name} tool.`,
	parameters: { type: "object", properties: { text: {}, limit: {} } },
	version: 1,
	hash: "h",
	updatedAt: "",
	status: "ok",
	stamps: {},
	...overrides,
});
const now = new Date("2026-01-01T12:00:00Z");

describe("formatListing", () => {
	it("says the toolbox is empty", () => {
		expect(formatListing({ total: 0, matched: 0, tools: [] }, undefined, now)).toBe(
			"The toolbox is empty. Create a tool with forge_tool.",
		);
	});

	it("lists name, version, status, description, params and last use", () => {
		const text = formatListing(
			{
				total: 1,
				matched: 1,
				tools: [
					{
						entry: entry("alpha"),
						state: "ok",
						health: { calls: 1, failures: 0, consecutiveFailures: 0, lastUsedAt: "2026-01-01T11:58:00Z" },
					},
				],
			},
			undefined,
			now,
		);
		expect(text).toBe(
			"1 forged tools:\n- alpha v1 [ok, draft] The alpha tool. (params: text, limit) — last used 2m ago",
		);
	});

	it("shows a broken tool with its phase and location", () => {
		const broken = entry("beta", {
			status: "broken",
			error: { phase: "syntax", message: "x", location: { file: "forge-beta.ts", line: 3, column: 1 } },
		});
		expect(
			formatListing({ total: 1, matched: 1, tools: [{ entry: broken, state: "broken" }] }, undefined, now),
		).toContain("beta v1 [broken: syntax at forge-beta.ts:3]");
	});

	it("with a query, says how many matched and that only the best are shown", () => {
		const text = formatListing(
			{ total: 50, matched: 30, tools: [{ entry: entry("alpha"), state: "ok" }] },
			"text tools",
			now,
		);
		expect(text.split("\n")[0]).toBe('30 of 50 forged tools match "text tools" (best 1 shown):');
	});

	it("shows a quarantined tool with its run of failures", () => {
		const health = { calls: 9, failures: 6, consecutiveFailures: 6 };
		expect(
			formatListing(
				{ total: 1, matched: 1, tools: [{ entry: entry("flaky"), health, state: "quarantined" }] },
				undefined,
				now,
			),
		).toContain("flaky v1 [quarantined: 6 failed calls in a row]");
	});

	it("bounds long descriptions", () => {
		const text = formatListing(
			{ total: 1, matched: 1, tools: [{ entry: entry("long", { description: "x".repeat(1000) }), state: "ok" }] },
			undefined,
			now,
		);
		expect(text.length).toBeLessThan(400);
		expect(text).toContain("x…");
	});
});

describe("/forge parsing and completion", async () => {
	const { forgeCompletions, parseForgeArgs } = await import("../../src/pi/forge-command.ts");
	it("parses a sub-command and its arguments; nothing means the table", () => {
		expect(parseForgeArgs("")).toEqual({ name: "list", args: [] });
		expect(parseForgeArgs("  Show   word-count ")).toEqual({ name: "show", args: ["word-count"] });
	});
	it("completes sub-commands, with a space after those that take a tool", () => {
		expect(forgeCompletions("ro", [])?.map((i) => i.value)).toEqual(["rollback "]);
		expect(forgeCompletions("he", [])?.map((i) => i.value)).toEqual(["help"]);
		expect(forgeCompletions("zz", [])).toBeNull();
	});
	it("completes tool names, and offers nothing once the name is complete", () => {
		expect(forgeCompletions("show wo", ["word-count", "words", "json-pick"])?.map((i) => i.value)).toEqual([
			"show word-count",
			"show words",
		]);
		expect(forgeCompletions("show words", ["word-count", "words"])).toBeNull();
		expect(forgeCompletions("list wo", ["word-count"])).toBeNull();
	});
	it("keeps what follows the tool's name as typed, for a capability with spaces", async () => {
		const { afterTool } = await import("../../src/pi/forge-command.ts");
		expect(afterTool("grant t shell:ls  -l | wc")).toBe("shell:ls  -l | wc");
		expect(afterTool("  grant   t read:/a b/")).toBe("read:/a b/");
		expect(afterTool("revoke t")).toBe("");
		expect(
			forgeCompletions("gra", [])
				?.map((i) => i.value)
				.sort(),
		).toEqual(["grant ", "grants "]);
		expect(forgeCompletions("grant wo", ["word-count"])?.map((i) => i.value)).toEqual(["grant word-count"]);
	});
});

describe("list_forge with an unknown name", async () => {
	const { unknownToolError } = await import("../../src/pi/list-forge.ts");
	const tools = [
		entry("word-count", { description: "Count the words in a text." }),
		entry("json-pick"),
		entry("todo-scan"),
	];
	const box = (found: string[] = []) => ({
		entries: () => tools,
		list: () => ({
			total: tools.length,
			matched: found.length,
			tools: found.map((name) => ({ entry: tools.find((t) => t.name === name)!, state: "ok" as const })),
		}),
	});

	it("names close matches, typos first, then search hits, and how to see one in full", () => {
		const error = unknownToolError("wordcount", box(["todo-scan"]));
		expect(error.phase).toBe("not-found");
		expect(error.message).toBe("There is no forged tool named 'wordcount'.");
		expect(error.details.notes).toEqual([
			"Close matches: word-count (Count the words in a text.); todo-scan (The todo-scan tool.)",
		]);
		expect(error.details.hint).toBe(
			'Call list_forge with {"name":"word-count"} for that tool in full, or with a query to search by what the tool does.',
		);
	});

	it("without a close match, points to the list; with an empty toolbox, to forge_tool", () => {
		expect(unknownToolError("zzz", box()).details.hint).toMatch(/^Call list_forge without arguments/);
		expect(
			unknownToolError("zzz", { entries: () => [], list: () => ({ total: 0, matched: 0, tools: [] }) }).details.hint,
		).toMatch(/toolbox is empty/);
	});
});
