// The forge speaks up through the real pi: the third shell command of one kind in a session gets one line suggesting a
// forged tool (naming one that fits, if the toolbox has it); once per pattern; never with PI_FORGE_SUGGEST=off.
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const SUGGESTION = /\[Agent Forge\] This is the third `grep -rn …` command in this session/;
let pi: PiHarness | undefined;

afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

async function project(): Promise<string> {
	const cwd = await makeTempDir("forge-speak-up");
	for (const dir of ["src", "lib", "docs"]) {
		await mkdir(join(cwd, dir));
		await writeFile(join(cwd, dir, "a.ts"), "// TODO: one\n// FIXME: two\n");
	}
	return cwd;
}

const bash = (command: string) => [{ name: "bash", args: { command } }];

describe("speaking up about repeated shell commands", () => {
	it("the third grep of the same kind gets one line (and the fourth does not); other commands are counted apart", async () => {
		pi = await startPi({ extensionPaths: [INDEX], cwd: await project() });
		const run = await pi.run("look for markers", [
			bash("grep -rn TODO src"),
			bash("git --version"),
			bash("grep -rn FIXME lib"),
			bash("grep -rn TODO docs"),
			bash("grep -rn HACK src"),
			{ text: "done" },
		]);
		const texts = run.toolEvents.map((event) => event.text);
		expect(texts.map((text) => SUGGESTION.test(text))).toEqual([false, false, false, true, false]);
		expect(texts[3]).toContain("forge_tool can make it a checked, reusable tool");
		expect(texts[3]).toContain("docs/a.ts:1:// TODO: one"); // the command's own output is all still there
	});

	it("names a forged tool that list_forge finds for the command", async () => {
		pi = await startPi({ extensionPaths: [INDEX], cwd: await project() });
		const forged = await pi.run("forge", [
			[
				{
					name: "forge_tool",
					args: {
						name: "todo-scan",
						description: "Find TODO and FIXME comments (grep) in the project's source files, with file and line.",
						parametersSchema: { type: "object", properties: { dir: { type: "string" } }, required: ["dir"] },
						logic: "return params.dir;",
					},
				},
			],
			{ text: "ok" },
		]);
		expect(forged.toolEvents[0].isError, forged.toolEvents[0].text).toBe(false);
		const run = await pi.run("grep", [
			bash("grep -rn TODO src"),
			bash("grep -rn TODO lib"),
			bash("grep -rn TODO docs"),
			{ text: "done" },
		]);
		expect(run.toolEvents[2].text).toContain("the forged tool 'todo-scan' may do it in one call");
	});

	it("says nothing with PI_FORGE_SUGGEST=off", async () => {
		pi = await startPi({ extensionPaths: [INDEX], cwd: await project(), env: { PI_FORGE_SUGGEST: "off" } });
		const run = await pi.run("grep", [
			bash("grep -rn TODO src"),
			bash("grep -rn TODO lib"),
			bash("grep -rn TODO docs"),
			{ text: "done" },
		]);
		expect(run.toolEvents).toHaveLength(3);
		expect(run.toolEvents.some((event) => event.text.includes("[Agent Forge]"))).toBe(false);
	});
});
