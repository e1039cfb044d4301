// The core loop through the real pi: forge → use in the same run → call by name in the next run →
// broken re-forge (old version still live, .bak is the old version) → restart pi, the toolbox is still there.
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");

const wordCount = {
	name: "word-count",
	description: "Count the words in a text.",
	parametersSchema: {
		type: "object",
		properties: { text: { type: "string", description: "The text" } },
		required: ["text"],
	},
	logic: "const words = params.text.split(/\\s+/).filter(Boolean);\nreturn { words: words.length };",
};

let pi: PiHarness | undefined;
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

describe("the core loop in the real pi", () => {
	it("forges, uses at once, calls by name next run, survives a broken re-forge and a restart", async () => {
		const cwd = await makeTempDir("forge-e2e");
		const agentDir = await makeTempDir("forge-agent");
		pi = await startPi({ extensionPaths: [INDEX], cwd, agentDir });

		const first = await pi.run("make a word counter", [
			[{ name: "forge_tool", args: wordCount }],
			[{ name: "use_forge_tool", args: { name: "word-count", args: { text: "one two three" } } }],
			{ text: "done" },
		]);
		const [forged, used] = first.toolEvents;
		expect(forged.isError, forged.text).toBe(false);
		expect(forged.text).toContain("Forged 'word-count' v1");
		expect(used.isError, used.text).toBe(false);
		expect(JSON.parse(used.text)).toEqual({ words: 3 });
		expect(first.toolNamesSeen[0]).not.toContain("word-count");

		const second = await pi.run("count again", [[{ name: "word-count", args: { text: "a b" } }], { text: "ok" }]);
		expect(second.toolNamesSeen[0]).toContain("word-count");
		expect(second.toolEvents[0].isError, second.toolEvents[0].text).toBe(false);
		expect(JSON.parse(second.toolEvents[0].text)).toEqual({ words: 2 });

		const toolbox = join(cwd, ".pi", "forge", "extensions");
		const v1 = await readFile(join(toolbox, "forge-word-count.ts"), "utf8");
		const third = await pi.run("count characters too", [
			[
				{
					name: "forge_tool",
					args: {
						...wordCount,
						logic: "const words = params.text.split(/\\s+/).filter(Boolean);\nreturn { words: words.length, characters: params.text.length };",
					},
				},
			],
			{ text: "ok" },
		]);
		expect(third.toolEvents[0].text).toContain("The previous version v1 is kept as forge-word-count.ts.bak");
		expect(await readFile(join(toolbox, "forge-word-count.ts.bak"), "utf8")).toBe(v1);
		const v2 = await readFile(join(toolbox, "forge-word-count.ts"), "utf8");

		const fourth = await pi.run("break it", [
			[
				{
					name: "forge_tool",
					args: {
						...wordCount,
						logic: "const words = params.text.split(/\\s+/)\nreturn { words: words.length ) };",
					},
				},
			],
			[{ name: "use_forge_tool", args: { name: "word-count", args: { text: "still works" } } }],
			{ text: "ok" },
		]);
		const [broken, stillWorks] = fourth.toolEvents;
		expect(broken.isError).toBe(true);
		expect(broken.text).toMatch(/phase: syntax/);
		expect(broken.text).toMatch(/forge-word-count\.ts:24:\d+ \(line 2 of the logic\)/);
		expect(broken.text).toContain("Source of forge-word-count.ts");
		expect(stillWorks.isError, stillWorks.text).toBe(false);
		expect(JSON.parse(stillWorks.text)).toEqual({ words: 2, characters: 11 });
		expect(await readFile(join(toolbox, "forge-word-count.ts"), "utf8")).toBe(v2);
		expect(await readFile(join(toolbox, "forge-word-count.ts.bak"), "utf8")).toBe(v1);

		await pi.dispose();
		pi = await startPi({ extensionPaths: [INDEX], cwd, agentDir });
		const afterRestart = await pi.run("after restart", [
			[{ name: "word-count", args: { text: "x y z w" } }],
			[{ name: "list_forge", args: {} }],
			{ text: "ok" },
		]);
		expect(afterRestart.toolNamesSeen[0]).toContain("word-count");
		expect(JSON.parse(afterRestart.toolEvents[0].text)).toEqual({ words: 4, characters: 7 });
		expect(afterRestart.toolEvents[1].text).toMatch(/word-count v2 \[ok, draft\]/);
	});
});
