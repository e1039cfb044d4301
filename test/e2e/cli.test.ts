// The real pi command line: `pi -e <repo dir>` loads Agent Forge from package.json's pi manifest, in json mode,
// with a scripted model; two prompts are two agent runs, so the forged tool is called by name in the second.
import { describe, expect, it } from "vitest";
import { type JsonEvent, runPiJson } from "../helpers/pi-cli.ts";
import { makeTempDir } from "../helpers/pi-harness.ts";

const runPi = (cwd: string, script: unknown[], prompts: string[]) => runPiJson({ cwd, script, prompts });

const toolEnds = (events: JsonEvent[]) =>
	events
		.filter((e) => e.type === "tool_execution_end")
		.map((e) => ({
			tool: e.toolName,
			isError: e.isError,
			text: e.result?.content?.map((c) => c.text).join("") ?? "",
		}));

describe("pi command line", () => {
	it("forges and uses a tool in run 1, calls it by name in run 2, and it is still there in a new process", async () => {
		const cwd = await makeTempDir("forge-cli");
		const reverse = {
			name: "reverse",
			description: "Reverse a string.",
			parametersSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
			logic: "return [...params.text].reverse().join('');",
		};
		const first = await runPi(
			cwd,
			[
				{ calls: [{ name: "forge_tool", args: reverse }] },
				{ calls: [{ name: "use_forge_tool", args: { name: "reverse", args: { text: "abc" } } }] },
				{ text: "forged" },
				{ calls: [{ name: "reverse", args: { text: "pi" } }] },
				{ text: "done" },
			],
			["forge a reverser", "use it by name"],
		);
		expect(first.code, first.stderr).toBe(0);
		expect(toolEnds(first.events)).toEqual([
			{ tool: "forge_tool", isError: false, text: expect.stringContaining("Forged 'reverse' v1") },
			{ tool: "use_forge_tool", isError: false, text: "cba" },
			{ tool: "reverse", isError: false, text: "ip" },
		]);

		const second = await runPi(
			cwd,
			[{ calls: [{ name: "reverse", args: { text: "forge" } }] }, { text: "done" }],
			["again"],
		);
		expect(second.code, second.stderr).toBe(0);
		expect(toolEnds(second.events)).toEqual([{ tool: "reverse", isError: false, text: "egrof" }]);
	});
});

describe("pi exits promptly", () => {
	it("a run that never calls a forged tool still exits (the runner host started in the background is shut down)", async () => {
		const cwd = await makeTempDir("forge-exit");
		const started = Date.now();
		const { code, stderr } = await runPi(cwd, [{ text: "hi" }], ["hello"]);
		expect(code, stderr).toBe(0);
		expect(Date.now() - started).toBeLessThan(20_000);
	});
});
