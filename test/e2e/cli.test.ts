// The real pi command line: `pi -e <repo dir>` loads Agent Forge from package.json's pi manifest, in json mode,
// with a scripted model; two prompts are two agent runs, so the forged tool is called by name in the second.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/pi-harness.ts";
import { PI_CLI } from "../helpers/pi-line.ts";

const REPO = resolve(import.meta.dirname, "../..");
const PROVIDER = join(REPO, "test", "fixtures", "scripted-provider.ts");

interface JsonEvent { type: string; toolName?: string; isError?: boolean; result?: { content?: Array<{ type: string; text?: string }> } }

async function runPi(cwd: string, script: unknown[], prompts: string[]): Promise<{ events: JsonEvent[]; stderr: string; code: number | null }> {
	const agentDir = await makeTempDir("forge-cli-agent");
	const scriptPath = join(agentDir, "script.json");
	await writeFile(scriptPath, JSON.stringify(script));
	const child = spawn(process.execPath, [PI_CLI, "--provider", "scripted", "--model", "s", "-e", PROVIDER, "-e", REPO, "--no-session", "--mode", "json", ...prompts], {
		cwd,
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", FORGE_SCRIPT: scriptPath },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (d) => (stdout += d));
	child.stderr.on("data", (d) => (stderr += d));
	const code = await new Promise<number | null>((done) => child.on("close", done));
	const events = stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as JsonEvent);
	return { events, stderr, code };
}

const toolEnds = (events: JsonEvent[]) =>
	events.filter((e) => e.type === "tool_execution_end").map((e) => ({ tool: e.toolName, isError: e.isError, text: e.result?.content?.map((c) => c.text).join("") ?? "" }));

describe("pi command line", () => {
	it("forges and uses a tool in run 1, calls it by name in run 2, and it is still there in a new process", async () => {
		const cwd = await makeTempDir("forge-cli");
		const reverse = {
			name: "reverse",
			description: "Reverse a string.",
			parametersSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
			logic: "return [...params.text].reverse().join('');",
		};
		const first = await runPi(cwd, [
			{ calls: [{ name: "forge_tool", args: reverse }] },
			{ calls: [{ name: "use_forge_tool", args: { name: "reverse", args: { text: "abc" } } }] },
			{ text: "forged" },
			{ calls: [{ name: "reverse", args: { text: "pi" } }] },
			{ text: "done" },
		], ["forge a reverser", "use it by name"]);
		expect(first.code, first.stderr).toBe(0);
		expect(toolEnds(first.events)).toEqual([
			{ tool: "forge_tool", isError: false, text: expect.stringContaining("Forged 'reverse' v1") },
			{ tool: "use_forge_tool", isError: false, text: "cba" },
			{ tool: "reverse", isError: false, text: "ip" },
		]);

		const second = await runPi(cwd, [{ calls: [{ name: "reverse", args: { text: "forge" } }] }, { text: "done" }], ["again"]);
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
