// Tools that build on tools, through the real pi: inside `execute`, `pi.useTool(name, args)` calls another forged tool
// (its returned value, after a JSON round trip) or one of pi's built-ins (their text), isolated and under the policy,
// bounded in depth, within the caller's deadline; list_forge and removal say who calls whom.
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const BIN = resolve(import.meta.dirname, "../../bin/agent-forge.mjs");
let pi: PiHarness | undefined;

afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

const TEXT = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const NONE = { type: "object", properties: {} };

function forge(name: string, logic: string, extra: Record<string, unknown> = {}) {
	return {
		name: "forge_tool",
		args: {
			name,
			description: `The ${name} tool of the composition tests.`,
			parametersSchema: TEXT,
			logic,
			...extra,
		},
	};
}
const use = (name: string, args: Record<string, unknown>) => ({ name: "use_forge_tool", args: { name, args } });

const WORD_COUNT = "return { words: params.text.split(/\\s+/).filter(Boolean).length };";
const TEXT_STATS = [
	'const counted = await pi.useTool("word-count", { text: params.text });',
	'return { lines: params.text.split("\\n").length, words: counted.words };',
].join("\n");

async function start(env: Record<string, string> = {}): Promise<{ cwd: string }> {
	const cwd = await makeTempDir("forge-compose");
	await writeFile(join(cwd, "notes.txt"), "alpha beta\ngamma TODO delta\n");
	pi = await startPi({ extensionPaths: [INDEX], cwd, env });
	return { cwd };
}

describe("pi.useTool: a forged tool calls another forged tool", () => {
	it("resolves to the value the callee returned; a test of the caller exercises the callee", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("word-count", WORD_COUNT, { tests: [{ args: { text: "a b c" }, equals: { words: 3 } }] })],
			[
				forge("text-stats", TEXT_STATS, {
					tests: [{ args: { text: "one two\nthree" }, equals: { lines: 2, words: 3 } }],
				}),
			],
			[use("text-stats", { text: "a b\nc d e\nf" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[0].isError, run.toolEvents[0].text).toBe(false);
		expect(run.toolEvents[1].isError, run.toolEvents[1].text).toBe(false);
		expect(run.toolEvents[1].text).toContain("1 test passed: verified");
		expect(run.toolEvents[2].isError, run.toolEvents[2].text).toBe(false);
		expect(JSON.parse(run.toolEvents[2].text)).toEqual({ lines: 3, words: 6 });
	});

	it("a callee's failure reaches the caller as an error it can catch, naming the callee", async () => {
		await start();
		const run = await pi!.run("compose", [
			[
				forge(
					"fragile",
					'if (params.text === "boom") throw new Error("fragile broke on boom"); return params.text;',
				),
			],
			[
				forge(
					"careful",
					'try { return await pi.useTool("fragile", { text: params.text }); } catch (error) { return `caught: ${error.message}`; }',
				),
			],
			[use("careful", { text: "boom" })],
			[use("careful", { text: "fine" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[2].isError, run.toolEvents[2].text).toBe(false);
		expect(run.toolEvents[2].text).toMatch(/^caught: .*'fragile'.*fragile broke on boom/s);
		expect(run.toolEvents[3].text).toBe("fine");
	});

	it("a callee's bug is located in the callee, with the arguments it got and which tool to repair", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("parse-it", "const data = JSON.parse(params.text);\nreturn data.items.length;")],
			[forge("count-items", 'return await pi.useTool("parse-it", { text: params.text });')],
			[use("count-items", { text: "{}" })],
			{ text: "done" },
		]);
		const text = run.toolEvents[2].text;
		expect(run.toolEvents[2].isError).toBe(true);
		expect(text).toMatch(
			/'parse-it' \(called by 'count-items' through pi.useTool\) failed at forge-parse-it\.ts:\d+:\d+: TypeError/,
		);
		expect(text).toContain('with arguments {"text":"{}"}');
		expect(text).toContain("The fault is in 'parse-it'");
		expect(text).toContain('list_forge {"name": "parse-it"}');
	});

	it("wrong arguments for a callee name the problem and say to fix the caller's call", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("word-count", WORD_COUNT)],
			[forge("sloppy", 'return await pi.useTool("word-count", { file: params.text });')],
			[use("sloppy", { text: "x" })],
			{ text: "done" },
		]);
		const text = run.toolEvents[2].text;
		expect(run.toolEvents[2].isError).toBe(true);
		expect(text).toMatch(/must have required property 'text'/);
		expect(text).toContain("fix the pi.useTool call in 'sloppy'");
	});

	it("a pi member that does not exist is not a permission to ask for: it is undefined", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("guesser", 'return await (pi as any).callTool("word-count", { text: params.text });')],
			[use("guesser", { text: "x" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[1].isError).toBe(true);
		expect(run.toolEvents[1].text).toContain("pi.callTool is not a function");
		expect(run.toolEvents[1].text).not.toMatch(/grant|inline/);
	});

	it("a tool forged in the same message can be called by the next forge's tests", async () => {
		await start();
		const run = await pi!.run("compose", [
			[
				forge("word-count", WORD_COUNT),
				forge("text-stats", TEXT_STATS, { tests: [{ args: { text: "a b\nc" }, equals: { lines: 2, words: 3 } }] }),
			],
			{ text: "done" },
		]);
		expect(run.toolEvents[0].isError, run.toolEvents[0].text).toBe(false);
		expect(run.toolEvents[1].isError, run.toolEvents[1].text).toBe(false);
	});

	it("an unknown tool is a clear error naming what exists", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("word-count", WORD_COUNT)],
			[forge("caller", 'return await pi.useTool("word-cout", { text: params.text });')],
			[use("caller", { text: "x" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[2].isError).toBe(true);
		expect(run.toolEvents[2].text).toContain("pi.useTool: no tool named 'word-cout'");
		expect(run.toolEvents[2].text).toContain("word-count");
	});

	it("a cycle is a clear error naming the chain, not a hang", async () => {
		await start();
		const started = Date.now();
		const run = await pi!.run("compose", [
			[forge("ping", 'return await pi.useTool("pong", { text: params.text });')],
			[forge("pong", 'return await pi.useTool("ping", { text: params.text });')],
			[use("ping", { text: "x" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[2].isError).toBe(true);
		expect(run.toolEvents[2].text).toContain("ping → pong → ping");
		expect(run.toolEvents[2].text).toMatch(/cycle/);
		expect(Date.now() - started).toBeLessThan(20_000);
	});

	it("calls nest at most 8 deep", async () => {
		await start();
		const steps = [];
		for (let i = 1; i <= 10; i++) {
			const logic =
				i === 10 ? "return params.text;" : `return await pi.useTool("hop-${i + 1}", { text: params.text });`;
			steps.push([forge(`hop-${i}`, logic)]);
		}
		const run = await pi!.run("compose", [
			...steps,
			[use("hop-3", { text: "x" })],
			[use("hop-1", { text: "x" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[10].isError, run.toolEvents[10].text).toBe(false); // 8 tools: hop-3 … hop-10
		expect(run.toolEvents[10].text).toBe("x");
		expect(run.toolEvents[11].isError).toBe(true);
		expect(run.toolEvents[11].text).toMatch(/more than 8 tools deep/);
	});

	it("the callee runs within the caller's deadline", async () => {
		await start({ PI_FORGE_TIMEOUT_MS: "1500" });
		const started = Date.now();
		const run = await pi!.run("compose", [
			[forge("sleepy", "await new Promise((r) => setTimeout(r, 60_000)); return 'woke';")],
			[forge("impatient", 'return await pi.useTool("sleepy", { text: params.text });')],
			[use("impatient", { text: "x" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[2].isError).toBe(true);
		expect(run.toolEvents[2].text).toMatch(/timeout/i);
		expect(Date.now() - started).toBeLessThan(15_000);
	});
});

describe("pi.useTool: pi's built-ins, under the caller's policy", () => {
	it("read, ls and find resolve to their text", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("reader", 'return await pi.useTool("read", { path: params.text });')],
			[forge("lister", 'return await pi.useTool("ls", { path: params.text });')],
			[forge("finder", 'return await pi.useTool("find", { pattern: params.text });')],
			[use("reader", { text: "notes.txt" })],
			[use("lister", { text: "." })],
			[use("finder", { text: "*.txt" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[3].isError, run.toolEvents[3].text).toBe(false);
		expect(run.toolEvents[3].text).toContain("gamma TODO delta");
		expect(run.toolEvents[4].text).toContain("notes.txt");
		expect(run.toolEvents[5].isError, run.toolEvents[5].text).toBe(false);
		expect(run.toolEvents[5].text).toContain("notes.txt");
	});

	it("grep runs pi's grep (ripgrep) over what the caller may read", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("todo-finder", 'return await pi.useTool("grep", { pattern: params.text, path: "." });')],
			[use("todo-finder", { text: "TODO" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[1].isError, run.toolEvents[1].text).toBe(false);
		expect(run.toolEvents[1].text).toContain("notes.txt:2: gamma TODO delta");
	});

	it("grep over the toolbox folder leaves out Agent Forge's own health file and audit log", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("reader", 'return await pi.useTool("read", { path: params.text });')],
			[use("reader", { text: "/etc/shadow" })],
			[forge("digger", 'return await pi.useTool("grep", { pattern: params.text, path: ".pi/forge/extensions" });')],
			[use("digger", { text: "reader" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[3].isError, run.toolEvents[3].text).toBe(false);
		expect(run.toolEvents[3].text).toContain("forge-reader.ts");
		expect(run.toolEvents[3].text).not.toContain(".forge-audit.jsonl");
		expect(run.toolEvents[3].text).not.toContain(".forge-health.json");
	});

	it("write and edit change project files; a protected location is refused under every policy", async () => {
		const { cwd } = await start({ PI_FORGE_POLICY: "permissive" });
		const run = await pi!.run("compose", [
			[forge("scribe", 'return await pi.useTool("write", { path: params.text, content: "hello forge\\n" });')],
			[
				forge(
					"fixer",
					'return await pi.useTool("edit", { path: params.text, edits: [{ oldText: "hello", newText: "goodbye" }] });',
				),
			],
			[use("scribe", { text: "out.txt" })],
			[use("fixer", { text: "out.txt" })],
			[use("scribe", { text: "AGENTS.md" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[2].isError, run.toolEvents[2].text).toBe(false);
		expect(run.toolEvents[3].isError, run.toolEvents[3].text).toBe(false);
		expect(await readFile(join(cwd, "out.txt"), "utf8")).toBe("goodbye forge\n");
		expect(run.toolEvents[4].isError).toBe(true);
		expect(run.toolEvents[4].text).toMatch(/permission/i);
		await expect(readFile(join(cwd, "AGENTS.md"), "utf8")).rejects.toThrow(/ENOENT/);
	});

	it("bash needs the caller's command grant: refused under strict, run under permissive", async () => {
		await start();
		const strict = await pi!.run("compose", [
			[forge("shell", 'return await pi.useTool("bash", { command: "echo composed-$((40+2))" });')],
			[use("shell", { text: "x" })],
			{ text: "done" },
		]);
		expect(strict.toolEvents[1].isError).toBe(true);
		expect(strict.toolEvents[1].text).toMatch(/permission/i);
		expect(strict.toolEvents[1].text).not.toContain("composed-42");
		await pi!.dispose();
		await start({ PI_FORGE_POLICY: "permissive" });
		const permissive = await pi!.run("compose", [
			[forge("shell", 'return await pi.useTool("bash", { command: "echo composed-$((40+2))" });')],
			[use("shell", { text: "x" })],
			{ text: "done" },
		]);
		expect(permissive.toolEvents[1].isError, permissive.toolEvents[1].text).toBe(false);
		expect(permissive.toolEvents[1].text).toContain("composed-42");
	});

	it("reading outside the project without a grant is refused, as for the caller's own reads", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("reader", 'return await pi.useTool("read", { path: params.text });')],
			[forge("searcher", 'return await pi.useTool("grep", { pattern: "root", path: params.text });')],
			[use("reader", { text: "/etc/shadow" })],
			[use("searcher", { text: "/etc" })],
			{ text: "done" },
		]);
		expect(run.toolEvents[2].isError).toBe(true);
		expect(run.toolEvents[2].text).toMatch(/permission/i);
		expect(run.toolEvents[3].isError).toBe(true);
		expect(run.toolEvents[3].text).toMatch(/permission/i);
		expect(run.toolEvents[3].text).not.toContain("root:x:0");
	});
});

describe("who calls whom", () => {
	it("list_forge with a name shows what a tool calls and what calls it", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("word-count", WORD_COUNT)],
			[forge("text-stats", TEXT_STATS)],
			[{ name: "list_forge", args: { name: "word-count" } }],
			[{ name: "list_forge", args: { name: "text-stats" } }],
			{ text: "done" },
		]);
		expect(run.toolEvents[2].text).toMatch(/Called by: text-stats/);
		expect(run.toolEvents[3].text).toMatch(/Calls: word-count/);
	});

	it("re-forging a tool others call, and breaking it, says who calls it", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("word-count", WORD_COUNT)],
			[forge("text-stats", TEXT_STATS)],
			[forge("word-count", "return { count: params.text.length };")],
			{ text: "done" },
		]);
		expect(run.toolEvents[2].isError, run.toolEvents[2].text).toBe(false);
		expect(run.toolEvents[2].text).toContain("'word-count' is called by text-stats");
	});

	it("agent-forge remove of a tool others call says who calls it", async () => {
		const { cwd } = await start();
		await pi!.run("compose", [
			[forge("word-count", WORD_COUNT)],
			[forge("text-stats", TEXT_STATS)],
			{ text: "done" },
		]);
		await pi!.dispose();
		pi = undefined;
		const removed = spawnSync(process.execPath, [BIN, "remove", "word-count"], { cwd, encoding: "utf8" });
		expect(removed.status, removed.stderr).toBe(0);
		expect(removed.stdout).toContain(
			"'word-count' is called by text-stats (through pi.useTool): their calls of it fail until it is back.",
		);
	});

	it("a forge with no tool of that name answers that the callee does not exist yet", async () => {
		await start();
		const run = await pi!.run("compose", [
			[forge("orphan", 'return await pi.useTool("ghost", {});', { parametersSchema: NONE })],
			{ text: "done" },
		]);
		expect(run.toolEvents[0].isError, run.toolEvents[0].text).toBe(false);
		expect(run.toolEvents[0].text).toContain("calls 'ghost', which is not a forged tool or one of pi's built-ins");
	});
});
