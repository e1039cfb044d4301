// The offered set through the real pi, with tools of realistic schema size (descriptions, enums, nested objects) in a
// toolbox of 20+: what a forge result says about the next prompt is what pi then sends; tools forged in a run are
// offered in the next prompt (older unused ones make room); the system prompt names the forged tools not offered; a
// call by name of one of those is answered with how to run it.
import { join, resolve } from "node:path";
import type { Context } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_ACTIVE_LIMIT } from "../../src/config.ts";
import { generatedTools, generateToolbox } from "../helpers/big-toolbox.ts";
import { systemPromptOf, toolsOf } from "../helpers/model-context.ts";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";
import { PI_LINE } from "../helpers/pi-line.ts";
import { realisticTool } from "../helpers/realistic-tool.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const SEED = 11;
const GENERATED = 24;
const OFFERED_DIRECTLY = /From the next prompt on it is also offered directly as the tool '([^']+)'/;
const NOT_OFFERED = /It is not offered as a tool of its own in the next prompt/;

const TOPICS = [
	"sales",
	"invoice",
	"ticket",
	"shipment",
	"payroll",
	"inventory",
	"refund",
	"lead",
	"survey",
	"expense",
	"booking",
	"claim",
	"order",
	"visit",
];

let pi: PiHarness | undefined;
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

async function startWithToolbox(contexts: Context[] = []): Promise<{ pi: PiHarness; names: string[] }> {
	const cwd = await makeTempDir("forge-offer");
	const names = await generateToolbox(join(cwd, ".pi", "forge", "extensions"), GENERATED, { seed: SEED });
	pi = await startPi({ extensionPaths: [INDEX], cwd, onContext: (context) => contexts.push(context as Context) });
	return { pi, names };
}

const forgedOffered = (seen: string[], names: readonly string[]) => seen.filter((name) => names.includes(name));

describe("the offered set keeps its promise", () => {
	it("tools forged in a run are offered in the next prompt with their schemas; the rest are named in the system prompt", async () => {
		const contexts: Context[] = [];
		const { pi, names } = await startWithToolbox(contexts);
		const before = await pi.run("hello", [{ text: "ok" }]);
		const offeredBefore = forgedOffered(before.toolNamesSeen[0], names);
		expect(offeredBefore.length).toBeGreaterThan(0);
		expect(offeredBefore.length).toBeLessThan(GENERATED);

		const tools = TOPICS.slice(0, 4).map((topic) => realisticTool(`${topic}-summary`, topic));
		const forged = await pi.run("make four report tools", [
			tools.map((tool) => ({ name: "forge_tool", args: tool })),
			{ text: "ok" },
		]);
		for (const event of forged.toolEvents) {
			expect(event.isError, event.text).toBe(false);
			expect(event.text).toMatch(OFFERED_DIRECTLY);
		}

		contexts.length = 0;
		const next = await pi.run("summarise", [{ text: "ok" }]);
		const offered = toolsOf(contexts[0]);
		for (const tool of tools) {
			const sent = offered.find((t) => t.name === tool.name);
			expect(sent, `${tool.name} offered`).toBeDefined();
			expect(sent!.parameters).toEqual(tool.parametersSchema);
		}
		// Older unused tools made room: the offered set stays within its count.
		const forgedNow = next.toolNamesSeen[0].filter(
			(name) => names.includes(name) || tools.some((t) => t.name === name),
		);
		expect(forgedNow.length).toBeLessThanOrEqual(DEFAULT_ACTIVE_LIMIT);

		// Every healthy forged tool not offered is named (or counted) in the system prompt, with the way to run it.
		const prompt = systemPromptOf(contexts[0]);
		const notes = prompt
			.split("\n")
			.filter((line) => line.startsWith("Forged tools not offered as tools of their own:"));
		expect(notes, prompt.slice(-600)).toHaveLength(1);
		const note = notes[0];
		expect(note).toContain("use_forge_tool");
		const left = names.filter((name) => !next.toolNamesSeen[0].includes(name));
		expect(left.length).toBeGreaterThan(0);
		const shown = left.filter((name) => note!.includes(name));
		const counted = Number(/ and ([\d,]+) more/.exec(note!)?.[1].replace(/,/g, "") ?? 0);
		expect(shown.length + counted).toBe(left.length);
		for (const tool of tools) expect(note).not.toContain(tool.name);
	});

	it("a call by name of a forged tool that is not offered is answered with how to run it", async () => {
		const { pi, names } = await startWithToolbox();
		const first = await pi.run("hello", [{ text: "ok" }]);
		const hidden = generatedTools(GENERATED, SEED).find((tool) => !first.toolNamesSeen[0].includes(tool.name))!;
		expect(names).toContain(hidden.name);

		let answer = "";
		const run = await pi.run("use it", [
			[{ name: hidden.name, args: hidden.sampleArgs }],
			({ lastToolResults }) => {
				answer = lastToolResults[0].text;
				return [{ name: "use_forge_tool", args: { name: hidden.name, args: hidden.sampleArgs } }];
			},
			{ text: "ok" },
		]);
		expect(run.toolEvents[0].text).toBe(`Tool ${hidden.name} not found`);
		expect(answer).toContain(`'${hidden.name}' (v`);
		expect(answer).toContain("is a forged tool, but it was not offered as a tool of its own");
		expect(answer).toContain(
			`Run it with use_forge_tool: ${JSON.stringify({ name: hidden.name, args: hidden.sampleArgs })}`,
		);
		expect(run.toolEvents[1].isError, run.toolEvents[1].text).toBe(false);
		// A tool pi does not know at all keeps pi's own answer.
		let unknown = "";
		await pi.run("typo", [
			[{ name: "no-such-tool", args: {} }],
			({ lastToolResults }) => {
				unknown = lastToolResults[0].text;
				return { text: "ok" };
			},
		]);
		expect(unknown).toBe("Tool no-such-tool not found");
	});

	it("a tool called by name in the prompt that forged it: run from the next step (current pi line) or told how to run it now", async () => {
		const { pi } = await startWithToolbox();
		const tool = realisticTool("visit-summary", "visit");
		const args = { path: "visits.csv", groupBy: "month" };
		let answer = "";
		const run = await pi.run("forge and call", [
			[{ name: "forge_tool", args: tool }],
			[{ name: tool.name, args }],
			({ lastToolResults }) => {
				answer = lastToolResults[0].text;
				return { text: "ok" };
			},
		]);
		if (PI_LINE === "current") {
			expect(run.toolNamesSeen[1]).toContain(tool.name);
			expect(run.toolEvents[1].isError, run.toolEvents[1].text).toBe(false);
			expect(JSON.parse(answer)).toEqual({ tool: tool.name, groupBy: "month", limit: 10 });
		} else {
			expect(run.toolNamesSeen[1]).not.toContain(tool.name);
			expect(answer).toBe(
				`Tool ${tool.name} not found: '${tool.name}' (v1) was forged during this prompt, and pi offers a new tool under its own name from the next prompt on. Nothing ran. Run it with use_forge_tool: ${JSON.stringify({ name: tool.name, args })}`,
			);
		}
	});

	it("a burst past the offered set's room: each forge result says truly whether the next prompt offers the tool", async () => {
		const { pi } = await startWithToolbox();
		const tools = TOPICS.map((topic) => realisticTool(`${topic}-report`, topic));
		const forged = await pi.run("make many", [
			tools.map((tool) => ({ name: "forge_tool", args: tool })),
			{ text: "ok" },
		]);
		expect(forged.toolEvents.filter((e) => e.isError)).toEqual([]);
		const promised = forged.toolEvents
			.filter((e) => OFFERED_DIRECTLY.test(e.text))
			.map((e) => OFFERED_DIRECTLY.exec(e.text)![1]);
		const refused = forged.toolEvents.filter((e) => NOT_OFFERED.test(e.text));
		expect(promised.length + refused.length).toBe(tools.length);
		expect(promised.length).toBeGreaterThan(0);
		expect(refused.length).toBeGreaterThan(0);
		expect(refused[0].text).toContain("Call it with use_forge_tool");

		const next = await pi.run("report", [{ text: "ok" }]);
		const offered = next.toolNamesSeen[0];
		for (const name of promised) expect(offered, name).toContain(name);
		for (const event of refused) expect(offered).not.toContain((event.args as { name: string }).name);
	});
});
