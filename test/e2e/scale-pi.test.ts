// Scale through the real pi, on a generated toolbox of 1,000 tools: what the model is offered stays bounded, a query
// finds the intended tool near the top, any tool runs through use_forge_tool, and a used tool is offered from the next run.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ACTIVE_LIMIT } from "../../src/config.ts";
import { generateToolbox } from "../helpers/big-toolbox.ts";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const INDEX = join(import.meta.dirname, "../../index.ts");
const PLANTED = {
	name: "tide-table",
	description: "Predict high and low tide times for a harbour from its tidal constants.",
	parametersSchema: {
		type: "object",
		properties: { harbour: { type: "string", description: "Harbour name" } },
		required: ["harbour"],
	},
	logic: "return `Tides for ${params.harbour}: high 06:12, low 12:25`;",
};
const BUILT_IN = new Set(["read", "bash", "edit", "write", "forge_tool", "use_forge_tool", "list_forge"]);

let pi: PiHarness;
let names: string[];

beforeAll(async () => {
	const cwd = await makeTempDir("forge-scale");
	names = await generateToolbox(join(cwd, ".pi", "forge", "extensions"), 1000, { seed: 3, plant: [PLANTED] });
	pi = await startPi({ extensionPaths: [INDEX], cwd });
}, 120_000);
afterAll(async () => pi?.dispose());

describe("a toolbox of 1,000 tools in the real pi", () => {
	it("offers the model a bounded set of forged tools", async () => {
		const run = await pi.run("hello", [{ text: "ok" }]);
		const forged = run.toolNamesSeen[0].filter((name) => !BUILT_IN.has(name));
		expect(names.length).toBeGreaterThanOrEqual(1000);
		expect(forged.length).toBeGreaterThan(0);
		expect(forged.length).toBeLessThanOrEqual(DEFAULT_ACTIVE_LIMIT);
		expect(forged).not.toContain("tide-table");
		// The system prompt counts the tools left out, in one bounded line.
		const note = run.systemPrompts[0]
			.split("\n")
			.find((line) => line.startsWith("Forged tools not offered as tools of their own:"));
		expect(note).toMatch(/ and [\d,]+ more \(list_forge \{query\} finds them\)\. Run one with use_forge_tool/);
		expect(note!.length).toBeLessThan(400);
	});

	it("finds the intended tool near the top for a paraphrased query", async () => {
		const run = await pi.run("search", [
			[{ name: "list_forge", args: { query: "tide times for a harbour" } }],
			{ text: "ok" },
		]);
		const listed = (run.toolEvents[0].details as { names: string[] }).names;
		expect(listed.slice(0, 3)).toContain("tide-table");
		expect(run.toolEvents[0].text).toMatch(/^\d+ of \d+ forged tools match/);
	});

	it("runs any tool through use_forge_tool, and a used tool is offered directly from the next run", async () => {
		const used = await pi.run("use it", [
			[{ name: "use_forge_tool", args: { name: "tide-table", args: { harbour: "Brest" } } }],
			{ text: "ok" },
		]);
		expect(used.toolEvents[0].text).toBe("Tides for Brest: high 06:12, low 12:25");
		const next = await pi.run("again", [[{ name: "tide-table", args: { harbour: "Oban" } }], { text: "ok" }]);
		expect(next.toolNamesSeen[0]).toContain("tide-table");
		expect(next.toolEvents[0].text).toBe("Tides for Oban: high 06:12, low 12:25");
		expect(next.toolNamesSeen[0].filter((name) => !BUILT_IN.has(name)).length).toBeLessThanOrEqual(
			DEFAULT_ACTIVE_LIMIT,
		);
	});
});
