// What forge_tool's success text says: the version and its .bak, the tests' fate, a call that fits the schema.
import { describe, expect, it } from "vitest";
import { forgeSuccessText, testsLines } from "../../src/pi/forge-tool.ts";
import type { Forged } from "../../src/toolbox/forge-pipeline.ts";

const forged = (parameters: Record<string, unknown>, overrides: Partial<Forged> = {}): Forged =>
	({
		meta: {
			name: "pager",
			description: "Page through a list.",
			parameters,
			version: 1,
			hash: "h",
			createdAt: "",
			updatedAt: "",
		},
		source: "",
		compiled: { code: "" },
		backedUp: false,
		stamps: {},
		...overrides,
	}) as Forged;

describe("forgeSuccessText", () => {
	it("the usage example honours the schema's constraints", () => {
		const schema = {
			type: "object",
			properties: {
				page: { type: "integer", minimum: 1 },
				order: { type: "string", enum: ["asc", "desc"] },
				text: { type: "string" },
			},
			required: ["page", "order", "text"],
		};
		expect(forgeSuccessText(forged(schema))).toContain(
			'Use it now: use_forge_tool with {"name":"pager","args":{"page":1,"order":"asc","text":"…"}}',
		);
	});
});

const a = { args: { text: "a" }, expect: "1" };
const b = { args: { text: "" }, expectError: "empty" };

describe("testsLines", () => {
	it("says nothing for a tool without tests before or now", () => {
		expect(testsLines(undefined, 1)).toEqual([]);
		expect(testsLines({ kind: "none" }, 2)).toEqual([]);
	});

	it("kept tests: which version they came from and that they pass now", () => {
		expect(testsLines({ kind: "kept", count: 2, fromVersion: 3 }, 4)).toEqual([
			"Tests: the 2 tests of v3 were kept (this call gave no tests) and pass on v4.",
		]);
	});

	it("a single test reads as one", () => {
		expect(testsLines({ kind: "kept", count: 1, fromVersion: 1 }, 2)).toEqual([
			"Tests: the test of v1 was kept (this call gave no tests) and passes on v2.",
		]);
		expect(testsLines({ kind: "replaced", count: 1, kept: 0, added: 1, dropped: [a], fromVersion: 1 }, 2)[0]).toBe(
			"Tests: the given test replaces the test of v1: 0 kept, 1 added, 1 dropped.",
		);
		expect(testsLines({ kind: "replaced", count: 0, kept: 0, added: 0, dropped: [a], fromVersion: 1 }, 2)[0]).toBe(
			"Tests: tests was an empty list, so the test of v1 was dropped: v2 is a draft.",
		);
	});

	it("first tests of a tool", () => {
		expect(testsLines({ kind: "replaced", count: 2, kept: 0, added: 2, dropped: [] }, 1)).toEqual([
			"Tests: 2 new tests.",
		]);
	});

	it("replaced tests: how many kept, added and dropped, and each dropped case as written", () => {
		const lines = testsLines({ kind: "replaced", count: 2, kept: 1, added: 1, dropped: [b], fromVersion: 1 }, 2);
		expect(lines[0]).toBe("Tests: the 2 given tests replace the 2 tests of v1: 1 kept, 1 added, 1 dropped.");
		expect(lines).toContain(`  - ${JSON.stringify(b)}`);
		expect(lines.at(-1)).toContain("omit tests to keep the current ones");
	});

	it("an empty list drops every test and says the tool is now a draft", () => {
		expect(testsLines({ kind: "replaced", count: 0, kept: 0, added: 0, dropped: [a, b], fromVersion: 5 }, 6)[0]).toBe(
			"Tests: tests was an empty list, so the 2 tests of v5 were dropped: v6 is a draft.",
		);
	});

	it("lists at most five dropped cases", () => {
		const dropped = Array.from({ length: 8 }, (_, i) => ({ args: { n: i }, expect: String(i) }));
		const lines = testsLines({ kind: "replaced", count: 1, kept: 0, added: 1, dropped, fromVersion: 1 }, 2);
		expect(lines.filter((line) => line.startsWith("  - "))).toHaveLength(5);
		expect(lines).toContain("  … and 3 more");
	});
});
