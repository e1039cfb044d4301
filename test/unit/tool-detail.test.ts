// list_forge with a name: one tool in full (state, description, schema, tests, source, the logic to re-forge), bounded.
import { describe, expect, it } from "vitest";
import { renderTool } from "../../src/forge/render.ts";
import { formatToolDetail, type ToolDetail } from "../../src/pi/tool-detail.ts";
import type { RegistryEntry } from "../../src/store/registry.ts";
import { loadTemplate } from "../../src/store/template-file.ts";

const now = new Date("2026-01-01T12:00:00Z");
const parameters = {
	type: "object",
	properties: { text: { type: "string", description: "The text" } },
	required: ["text"],
};
const render = (logic: string) =>
	renderTool(loadTemplate(), { name: "word-count", description: "Count the words in a text.", parameters, logic })
		.source;
const entry = (overrides: Partial<RegistryEntry> = {}): RegistryEntry => ({
	name: "word-count",
	description: "Count the words in a text.",
	parameters,
	version: 3,
	hash: "h",
	updatedAt: "",
	status: "ok",
	stamps: {},
	...overrides,
});
const detail = (overrides: Partial<ToolDetail> = {}): ToolDetail => ({
	entry: entry(),
	state: "ok",
	source: render("const words = params.text.split(/\\s+/).filter(Boolean);\nreturn { words: words.length };"),
	tests: [],
	edited: false,
	path: ".pi/forge/extensions/forge-word-count.ts",
	...overrides,
});

describe("formatToolDetail", () => {
	it("shows name, version, state, description, schema, tests and the whole source with the logic's lines", () => {
		const tests = [
			{ args: { text: "a b" }, expect: "2" },
			{ args: { text: "" }, equals: { words: 0 } },
		];
		const health = { calls: 5, failures: 1, consecutiveFailures: 0, lastUsedAt: "2026-01-01T11:58:00Z" };
		const text = formatToolDetail(detail({ entry: entry({ tests: 2, verified: true }), tests, health }), now);
		const lines = text.split("\n");
		expect(lines[0]).toBe("word-count v3 — ok, verified: its 2 tests pass on this version");
		expect(lines[1]).toBe("5 calls, 1 failure, last used 2m ago.");
		expect(lines[2]).toBe("Description: Count the words in a text.");
		expect(text).toContain(JSON.stringify(parameters, null, 2));
		expect(text).toContain('  1. {"args":{"text":"a b"},"expect":"2"}');
		expect(text).toContain('  2. {"args":{"text":""},"equals":{"words":0}}');
		expect(text).toContain(
			"Source of forge-word-count.ts (.pi/forge/extensions/forge-word-count.ts, 25 lines; the logic is lines 23-24, the body of execute):",
		);
		expect(text).toContain(`\`\`\`ts\n${detail().source!.trimEnd()}\n\`\`\``);
		expect(lines.at(-1)).toBe(
			'To change it: forge_tool with name "word-count", the description, parametersSchema and lines 23-24 as logic, changed as needed; omit tests to keep these 2.',
		);
	});

	it("gives the logic with hoisted imports put back, ready for forge_tool", () => {
		const logic =
			'import { readFile } from "node:fs/promises";\nreturn (await readFile(params.text, "utf8")).length;';
		const text = formatToolDetail(detail({ source: render(logic) }), now);
		expect(text).toContain(
			`The logic as forge_tool takes it (the imports the forge moved to the top put back):\n\`\`\`ts\n${logic}\n\`\`\``,
		);
		expect(text.split("\n").at(-1)).toContain("the logic above");
	});

	it.each([
		["a draft", detail(), "ok, a draft (no tests)"],
		[
			"unverified",
			detail({ tests: [{ args: { text: "a" }, expect: "1" }], entry: entry({ tests: 1, verified: false }) }),
			"ok, unverified: its test has not passed on this version",
		],
		[
			"broken",
			detail({
				state: "broken",
				entry: entry({
					status: "broken",
					error: {
						phase: "syntax",
						message: 'Expected ")" but found "}"',
						location: { file: "forge-word-count.ts", line: 24, column: 30 },
					},
				}),
			}),
			'broken (syntax at forge-word-count.ts:24:30): Expected ")" but found "}"',
		],
		[
			"quarantined",
			detail({
				state: "quarantined",
				health: {
					calls: 6,
					failures: 6,
					consecutiveFailures: 6,
					lastError: { phase: "runtime", message: "TypeError: x\nmore" },
				},
			}),
			"quarantined: 6 failed calls in a row; last error (runtime): TypeError: x",
		],
		["edited", detail({ edited: true }), "ok, a draft (no tests); the file was edited by hand since it was checked"],
	])("states %s", (_label, input, state) => {
		expect(formatToolDetail(input, now).split("\n")[0]).toContain(`word-count v3 — ${state}`);
	});

	it("a single test is kept as 'its test'", () => {
		const text = formatToolDetail(detail({ tests: [{ args: { text: "a" }, expect: "1" }] }), now);
		expect(text.split("\n").at(-1)).toMatch(/; omit tests to keep its test\.$/);
	});

	it("a broken tool's next step is a repair", () => {
		const text = formatToolDetail(detail({ state: "broken", entry: entry({ status: "broken" }) }), now);
		expect(text.split("\n").at(-1)).toMatch(/^To repair it: forge_tool with name "word-count"/);
	});

	it("says when the file is missing", () => {
		expect(formatToolDetail(detail({ source: undefined }), now)).toContain("Source: forge-word-count.ts is missing.");
	});

	it("stays bounded: a long source is cut at its head, naming the file for the rest; long schemas and many tests too", () => {
		const logic = `${Array.from({ length: 3000 }, (_, i) => `const v${i} = params.text.length + ${i};`).join("\n")}\nreturn 1;`;
		const bigSchema = {
			type: "object",
			properties: Object.fromEntries(
				Array.from({ length: 300 }, (_, i) => [`p${i}`, { type: "string", description: "x".repeat(40) }]),
			),
		};
		const tests = Array.from({ length: 50 }, (_, i) => ({ args: { text: "y".repeat(1000) }, expect: String(i) }));
		const text = formatToolDetail(
			detail({ source: render(logic), entry: entry({ parameters: bigSchema }), tests }),
			now,
		);
		expect(text.length).toBeLessThanOrEqual(12_000);
		expect(text).toMatch(
			/… \(lines \d+-3024 left out to keep this short: read \.pi\/forge\/extensions\/forge-word-count\.ts for the whole file\)/,
		);
		expect(text).toMatch(/ {2}… and \d+ more/);
		expect(text.split("\n").filter((line) => /^ {2}\d+\. /.test(line)).length).toBeLessThan(20);
		expect(text).toContain("more characters)");
	});

	it("a source holding a code fence gets a longer fence", () => {
		const text = formatToolDetail(detail({ source: render("return '```';") }), now);
		expect(text).toContain("````ts\n");
	});
});
