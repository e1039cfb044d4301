// `agent-forge rollback` and `agent-forge import` run the candidate's tests with the toolbox unlocked: while the test
// of one waits (for a file this test writes only afterwards), another agent-forge process, or a pi process forging a
// tool, changes the toolbox at once. Were the lock held while the test runs, that process would wait for it (up to the
// lock's 30 s, then fail), and the test for that process.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { runPiJson } from "../helpers/pi-cli.ts";
import { toolRequest } from "../helpers/toolbox-fixture.ts";

const BIN = join(resolve(import.meta.dirname, "../.."), "bin", "agent-forge.mjs");
/** A read outside the project, refused (no one to ask) and audited: how this test sees that the tool's test started. */
const SIGNAL = "/etc/agent-forge-restore-unlocked-started";
const TEST = [{ args: { text: "x" }, expect: "x" }];
/** Says it started, then waits for `release` in the project (at most 60 s: longer than anyone waits for the lock). */
const WAITING = [
	'import { existsSync, readFileSync } from "node:fs";',
	`try { readFileSync(${JSON.stringify(SIGNAL)}); } catch {}`,
	"const until = Date.now() + 60000;",
	"while (!existsSync(`${ctx.cwd}/release`) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));",
	"return existsSync(`${ctx.cwd}/release`) ? params.text : 'never released';",
].join("\n");

let box: IsolatedBox | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
	for (const child of children.splice(0)) child.kill("SIGKILL");
	await box?.toolbox.close();
	await box?.runner.dispose();
	box = undefined;
});

interface Ended {
	code: number | null;
	out: string;
	err: string;
}

function cli(cwd: string, agentDir: string, ...args: string[]): Promise<Ended> {
	const env: NodeJS.ProcessEnv = { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_FORGE_TIMEOUT_MS: "90000" };
	delete env.PI_FORGE_DIR;
	delete env.PI_FORGE_POLICY;
	const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
	children.push(child);
	let out = "";
	let err = "";
	child.stdout!.on("data", (d) => (out += d));
	child.stderr!.on("data", (d) => (err += d));
	return new Promise((done) => child.on("close", (code) => done({ code, out, err })));
}

/** Resolves once the audit log records the tool's test asking for SIGNAL (at most `ms`); false if it never does. */
async function testStarted(dir: string, ms: number): Promise<boolean> {
	const until = Date.now() + ms;
	while (Date.now() < until) {
		const audit = await readFile(join(dir, ".forge-audit.jsonl"), "utf8").catch(() => "");
		if (audit.includes(SIGNAL)) return true;
		await new Promise((r) => setTimeout(r, 50));
	}
	return false;
}

/** `pending` within `ms`, else "still waiting". */
const within = <T>(pending: Promise<T>, ms: number) =>
	Promise.race([pending, new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), ms))]);

/**
 * Starts `change` (an agent-forge command whose candidate's test waits) and, once its test runs, `meanwhile` (another
 * process that changes the toolbox), which must end within `ms`; then lets the test end.
 */
async function whileTestWaits<T>(
	change: () => Promise<Ended>,
	meanwhile: () => Promise<T>,
	ms: number,
): Promise<{ changed: Ended; other: T | "still waiting" }> {
	const { cwd, dir } = box!;
	const changing = change();
	expect(await testStarted(dir, 20_000)).toBe(true);
	const other = await within(meanwhile(), ms);
	// Let the waiting test end whatever happened, so the change's process ends too.
	await writeFile(join(cwd, "release"), "");
	return { changed: await changing, other };
}

/** Meanwhile, `agent-forge remove other` ends (within 10 s). */
async function removeWhileTestWaits(change: () => Promise<Ended>): Promise<Ended> {
	const { cwd } = box!;
	const agentDir = await mkdtemp(join(tmpdir(), "forge-restore-agent-"));
	const { changed, other } = await whileTestWaits(change, () => cli(cwd, agentDir, "remove", "other"), 10_000);
	expect(other === "still waiting" ? other : [other.code, other.err]).toEqual([0, ""]);
	return changed;
}

/** A project with 'waits' (v1 tested with WAITING, v2 not) and 'other'; nothing is left in its audit log. */
async function project(): Promise<IsolatedBox> {
	box = await isolatedToolbox({ PI_FORGE_TIMEOUT_MS: "90000" });
	const { toolbox, cwd } = box;
	await writeFile(join(cwd, "release"), "");
	const v1 = await toolbox.forge(toolRequest("waits", WAITING, { tests: TEST }), new Map());
	expect(v1.ok, v1.ok ? "" : v1.error.message).toBe(true);
	expect((await toolbox.forge(toolRequest("waits", "return params.text;"), new Map())).ok).toBe(true);
	expect((await toolbox.forge(toolRequest("other", "return 'other';"), new Map())).ok).toBe(true);
	return box;
}

/** Closes the in-process toolbox (the commands run on their own) and takes back `release` and the audit log. */
async function handOver({ toolbox, runner, cwd, dir }: IsolatedBox): Promise<string> {
	await toolbox.close();
	await runner.dispose();
	await rm(join(cwd, "release"));
	await rm(join(dir, ".forge-audit.jsonl"), { force: true });
	return mkdtemp(join(tmpdir(), "forge-restore-agent-"));
}

describe("agent-forge rollback and import leave the toolbox unlocked while the candidate's tests run", () => {
	it("another agent-forge process removes a tool while a roll-back's test waits", async () => {
		const { cwd } = await project();
		const agentDir = await handOver(box!);
		const rolledBack = await removeWhileTestWaits(() => cli(cwd, agentDir, "rollback", "waits", "1"));
		expect([rolledBack.code, rolledBack.err]).toEqual([0, ""]);
		expect(rolledBack.out).toContain("it is now v3");
		const listed = await cli(cwd, agentDir, "list");
		expect(listed.out).toMatch(/waits\s.*v3/);
		expect(listed.out).not.toMatch(/\bother\b/);
	});

	it("another agent-forge process removes a tool while an import's test waits", async () => {
		const { toolbox, cwd } = await project();
		const from = await mkdtemp(join(tmpdir(), "forge-restore-from-"));
		// The tested version, as a package would hold it.
		expect((await toolbox.rollback("waits", 1)).ok).toBe(true);
		const tested = await toolbox.readTool("waits");
		expect(tested.source).toContain("release");
		await writeFile(join(from, "forge-waits.ts"), tested.source!);
		await writeFile(join(from, "forge-waits.json"), tested.metaText!);
		expect((await toolbox.remove("waits")).ok).toBe(true);
		const agentDir = await handOver(box!);
		const imported = await removeWhileTestWaits(() => cli(cwd, agentDir, "import", from));
		expect([imported.code, imported.err]).toEqual([0, ""]);
		expect(imported.out).toContain("✓ waits imported as v1");
		const listed = await cli(cwd, agentDir, "list");
		expect(listed.out).toMatch(/waits\s.*v1/);
		expect(listed.out).not.toMatch(/\bother\b/);
	});
	it("a pi process forges a tool while a roll-back's test waits", async () => {
		const { cwd } = await project();
		const agentDir = await handOver(box!);
		const forge = {
			name: "fresh",
			description: "Returns fresh.",
			parametersSchema: { type: "object", properties: {} },
			logic: 'return "fresh";',
		};
		const { changed, other } = await whileTestWaits(
			() => cli(cwd, agentDir, "rollback", "waits", "1"),
			() =>
				runPiJson({
					cwd,
					prompts: ["forge fresh"],
					script: [{ calls: [{ name: "forge_tool", args: forge }] }, { text: "ok" }],
					timeoutMs: 60_000,
				}),
			45_000,
		);
		expect(other === "still waiting" ? other : other.ends.map((end) => [end.tool, end.isError])).toEqual([
			["forge_tool", false],
		]);
		expect([changed.code, changed.err]).toEqual([0, ""]);
		const listed = await cli(cwd, agentDir, "list");
		expect(listed.out).toMatch(/waits\s.*v3/);
		expect(listed.out).toMatch(/fresh\s.*v1/);
	});
});
