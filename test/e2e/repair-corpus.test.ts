// The repair-loop corpus through the real pi: for every fixture, one agent run where the (scripted) model forges the
// broken tool, reads the error, and forges the repaired one. The error must name the right phase and, for a mistake
// that has a place in the logic, the logic line where it is; the repair must go live.
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPAIR_CASES, type RepairCase } from "../fixtures/repair-corpus/index.ts";
import { type PiHarness, startPi } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");

let pi: PiHarness;

beforeAll(async () => {
	pi = await startPi({ extensionPaths: [INDEX] });
});
afterAll(async () => pi?.dispose());

const inRange = (n: number | undefined, [from, to]: [number, number]) => n !== undefined && n >= from && n <= to;
const logicLineCount = (c: RepairCase) => c.broken.logic.split("\n").length;

describe("the repair corpus", () => {
	it("has at least 30 well-formed fixtures", () => {
		expect(REPAIR_CASES.length).toBeGreaterThanOrEqual(30);
		expect(new Set(REPAIR_CASES.map((c) => c.id)).size).toBe(REPAIR_CASES.length);
		// one toolbox for the whole file: no two fixtures may repair into the same tool
		expect(new Set(REPAIR_CASES.map((c) => c.repaired.name)).size).toBe(REPAIR_CASES.length);
		for (const c of REPAIR_CASES) {
			for (const range of [c.expect.logicLines, c.mislocated?.shouldBe]) {
				if (!range) continue;
				expect(range[0], c.id).toBeGreaterThanOrEqual(1);
				expect(range[1], c.id).toBeGreaterThanOrEqual(range[0]);
				expect(range[1], c.id).toBeLessThanOrEqual(logicLineCount(c));
			}
		}
	});
});

describe("the repair loop through the real pi: broken forge → error → repaired forge", () => {
	it.each(REPAIR_CASES.map((c) => [c.id, c] as const))("%s", async (_id, c) => {
		const run = await pi.run(`forge ${c.repaired.name}`, [
			[{ name: "forge_tool", args: { ...c.broken } }],
			[{ name: "forge_tool", args: { ...c.repaired } }],
			{ text: "done" },
		]);
		expect(run.toolEvents.map((e) => e.toolName)).toEqual(["forge_tool", "forge_tool"]);
		const [broken, repaired] = run.toolEvents;

		expect(broken.isError, `${c.id}: the broken forge succeeded:\n${broken.text}`).toBe(true);
		expect(broken.text, c.id).toContain(`(phase: ${c.expect.phase})`);

		const reported = /\(line (\d+) of the logic\)/.exec(broken.text)?.[1];
		const line = reported === undefined ? undefined : Number(reported);
		const fixed = c.mislocated && inRange(line, c.mislocated.shouldBe); // a mislocation that has since been fixed passes too
		if (c.expect.logicLines && !fixed) {
			expect(
				line,
				`${c.id}: expected "(line N of the logic)" with N in ${c.expect.logicLines.join("-")}:\n${broken.text}`,
			).toBeDefined();
			expect(
				inRange(line, c.expect.logicLines),
				`${c.id}: reported line ${line}, expected ${c.expect.logicLines.join("-")}:\n${broken.text}`,
			).toBe(true);
			expect(broken.text).toMatch(
				new RegExp(`at forge-${c.broken.name}\\.ts:\\d+:\\d+ \\(line ${line} of the logic\\)`),
			);
		}

		expect(repaired.isError, `${c.id}: the repaired forge failed:\n${repaired.text}`).toBe(false);
		expect(repaired.text).toContain(`Forged '${c.repaired.name}'`);
		if (c.repaired.tests?.length) expect(repaired.text).toContain("verified");
	});
});
