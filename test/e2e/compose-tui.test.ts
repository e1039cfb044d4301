// Composition as a person sees it in pi's TUI: the calls a forged tool makes through pi.useTool are shown nested under
// it, with their outcome and version, in the result on the screen.
import { afterEach, describe, expect, it } from "vitest";
import { prompt, startTui, type Tui } from "../helpers/tui.ts";

const TEXT = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const forge = (name: string, logic: string) => ({
	calls: [
		{
			name: "forge_tool",
			args: { name, description: `The ${name} tool.`, parametersSchema: TEXT, logic },
		},
	],
});

let tui: Tui | undefined;
afterEach(() => {
	tui?.stop();
	tui = undefined;
});

describe("nested calls in the TUI", () => {
	it("a composed tool's result shows the tools it called, nested under it", async () => {
		tui = await startTui([
			forge("word-count", "return { words: params.text.split(/\\s+/).filter(Boolean).length };"),
			forge(
				"shout-count",
				'const { words } = await pi.useTool("word-count", { text: params.text });\nconst listing = await pi.useTool("ls", { path: "." });\nreturn `${params.text.toUpperCase()} (${words} words, ${listing.split("\\n").length} entries)`;',
			),
			{ calls: [{ name: "use_forge_tool", args: { name: "shout-count", args: { text: "two words" } } }] },
			{ text: "composed-and-done" },
		]);
		await tui.waitFor("Evolved Tools: 0");
		const screen = await prompt(tui, "compose", "composed-and-done");
		expect(screen).toMatch(/✓ shout-count v1/);
		expect(screen).toMatch(/↳ ✓ word-count v1 · \d+ ms/);
		expect(screen).toMatch(/↳ ✓ ls · \d+ ms/);
		expect(screen).toContain("TWO WORDS (2 words,");
	});
});
