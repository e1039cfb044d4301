// The agent-forge command against temp toolboxes (healthy, broken, edited by hand, absent): usage, exit codes, versions,
// read-only commands that leave the project byte-for-byte as it was; and sharing: export a toolbox as a pi package,
// `pi install` it into a fresh agent dir, and call its tools there through the real pi; import it back.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runPiJson } from "../helpers/pi-cli.ts";
import { makeTempDir } from "../helpers/pi-harness.ts";
import { PI_CLI } from "../helpers/pi-line.ts";

const REPO = resolve(import.meta.dirname, "../..");
const BIN = join(REPO, "bin", "agent-forge.mjs");
const SAMPLES = join(REPO, "extensions");

async function projectWithSamples(): Promise<{ cwd: string; agentDir: string; toolbox: string }> {
	const cwd = await makeTempDir("forge-cli-project");
	const toolbox = join(cwd, ".pi", "forge", "extensions");
	await mkdir(toolbox, { recursive: true });
	await cp(SAMPLES, toolbox, { recursive: true });
	return { cwd, agentDir: await makeTempDir("forge-cli-agent"), toolbox };
}

function cli(cwd: string, agentDir: string, ...args: string[]) {
	const env: NodeJS.ProcessEnv = { ...process.env, PI_CODING_AGENT_DIR: agentDir };
	delete env.PI_FORGE_DIR;
	delete env.PI_FORGE_POLICY;
	const result = spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: "utf8" });
	return { code: result.status, out: result.stdout, err: result.stderr };
}

/** Every file and folder under `dir`, files with their bytes (base64): equal trees are byte-for-byte the same. */
async function tree(dir: string): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
		const path = join(entry.parentPath, entry.name);
		out[relative(dir, path)] = entry.isFile() ? (await readFile(path)).toString("base64") : "<dir>";
	}
	return out;
}

/** A project whose toolbox is the samples imported by the command line (so each has a history), nothing else. */
async function projectWithImportedSamples(): Promise<{ cwd: string; agentDir: string; toolbox: string }> {
	const cwd = await makeTempDir("forge-cli-imported");
	const agentDir = await makeTempDir("forge-cli-agent");
	const imported = cli(cwd, agentDir, "import", SAMPLES);
	expect(imported.code, imported.err).toBe(0);
	return { cwd, agentDir, toolbox: join(cwd, ".pi", "forge", "extensions") };
}

const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

/** Replaces text in a tool's file (a hand edit). */
async function editTool(toolbox: string, name: string, from: string, to: string): Promise<void> {
	const path = join(toolbox, `forge-${name}.ts`);
	const text = await readFile(path, "utf8");
	expect(text).toContain(from);
	await writeFile(path, text.replace(from, to));
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
		await writeFile(
			path,
			(await readFile(path, "utf8")).replace(
				"return { words, lines, characters: text.length };",
				'const os = require("os");\nreturn os;',
			),
		);
		const check = cli(cwd, agentDir, "check");
		expect(check.code).toBe(1);
		expect(check.out).toMatch(
			/✗ word-count v1 \(edited by hand\): import at forge-word-count\.ts:\d+:\d+ — require of 'os' is outside the core library/,
		);
		expect(check.out).toContain("✓ json-pick v1");
		expect(check.out).toContain("2 passed, 1 failed");
		expect(
			JSON.parse(cli(cwd, agentDir, "check", "--json").out).find((v: { name: string }) => v.name === "word-count")
				.ok,
		).toBe(false);
	});

	it("exports a pi package that works after pi install in a fresh agent dir; imports it into another toolbox", async () => {
		const { cwd, agentDir } = await projectWithSamples();
		const out = join(await makeTempDir("forge-export"), "team-tools");
		const exported = cli(cwd, agentDir, "export", out, "word-count", "json-pick");
		expect(exported.code, exported.err).toBe(0);
		const manifest = JSON.parse(await readFile(join(out, "package.json"), "utf8"));
		expect(manifest.pi).toEqual({ extensions: ["./index.ts"] });

		const freshAgent = await makeTempDir("forge-fresh-agent");
		const install = spawnSync(process.execPath, [PI_CLI, "install", out], {
			env: { ...process.env, PI_CODING_AGENT_DIR: freshAgent, PI_OFFLINE: "1" },
			encoding: "utf8",
		});
		expect(install.status, install.stderr).toBe(0);

		const elsewhere = await makeTempDir("forge-elsewhere");
		await writeFile(join(elsewhere, "data.json"), JSON.stringify({ team: { lead: "Ada" } }));
		const run = await runPiJson({
			cwd: elsewhere,
			agentDir: freshAgent,
			extension: false,
			script: [
				{
					calls: [
						{ name: "word-count", args: { text: "one two three" } },
						{ name: "json-pick", args: { file: "data.json", path: "team.lead" } },
					],
				},
				{ text: "done" },
			],
			prompts: ["use the team's tools"],
		});
		expect(run.code, run.stderr).toBe(0);
		const texts = Object.fromEntries(run.ends.map((end) => [end.tool, end.text]));
		expect(JSON.parse(texts["word-count"])).toEqual({ words: 3, lines: 1, characters: 13 });
		expect(texts["json-pick"]).toBe("Ada");

		const other = await makeTempDir("forge-import");
		const imported = cli(other, agentDir, "import", out);
		expect(imported.code, imported.err).toBe(0);
		expect(imported.out).toContain("✓ word-count imported as v1");
		expect(cli(other, agentDir, "import", out).out).toContain(
			"- word-count skipped: a tool of that name is already in the toolbox",
		);
		expect(cli(other, agentDir, "check").out).toContain("2 passed, 0 failed");
	});
});

describe("agent-forge as a command line", () => {
	it("prints the usage on stdout with exit 0 (--help, -h, help, no command), exit codes included; --version prints the package's version", async () => {
		const cwd = await makeTempDir("forge-cli-help");
		const agentDir = await makeTempDir("forge-cli-agent");
		for (const args of [["--help"], ["-h"], ["help"], [], ["list", "--help"]]) {
			const run = cli(cwd, agentDir, ...args);
			expect(run.code, args.join(" ")).toBe(0);
			expect(run.err).toBe("");
			expect(run.out).toMatch(/^Usage: agent-forge <command>/);
			expect(run.out).toContain("Exit codes:\n  0  ok\n  1  failed");
			expect(run.out).toContain("  2  usage error");
		}
		const { version } = JSON.parse(await readFile(join(REPO, "package.json"), "utf8"));
		for (const flag of ["--version", "-v"])
			expect(cli(cwd, agentDir, flag)).toEqual({ code: 0, out: `${version}\n`, err: "" });
		expect(await readdir(cwd)).toEqual([]);
	});

	it("answers a usage error with one line on stderr, the way to the usage, exit 2 and no stack trace", async () => {
		const cwd = await makeTempDir("forge-cli-usage");
		const agentDir = await makeTempDir("forge-cli-agent");
		const file = join(cwd, "a-file");
		await writeFile(file, "");
		const cases: Array<[string[], string]> = [
			[["frobnicate"], "agent-forge: unknown command 'frobnicate'"],
			[["show"], "agent-forge: missing arguments: agent-forge show <tool>"],
			[["show", "a", "b"], "agent-forge: too many arguments: agent-forge show <tool>"],
			[["rollback", "word-count"], "agent-forge: missing arguments: agent-forge rollback <tool> <version>"],
			[["rollback", "word-count", "two"], "agent-forge: 'two' is not a version: give N or vN (e.g. v2)."],
			[["diff", "word-count", "v0"], "agent-forge: 'v0' is not a version"],
			[["list", "--force"], "agent-forge: --force applies to import, promote, demote only, not to list."],
			[["--bogus"], "agent-forge: Unknown option '--bogus'"],
			[["list", "--cwd", join(cwd, "missing")], `agent-forge: --cwd ${join(cwd, "missing")}: no such folder.`],
			[["list", "--cwd", file], `agent-forge: --cwd ${file}: not a folder.`],
		];
		for (const [args, message] of cases) {
			const run = cli(cwd, agentDir, ...args);
			expect(run.code, args.join(" ")).toBe(2);
			expect(run.out).toBe("");
			expect(run.err.startsWith(message), `${args.join(" ")}: ${run.err}`).toBe(true);
			expect(run.err).toMatch(/\nRun 'agent-forge --help' for usage\.\n$/);
			expect(run.err).not.toMatch(STACK_FRAME);
		}
	});

	it("read-only commands leave a project without a toolbox exactly as it was", async () => {
		const cwd = await makeTempDir("forge-cli-no-toolbox");
		const agentDir = await makeTempDir("forge-cli-agent");
		await writeFile(join(cwd, "README.md"), "# a project\n");
		const before = await tree(cwd);
		const out = join(await makeTempDir("forge-cli-export"), "pkg");
		const expected: Array<[string[], number]> = [
			[["list"], 0],
			[["list", "--json"], 0],
			[["list", "csv"], 0],
			[["show", "nope"], 1],
			[["history", "nope"], 1],
			[["diff", "nope"], 1],
			[["diff", "nope", "v1", "v2"], 1],
			[["check"], 0],
			[["check", "nope"], 1],
			[["test", "nope"], 1],
			[["export", out], 1],
		];
		for (const [args, code] of expected) {
			const run = cli(cwd, agentDir, ...args);
			expect(run.code, `${args.join(" ")}: ${run.err}`).toBe(code);
			expect(run.err).not.toMatch(STACK_FRAME);
		}
		expect(cli(cwd, agentDir, "list").out).toContain("The toolbox is empty.");
		expect(cli(cwd, agentDir, "history", "nope").err).toBe("There is no forged tool named 'nope'.\n");
		expect(await tree(cwd)).toEqual(before);
	});

	it("read-only commands leave a toolbox with hand edits, a broken tool and no registry byte-for-byte the same", async () => {
		const { cwd, agentDir, toolbox } = await projectWithSamples();
		await editTool(toolbox, "word-count", "characters: text.length", "characters: -1");
		await editTool(toolbox, "todo-scan", "return hits.length", "return (hits.length");
		await writeFile(join(toolbox, "forge-registry.json"), "{ not json");
		await rm(join(toolbox, ".gitignore"), { force: true });
		const before = await tree(cwd);
		const out = join(await makeTempDir("forge-cli-export"), "pkg");
		for (const args of [
			["list"],
			["list", "--json"],
			["show", "word-count"],
			["history", "word-count"],
			["diff", "word-count", "v1", "v1"],
			["check"],
			["check", "--json"],
			["test", "word-count"],
			["test", "json-pick"],
			["export", out],
		]) {
			const run = cli(cwd, agentDir, ...args);
			expect(run.err, args.join(" ")).not.toMatch(STACK_FRAME);
		}
		// The export carries the hand edit with the metadata derived for it (not written into the toolbox).
		const exported = JSON.parse(await readFile(join(out, "tools", "forge-word-count.json"), "utf8"));
		const exportedSource = await readFile(join(out, "tools", "forge-word-count.ts"), "utf8");
		expect(exportedSource).toContain("characters: -1");
		expect(exported).toMatchObject({
			version: 2,
			hash: `sha256-${createHash("sha256").update(exportedSource).digest("hex")}`,
		});
		const list = cli(cwd, agentDir, "list").out;
		expect(list).toMatch(/word-count\s+v2\s+unverified/);
		expect(list).toMatch(/todo-scan\s+v1\s+broken/);
		expect(await tree(cwd)).toEqual(before);
		expect(Object.keys(await tree(cwd))).not.toContain(join(".pi", "forge", "extensions", ".gitignore"));
	});

	it("takes N or vN wherever a version is: rollback, diff; history and diff say what is stored", async () => {
		const { cwd, agentDir, toolbox } = await projectWithImportedSamples();
		expect(await readFile(join(toolbox, ".gitignore"), "utf8")).toContain("/forge-registry.json");
		expect(cli(cwd, agentDir, "history", "word-count").out).toMatch(/v1\s+imported/);
		await editTool(toolbox, "word-count", "characters: text.length", "characters: -1");
		expect(cli(cwd, agentDir, "list").out).toMatch(/word-count\s+v2\s+unverified/);
		// The hand edit is live but not yet recorded: the read-only history says so, and diff reads the live file.
		expect(cli(cwd, agentDir, "history", "word-count").out).toMatch(
			/v1\s+imported[\s\S]*v2\s+live, not yet recorded/,
		);
		expect(cli(cwd, agentDir, "diff", "word-count").out).toContain("+return { words, lines, characters: -1 };");
		const rolled = cli(cwd, agentDir, "rollback", "word-count", "v1");
		expect(rolled.code, rolled.err).toBe(0);
		expect(rolled.out).toContain("Rolled 'word-count' back to v1: it is now v3.");
		expect(await readFile(join(toolbox, "forge-word-count.ts"), "utf8")).toContain("characters: text.length");
		for (const [from, to] of [
			["v2", "v3"],
			["2", "V3"],
			["2", "3"],
		]) {
			const diff = cli(cwd, agentDir, "diff", "word-count", from, to);
			expect(diff.code, diff.err).toBe(0);
			expect(diff.out).toContain("-return { words, lines, characters: -1 };");
		}
		expect(cli(cwd, agentDir, "history", "word-count").out).toMatch(
			/v1\s+imported[\s\S]*v2\s+edited[\s\S]*v3\s+rolled-back\s.*\(from v1\)/,
		);
		const missing = cli(cwd, agentDir, "diff", "word-count", "v7", "v3");
		expect(missing.code).toBe(1);
		expect(missing.err).toContain("has no stored version 7");
		expect(cli(cwd, agentDir, "rollback", "word-count", "v9").code).toBe(1);
	});

	it("history of an unknown tool exits 1 like show; a removed tool's history is still shown", async () => {
		const { cwd, agentDir } = await projectWithImportedSamples();
		for (const command of ["history", "show", "test", "diff"]) {
			const run = cli(cwd, agentDir, command, "nope");
			expect(run.code, command).toBe(1);
			expect(run.err, command).toContain("There is no forged tool named 'nope'.");
		}
		expect(cli(cwd, agentDir, "remove", "todo-scan").code).toBe(0);
		expect(cli(cwd, agentDir, "show", "todo-scan").code).toBe(1);
		const history = cli(cwd, agentDir, "history", "todo-scan");
		expect(history.code).toBe(0);
		expect(history.out).toMatch(/v1\s+imported[\s\S]*v1\s+removed/);
		expect(cli(cwd, agentDir, "rollback", "todo-scan", "v1").code).toBe(0);
		expect(cli(cwd, agentDir, "list").out).toMatch(/todo-scan\s+v1\s+verified/);
	});

	it("test of a draft says it has no tests and exits 1; check passes a draft that loads, saying it is one", async () => {
		const { cwd, agentDir, toolbox } = await projectWithSamples();
		const metaPath = join(toolbox, "forge-word-count.json");
		const { tests: _tests, verifiedHash: _verified, ...draft } = JSON.parse(await readFile(metaPath, "utf8"));
		await writeFile(metaPath, JSON.stringify(draft, null, "\t"));
		expect(cli(cwd, agentDir, "list").out).toMatch(/word-count\s+v1\s+draft/);
		const test = cli(cwd, agentDir, "test", "word-count");
		expect(test.code).toBe(1);
		expect(test.out).toBe("");
		expect(test.err).toContain("'word-count' is a draft: it has no tests, so nothing was run");
		expect(test.err).not.toContain("0 passed");
		const json = cli(cwd, agentDir, "test", "word-count", "--json");
		expect(json.code).toBe(1);
		expect(JSON.parse(json.out)).toEqual([]);
		const check = cli(cwd, agentDir, "check", "word-count");
		expect(check.code).toBe(0);
		expect(check.out).toContain("✓ word-count v1 (draft: no tests)");
	});

	it("check runs the tests: it fails (exit 1) a hand-edited tool whose tests fail and passes one whose tests still pass", async () => {
		const { cwd, agentDir, toolbox } = await projectWithSamples();
		await editTool(toolbox, "word-count", "characters: text.length", "characters: -1");
		await editTool(toolbox, "json-pick", "return value;", "// edited by hand, same behaviour\nreturn value;");
		const check = cli(cwd, agentDir, "check");
		expect(check.code).toBe(1);
		expect(check.out).toMatch(
			/✗ word-count v1 \(edited by hand\): tests at forge-word-count\.ts:\d+:\d+ — 2 of 2 tests failed on the file as edited by hand: test 1 .*characters.*-1/,
		);
		expect(check.out).toContain("✓ json-pick v1 (1 test passed, edited by hand)");
		expect(check.out).toContain("✓ todo-scan v1 (1 test passed)");
		expect(check.out).toContain("2 passed, 1 failed");
		const verdict = JSON.parse(cli(cwd, agentDir, "check", "--json", "word-count").out)[0];
		expect(verdict).toMatchObject({
			name: "word-count",
			ok: false,
			edited: true,
			tests: 2,
			error: { phase: "tests" },
		});
		const test = cli(cwd, agentDir, "test", "word-count");
		expect(test.code).toBe(1);
		expect(test.out).toContain("0 passed, 2 failed");
	});
});
