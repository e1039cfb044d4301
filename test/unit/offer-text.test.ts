// What the model is told about forged tools that are not offered: a bounded note, the forge result's promise, and the
// answer to a call by name.
import { describe, expect, it } from "vitest";
import { NOTE_NAMES_CHARS, notOfferedAnswer, notOfferedNote, offerLine } from "../../src/pi/offer-text.ts";

describe("notOfferedNote", () => {
	it("says nothing when every forged tool is offered", () => {
		expect(notOfferedNote([])).toBeUndefined();
	});

	it("names every tool left out when they fit, and how to run them", () => {
		expect(notOfferedNote(["csv-stats", "tide-table"])).toBe(
			"Forged tools not offered as tools of their own: csv-stats, tide-table. Run one with use_forge_tool {name, args}.",
		);
	});

	it("stays bounded at 10,000 tools: the first names, then a count and how to find the rest", () => {
		const names = Array.from({ length: 10_000 }, (_, i) => `generated-tool-${i}`);
		const note = notOfferedNote(names)!;
		expect(note.length).toBeLessThan(NOTE_NAMES_CHARS + 160);
		expect(note).toContain("generated-tool-0, generated-tool-1");
		const shown = note.match(/generated-tool-\d+/g)!.length;
		expect(note).toContain(` and ${(10_000 - shown).toLocaleString("en-US")} more (list_forge {query} finds them).`);
		expect(note).toContain("use_forge_tool");
	});
});

describe("offerLine", () => {
	it("promises the next prompt, or says why not and what to call instead", () => {
		expect(offerLine("pager", { offered: true })).toBe(
			"From the next prompt on it is also offered directly as the tool 'pager' (or through use_forge_tool).",
		);
		const refused = offerLine("pager", { offered: false, forgedThisRun: 13, limit: 12, budget: 1600 });
		expect(refused).toContain(
			"not offered as a tool of its own in the next prompt: the 13 tools forged in this prompt",
		);
		expect(refused).toContain("Call it with use_forge_tool.");
	});
});

describe("notOfferedAnswer", () => {
	it("keeps pi's words, says what the tool is and gives the call with the model's own arguments", () => {
		const text = notOfferedAnswer("tide-table", 3, { harbour: "Oban" }, "ok");
		expect(text.startsWith("Tool tide-table not found: 'tide-table' (v3) is a forged tool")).toBe(true);
		expect(text).toContain(
			'Nothing ran. Run it with use_forge_tool: {"name":"tide-table","args":{"harbour":"Oban"}}',
		);
	});

	it("a tool forged during this prompt: pi offers it by name from the next prompt; run it now with use_forge_tool", () => {
		const text = notOfferedAnswer("tide-table", 1, { harbour: "Oban" }, "ok", true);
		expect(text).toContain(
			"'tide-table' (v1) was forged during this prompt, and pi offers a new tool under its own name from the next prompt on.",
		);
		expect(text).toContain('Run it with use_forge_tool: {"name":"tide-table","args":{"harbour":"Oban"}}');
	});

	it("a broken tool: where to read why and how to repair it", () => {
		expect(notOfferedAnswer("tide-table", 2, {}, "broken")).toContain(
			`It is broken: list_forge {"name":"tide-table"} shows why; repair it with forge_tool.`,
		);
	});
});
