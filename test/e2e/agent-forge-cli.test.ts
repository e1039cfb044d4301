// The agent-forge command against temp toolboxes (healthy and broken), and sharing: export a toolbox as a pi package,
// `pi install` it into a fresh agent dir, and call its tools there through the real pi; import it back.
import { spawn, spawnSync } from "node:child_process";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/pi-harness.ts";
import { PI_CLI } from "../helpers/pi-line.ts";

const REPO = resolve(import.meta.dirname, "../..");
const BIN = join(REPO, "bin", "agent-forge.mjs");
const PROVIDER = join(REPO, "test", "fixtures", "scripted-provider.ts");
const SAMPLES = join(REPO, "extensions");

async function projectWithSamples(): Promise<{ cwd: string; agentDir: string; toolbox: string }> {
	const cwd = await makeTempDir("forge-cli-project");
	const toolbox = join(cwd, ".pi", "forge", "extensions");
	await mkdir(toolbox, { recursive: true });
	await cp(SAMPLES, toolbox, { recursive: true });
	return { cwd, agentDir: await makeTempDir("forge-cli-agent"), toolbox };
}

function cli(cwd: string, agentDir: string, ...args: string[]) {
	const result = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir }, encoding: "utf8" });
	return { code: result.status, out: result.stdout, err: result.stderr };
}

describe("agent-forge", () => {
	it("lists, shows, and checks a healthy toolbox", async () => {
		const { cwd, agentDir } = await projectWithSamples();
		const list = cli(cwd, agentDir, "list");
		expect(list.code).toBe(0);
		expect(list.out).toMatch(/^TOOL\s+VER\s+STATE/);
		expect(list.out).toMatch(/word-count\s+v1\s+verified/);
		const json = JSON.parse(cli(cwd, agentDir, "list", "--json").out) as Array<{ name: string }>;
		expect(json.map((t) => t.name)).toEqual(["json-pick", "todo-scan", "word-count"]);
		const show = cli(cwd, agentDir, "show", "json-pick");
		expect(show.out).toContain("json-pick v1 — ok, verified (1 tests)");
		expect(show.out).toContain("file: string — JSON file, relative to the project");
		const check = cli(cwd, agentDir, "check");
		expect(check.code).toBe(0);
		expect(check.out).toContain("3 passed, 0 failed");
	});

	it("check fails (exit 1) on a broken tool, naming it with its location, and passes the others", async () => {
		const { cwd, agentDir, toolbox } = await projectWithSamples();
		const path = join(toolbox, "forge-word-count.ts");
		await writeFile(path, (await readFile(path, "utf8")).replace("return { words, lines, characters: text.length };", 'const os = require("os");\nreturn os;'));
		const check = cli(cwd, agentDir, "check");
		expect(check.code).toBe(1);
		expect(check.out).toMatch(/✗ word-count v1: import at forge-word-count\.ts:\d+:\d+ — require of 'os' is outside the core library/);
		expect(check.out).toContain("✓ json-pick v1");
		expect(check.out).toContain("2 passed, 1 failed");
		expect(JSON.parse(cli(cwd, agentDir, "check", "--json").out).find((v: { name: string }) => v.name === "word-count").ok).toBe(false);
	});

	it("rolls back, removes, and answers usage errors with exit 2", async () => {
		const { cwd, agentDir, toolbox } = await projectWithSamples();
		expect(cli(cwd, agentDir, "history", "word-count").out).toMatch(/v1\s+recovered/);
		const path = join(toolbox, "forge-word-count.ts");
		await writeFile(path, (await readFile(path, "utf8")).replace("characters: text.length", "characters: -1"));
		expect(cli(cwd, agentDir, "list").out).toMatch(/word-count\s+v2\s+unverified/);
		const rolled = cli(cwd, agentDir, "rollback", "word-count", "1");
		expect(rolled.out).toContain("Rolled 'word-count' back to v1: it is now v3.");
		expect(await readFile(path, "utf8")).toContain("characters: text.length");
		expect(cli(cwd, agentDir, "diff", "word-count", "2", "3").out).toContain("-return { words, lines, characters: -1 };");
		expect(cli(cwd, agentDir, "remove", "todo-scan").code).toBe(0);
		expect(cli(cwd, agentDir, "list").out).not.toContain("todo-scan");
		expect(cli(cwd, agentDir, "frobnicate").code).toBe(2);
		expect(cli(cwd, agentDir, "rollback", "word-count").code).toBe(2);
		expect(cli(cwd, agentDir, "show", "nope").code).toBe(1);
	});

	it("exports a pi package that works after pi install in a fresh agent dir; imports it into another toolbox", async () => {
		const { cwd, agentDir } = await projectWithSamples();
		const out = join(await makeTempDir("forge-export"), "team-tools");
		const exported = cli(cwd, agentDir, "export", out, "word-count", "json-pick");
		expect(exported.code, exported.err).toBe(0);
		const manifest = JSON.parse(await readFile(join(out, "package.json"), "utf8"));
		expect(manifest.pi).toEqual({ extensions: ["./index.ts"] });

		const freshAgent = await makeTempDir("forge-fresh-agent");
		const install = spawnSync(process.execPath, [PI_CLI, "install", out], { env: { ...process.env, PI_CODING_AGENT_DIR: freshAgent, PI_OFFLINE: "1" }, encoding: "utf8" });
		expect(install.status, install.stderr).toBe(0);

		const elsewhere = await makeTempDir("forge-elsewhere");
		await writeFile(join(elsewhere, "data.json"), JSON.stringify({ team: { lead: "Ada" } }));
		const script = join(freshAgent, "script.json");
		await writeFile(script, JSON.stringify([
			{ calls: [{ name: "word-count", args: { text: "one two three" } }, { name: "json-pick", args: { file: "data.json", path: "team.lead" } }] },
			{ text: "done" },
		]));
		const child = spawn(process.execPath, [PI_CLI, "--provider", "scripted", "--model", "s", "-e", PROVIDER, "--no-session", "--mode", "json", "use the team's tools"], {
			cwd: elsewhere,
			env: { ...process.env, PI_CODING_AGENT_DIR: freshAgent, PI_OFFLINE: "1", FORGE_SCRIPT: script },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		child.stdout.on("data", (d) => (stdout += d));
		expect(await new Promise((done) => child.on("exit", done))).toBe(0);
		const ends = stdout.split("\n").filter((l) => l.includes('"tool_execution_end"')).map((l) => JSON.parse(l));
		const texts = Object.fromEntries(ends.map((e) => [e.toolName, e.result.content[0].text]));
		expect(JSON.parse(texts["word-count"])).toEqual({ words: 3, lines: 1, characters: 13 });
		expect(texts["json-pick"]).toBe("Ada");

		const other = await makeTempDir("forge-import");
		const imported = cli(other, agentDir, "import", out);
		expect(imported.code, imported.err).toBe(0);
		expect(imported.out).toContain("✓ word-count imported as v1");
		expect(cli(other, agentDir, "import", out).out).toContain("- word-count skipped: a tool of that name is already in the toolbox");
		expect(cli(other, agentDir, "check").out).toContain("2 passed, 0 failed");
	});
});
