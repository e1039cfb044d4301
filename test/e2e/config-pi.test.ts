// Configuration problems through the real pi command line in json mode (no UI): a mistyped PI_FORGE_POLICY is
// reported on stderr and means strict — a write that a remembered grant allows under prompt is refused.
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPiJson } from "../helpers/pi-cli.ts";
import { makeTempDir } from "../helpers/pi-harness.ts";

/** A project, a folder outside it and outside pi's temp dir, and an agent dir whose grants let 'writer' write there. */
async function setUp() {
	const root = await realpath(await makeTempDir("forge-config-pi"));
	const cwd = join(root, "project");
	const outside = join(root, "outside");
	const tmp = join(root, "tmp");
	const agentDir = join(root, "agent");
	await Promise.all([cwd, outside, tmp, join(agentDir, "forge")].map((dir) => mkdir(dir, { recursive: true })));
	const grants = { projects: { [cwd]: { writer: { allow: [`write:${outside}/`], deny: [] } } } };
	await writeFile(join(agentDir, "forge", "grants.json"), JSON.stringify(grants), { mode: 0o600 });
	return { cwd, outside, tmp, agentDir };
}

async function runPi(setup: Awaited<ReturnType<typeof setUp>>, policy: string, target: string) {
	const writer = {
		name: "writer",
		description: "Write a note to a file.",
		parametersSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
		logic: 'import { writeFile } from "node:fs/promises";\nawait writeFile(params.path, "note");\nreturn "written";',
	};
	const { code, stderr, ends } = await runPiJson({
		cwd: setup.cwd,
		agentDir: setup.agentDir,
		prompts: ["write a note"],
		env: { PI_FORGE_POLICY: policy, TMPDIR: setup.tmp },
		script: [
			{ calls: [{ name: "forge_tool", args: writer }] },
			{ calls: [{ name: "use_forge_tool", args: { name: "writer", args: { path: target } } }] },
			{ text: "done" },
		],
	});
	return { code, stderr, ends };
}

describe("configuration problems in json mode", () => {
	it("PI_FORGE_POLICY=prompt: the remembered grant lets the tool write outside the project (the control)", async () => {
		const setup = await setUp();
		const target = join(setup.outside, "prompt.txt");
		const run = await runPi(setup, "prompt", target);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stderr).not.toContain("Agent Forge:");
		expect(run.ends.map((e) => [e.tool, e.isError])).toEqual([
			["forge_tool", false],
			["use_forge_tool", false],
		]);
		expect(await readFile(target, "utf8")).toBe("note");
	});

	it("PI_FORGE_POLICY=stirct: one stderr line names the variable and says strict; the same write is refused as under strict", async () => {
		const setup = await setUp();
		const target = join(setup.outside, "stirct.txt");
		const run = await runPi(setup, "stirct", target);
		expect(run.code, run.stderr).toBe(0);
		const lines = run.stderr.split("\n").filter((line) => line.startsWith("Agent Forge:"));
		expect(lines).toEqual([
			"Agent Forge: warning: PI_FORGE_POLICY=stirct is not one of strict, prompt, permissive; using strict",
		]);
		expect(run.ends[0]).toMatchObject({ tool: "forge_tool", isError: false });
		expect(run.ends[1]).toMatchObject({ tool: "use_forge_tool", isError: true });
		expect(run.ends[1].text).toContain("PI_FORGE_POLICY=strict never grants");
		await expect(readFile(target, "utf8")).rejects.toThrow(/ENOENT/);
	});
});
