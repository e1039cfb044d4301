// A user toolbox beside the project one, through the real pi: forge_tool with scope "user" forges into
// <agent dir>/forge/extensions/, every project sees it (another pi process too, at its next call), the project's tool
// wins a name clash, list_forge, /forge and the CLI show the scope, and promote/demote move a tool with its history.
import { spawnSync } from "node:child_process";
import { access, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runPiJson } from "../helpers/pi-cli.ts";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const REPO = resolve(import.meta.dirname, "../..");
const INDEX = join(REPO, "index.ts");
const BIN = join(REPO, "bin", "agent-forge.mjs");
let pi: PiHarness | undefined;

afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

const TEXT = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const forge = (name: string, logic: string, extra: Record<string, unknown> = {}) => ({
	name: "forge_tool",
	args: { name, description: `The ${name} tool of the user-toolbox tests.`, parametersSchema: TEXT, logic, ...extra },
});
const use = (name: string, text: string) => ({ name: "use_forge_tool", args: { name, args: { text } } });
const exists = (path: string) =>
	access(path).then(
		() => true,
		() => false,
	);

function cli(args: string[], cwd: string, agentDir: string) {
	const result = spawnSync(process.execPath, [BIN, ...args], {
		cwd,
		encoding: "utf8",
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_FORGE_DIR: "" },
	});
	return { code: result.status, out: result.stdout, err: result.stderr };
}

describe("the user toolbox", () => {
	it('scope "user" forges into <agent dir>/forge/extensions, and another project sees the tool', async () => {
		const agentDir = await makeTempDir("forge-user-agent");
		const first = await makeTempDir("forge-user-a");
		pi = await startPi({ extensionPaths: [INDEX], cwd: first, agentDir });
		const forged = await pi.run("forge", [
			[forge("shout", "return params.text.toUpperCase() + '!';", { scope: "user" })],
			[{ name: "list_forge", args: {} }],
			{ text: "ok" },
		]);
		expect(forged.toolEvents[0].isError, forged.toolEvents[0].text).toBe(false);
		expect(forged.toolEvents[0].text).toContain("user toolbox");
		expect(await exists(join(agentDir, "forge", "extensions", "forge-shout.ts"))).toBe(true);
		expect(await exists(join(first, ".pi", "forge", "extensions", "forge-shout.ts"))).toBe(false);
		expect(forged.toolEvents[1].text).toMatch(/shout.*\(user\)/);
		await pi.dispose();

		const second = await makeTempDir("forge-user-b");
		pi = await startPi({ extensionPaths: [INDEX], cwd: second, agentDir });
		const used = await pi.run("use", [
			[use("shout", "hey")],
			[{ name: "shout", args: { text: "by name" } }],
			{ text: "ok" },
		]);
		expect(used.toolEvents[0].isError, used.toolEvents[0].text).toBe(false);
		expect(used.toolEvents[0].text).toBe("HEY!");
		// Offered by its own name in the other project too.
		expect(used.toolEvents[1].isError, used.toolEvents[1].text).toBe(false);
		expect(used.toolEvents[1].text).toBe("BY NAME!");
	});

	it("a pi process already running in another project sees a user tool forged meanwhile, at its next call", async () => {
		const agentDir = await makeTempDir("forge-user-agent");
		const other = await makeTempDir("forge-user-other");
		const flag = join(agentDir, "forged.flag");
		const waiting = runPiJson({
			cwd: other,
			agentDir,
			prompts: ["wait, then use"],
			// The scripted provider's steps: { calls: [...] } or { text }.
			script: [
				{ calls: [{ name: "list_forge", args: {} }] },
				{
					calls: [
						{
							name: "bash",
							args: { command: `for i in $(seq 200); do [ -f '${flag}' ] && break; sleep 0.1; done` },
						},
					],
				},
				{ calls: [use("whisper", "HEY")] },
				{ text: "done" },
			],
		});
		pi = await startPi({ extensionPaths: [INDEX], cwd: await makeTempDir("forge-user-a"), agentDir });
		const forged = await pi.run("forge", [
			[forge("whisper", "return params.text.toLowerCase() + '...';", { scope: "user" })],
			{ text: "ok" },
		]);
		expect(forged.toolEvents[0].isError, forged.toolEvents[0].text).toBe(false);
		await writeFile(flag, "");
		const run = await waiting;
		const call = run.ends.find((end) => end.tool === "use_forge_tool");
		expect(call?.isError, `${run.stderr}\n${JSON.stringify(run.ends)}`).toBe(false);
		expect(call?.text).toBe("hey...");
	});

	it("the project's tool wins a name clash, and list_forge says which one is used", async () => {
		const agentDir = await makeTempDir("forge-user-agent");
		pi = await startPi({ extensionPaths: [INDEX], cwd: await makeTempDir("forge-user-a"), agentDir });
		const run = await pi.run("forge", [
			[forge("greet", "return 'hello from the user toolbox';", { scope: "user" })],
			[forge("greet", "return 'hello from the project';")],
			[use("greet", "x")],
			[{ name: "list_forge", args: { name: "greet" } }],
			{ text: "ok" },
		]);
		expect(run.toolEvents[1].isError, run.toolEvents[1].text).toBe(false);
		expect(run.toolEvents[1].text).toContain("the user toolbox's 'greet'");
		expect(run.toolEvents[2].text).toBe("hello from the project");
		expect(run.toolEvents[3].text).toMatch(/Scope: project/);
		expect(run.toolEvents[3].text).toContain("user toolbox also has a 'greet'");
	});

	it("agent-forge promote moves a tool with its history to the user toolbox; demote brings it back; list shows the scope", async () => {
		const agentDir = await makeTempDir("forge-user-agent");
		const cwd = await makeTempDir("forge-user-a");
		pi = await startPi({ extensionPaths: [INDEX], cwd, agentDir });
		await pi.run("forge", [
			[forge("count-chars", "return params.text.length;")],
			[forge("count-chars", "return String(params.text.length);")],
			{ text: "ok" },
		]);
		await pi.dispose();
		pi = undefined;
		const project = join(cwd, ".pi", "forge", "extensions");
		const user = join(agentDir, "forge", "extensions");

		const promoted = cli(["promote", "count-chars"], cwd, agentDir);
		expect(promoted.code, promoted.err).toBe(0);
		expect(promoted.out).toContain("count-chars");
		expect(await exists(join(user, "forge-count-chars.ts"))).toBe(true);
		expect(await exists(join(project, "forge-count-chars.ts"))).toBe(false);
		const listed = cli(["list"], cwd, agentDir);
		expect(listed.out).toMatch(/count-chars.*user/);
		const history = cli(["history", "count-chars"], cwd, agentDir);
		expect(history.code, history.err).toBe(0);
		expect(history.out).toMatch(/v1/);
		expect(history.out).toMatch(/v2/);

		const again = cli(["promote", "count-chars"], cwd, agentDir);
		expect(again.code).toBe(1);
		expect(again.err).toContain("no tool named 'count-chars' in the project toolbox");

		const demoted = cli(["demote", "count-chars"], cwd, agentDir);
		expect(demoted.code, demoted.err).toBe(0);
		expect(await exists(join(project, "forge-count-chars.ts"))).toBe(true);
		expect(await exists(join(user, "forge-count-chars.ts"))).toBe(false);
		expect(await readFile(join(project, "forge-count-chars.ts"), "utf8")).toContain("String(params.text.length)");
	});

	it("/forge promote and demote do the same inside pi", async () => {
		const agentDir = await makeTempDir("forge-user-agent");
		const cwd = await makeTempDir("forge-user-a");
		pi = await startPi({ extensionPaths: [INDEX], cwd, agentDir });
		await pi.run("forge", [[forge("echo-back", "return params.text;")], { text: "ok" }]);
		await pi.session.prompt("/forge promote echo-back");
		expect(await exists(join(agentDir, "forge", "extensions", "forge-echo-back.ts"))).toBe(true);
		expect(await exists(join(cwd, ".pi", "forge", "extensions", "forge-echo-back.ts"))).toBe(false);
		const used = await pi.run("use", [
			[use("echo-back", "still here")],
			[{ name: "list_forge", args: {} }],
			{ text: "ok" },
		]);
		expect(used.toolEvents[0].text).toBe("still here");
		expect(used.toolEvents[1].text).toMatch(/echo-back.*\(user\)/);
		await pi.session.prompt("/forge demote echo-back");
		expect(await exists(join(cwd, ".pi", "forge", "extensions", "forge-echo-back.ts"))).toBe(true);
	});
	it("a scope that is neither project nor user is refused, naming the two there are", async () => {
		pi = await startPi({ extensionPaths: [INDEX], cwd: await makeTempDir("forge-user-a") });
		const run = await pi.run("forge", [[forge("everywhere", "return 1;", { scope: "global" })], { text: "ok" }]);
		expect(run.toolEvents[0].isError).toBe(true);
		expect(run.toolEvents[0].text).toContain('scope is "project" or "user", not "global".');
	});
	it("a user tool that calls a tool only this project has is told that other projects will not find it", async () => {
		pi = await startPi({ extensionPaths: [INDEX], cwd: await makeTempDir("forge-user-a") });
		const run = await pi.run("forge", [
			[forge("local-helper", "return params.text;")],
			[forge("shared-caller", 'return await pi.useTool("local-helper", { text: params.text });', { scope: "user" })],
			{ text: "ok" },
		]);
		expect(run.toolEvents[1].isError, run.toolEvents[1].text).toBe(false);
		expect(run.toolEvents[1].text).toContain(
			"'shared-caller' is in the user toolbox but calls 'local-helper', which only this project's toolbox has",
		);
	});
});
