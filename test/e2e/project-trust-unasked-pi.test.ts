// A project pi does not ask about (its only pi folder is .pi/forge: pi's isProjectTrusted() answers true without
// asking), through the real pi. On the current line a toolbox made elsewhere (a cloned repository) is left out unless
// the person's trust is explicit: --approve, pi's saved decision (what /trust saves), or a toolbox their own Agent
// Forge made. On the legacy line (no trust) it is offered as before. And on both lines: a project toolbox reached
// through a link is left out, trusted or not, and the project's config may not raise a limit.
import { readFile, realpath, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clonedRepository, forgeWarnings, READ_TEXT, READER } from "../helpers/cloned-repository.ts";
import { runPiJson } from "../helpers/pi-cli.ts";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";
import { PI_LINE } from "../helpers/pi-line.ts";

const INDEX = join(import.meta.dirname, "..", "..", "index.ts");
const NOT_OURS = "you have not trusted this project and its toolbox was not made by your Agent Forge";

/** One pi run in json mode that calls the repository's tool by its name, then through use_forge_tool. */
const callReader = (cwd: string, agentDir: string, args: string[] = []) =>
	runPiJson({
		cwd,
		agentDir,
		args,
		prompts: ["use the repository's tool"],
		script: [
			{ calls: [{ name: READER.name, args: {} }] },
			{ calls: [{ name: "use_forge_tool", args: { name: READER.name, args: {} } }] },
			{ text: "done" },
		],
	});

let pi: PiHarness | undefined;
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

if (PI_LINE === "current") {
	describe("a cloned repository whose only pi folder is .pi/forge (current line)", () => {
		it("its tools are neither offered nor run, its config is not read, and the start and the model are told why", async () => {
			const repo = await clonedRepository(false);
			await writeFile(join(repo.agentDir, "forge", "config.json"), JSON.stringify({ policy: "permissive" }));
			const run = await runPiJson({
				cwd: repo.cwd,
				agentDir: repo.agentDir,
				prompts: ["use the repository's tool"],
				script: [
					{ calls: [{ name: READER.name, args: {} }] },
					{ calls: [{ name: "use_forge_tool", args: { name: READER.name, args: {} } }] },
					{ calls: [{ name: "list_forge", args: {} }] },
					{ calls: [{ name: "forge_tool", args: { ...READER, name: "mine" } }] },
					{ text: "done" },
				],
			});
			expect(run.code, run.stderr).toBe(0);
			const [direct, used, listed, forged] = run.ends;
			expect(direct).toMatchObject({ tool: READER.name, isError: true });
			// pi does not know it (the model reads why in its next request, in place of pi's bare "not found").
			expect(direct.text).toBe(`Tool ${READER.name} not found`);
			expect(used).toMatchObject({ tool: "use_forge_tool", isError: true });
			expect(used.text).toContain(`'${READER.name}' is a tool of this project's toolbox`);
			expect(used.text).toContain(NOT_OURS);
			expect(used.text).toContain("--approve");
			expect(used.text).toContain("Agent Forge takes it up from the next call");
			for (const end of [direct, used]) expect(end.text).not.toContain(READ_TEXT);
			expect(listed.text).toContain(`Note: ${NOT_OURS}`);
			expect(listed.text).toContain(`(${READER.name}) cannot be run here`);
			expect(forged).toMatchObject({ tool: "forge_tool", isError: true });
			expect(forged.text).toContain("nothing was forged");
			const said = forgeWarnings(run.stderr);
			expect(said).toHaveLength(1);
			expect(said[0]).toContain(`Agent Forge: warning: ${NOT_OURS} (pi did not ask`);
			expect(said[0]).toContain(join(repo.cwd, ".pi", "forge", "extensions"));
			// Its config file was not read: nothing is said of its policy.
			expect(run.stderr).not.toContain('"policy": "permissive" is looser');
		}, 180_000);

		it("--approve: its tool is offered and runs (under the person's own permissive policy)", async () => {
			const repo = await clonedRepository(false);
			await writeFile(join(repo.agentDir, "forge", "config.json"), JSON.stringify({ policy: "permissive" }));
			const run = await callReader(repo.cwd, repo.agentDir, ["--approve"]);
			expect(run.code, run.stderr).toBe(0);
			expect(run.ends.map((end) => [end.tool, end.isError, end.text])).toEqual([
				[READER.name, false, READ_TEXT],
				["use_forge_tool", false, READ_TEXT],
			]);
			expect(forgeWarnings(run.stderr)).toEqual([]);
		}, 180_000);

		it("pi's saved decision for a parent folder (what /trust saves) trusts it; a saved no for the folder does not", async () => {
			const repo = await clonedRepository(false);
			await writeFile(join(repo.agentDir, "forge", "config.json"), JSON.stringify({ policy: "permissive" }));
			await writeFile(join(repo.agentDir, "trust.json"), JSON.stringify({ [repo.root]: true }));
			const trusted = await callReader(repo.cwd, repo.agentDir);
			expect(trusted.ends.map((end) => [end.tool, end.isError, end.text])).toEqual([
				[READER.name, false, READ_TEXT],
				["use_forge_tool", false, READ_TEXT],
			]);
			await writeFile(join(repo.agentDir, "trust.json"), JSON.stringify({ [repo.root]: true, [repo.cwd]: false }));
			const declined = await callReader(repo.cwd, repo.agentDir);
			expect(declined.ends.map((end) => [end.tool, end.isError])).toEqual([
				[READER.name, true],
				["use_forge_tool", true],
			]);
			expect(declined.ends[1].text).toContain("you told pi not to trust this project");
		}, 240_000);

		it("trust saved during the session (in-process pi): the tool is refused, then runs from the next call", async () => {
			const repo = await clonedRepository(false);
			pi = await startPi({
				extensionPaths: [INDEX],
				cwd: repo.cwd,
				agentDir: repo.agentDir,
				env: { PI_FORGE_POLICY: "permissive" },
			});
			const use = [[{ name: "use_forge_tool", args: { name: READER.name, args: {} } }], { text: "done" }];
			const refused = await pi.run("use it", use);
			expect(refused.toolEvents[0]).toMatchObject({ toolName: "use_forge_tool", isError: true });
			expect(refused.toolEvents[0].text).toContain(NOT_OURS);
			await writeFile(join(repo.agentDir, "trust.json"), JSON.stringify({ [repo.cwd]: true }));
			const ran = await pi.run("use it again", use);
			expect(ran.toolEvents[0]).toMatchObject({ toolName: "use_forge_tool", isError: false, text: READ_TEXT });
		}, 180_000);
	});

	describe("the person's own project (current line)", () => {
		it("a toolbox their Agent Forge made keeps its tools after a restart, without asking; another agent dir's is left out", async () => {
			const cwd = await makeTempDir("forge-own");
			const agentDir = await makeTempDir("forge-own-agent");
			const env = { PI_FORGE_POLICY: "permissive" };
			const first = await runPiJson({
				cwd,
				agentDir,
				env,
				prompts: ["forge it"],
				script: [{ calls: [{ name: "forge_tool", args: READER }] }, { text: "done" }],
			});
			expect(
				first.ends.map((end) => [end.tool, end.isError]),
				first.stderr,
			).toEqual([["forge_tool", false]]);
			const own = JSON.parse(await readFile(join(agentDir, "forge", "own-toolboxes.json"), "utf8"));
			expect(Object.keys(own)).toEqual([await realpath(cwd)]);

			const restarted = await runPiJson({
				cwd,
				agentDir,
				env,
				prompts: ["use it"],
				script: [{ calls: [{ name: READER.name, args: {} }] }, { text: "done" }],
			});
			expect(
				restarted.ends.map((end) => [end.tool, end.isError, end.text]),
				restarted.stderr,
			).toEqual([[READER.name, false, READ_TEXT]]);
			expect(forgeWarnings(restarted.stderr)).toEqual([]);

			const someoneElse = await callReader(cwd, await makeTempDir("forge-other-agent"));
			expect(someoneElse.ends.map((end) => [end.tool, end.isError])).toEqual([
				[READER.name, true],
				["use_forge_tool", true],
			]);
			expect(someoneElse.ends[1].text).toContain(NOT_OURS);
		}, 240_000);
	});
}

if (PI_LINE === "legacy") {
	describe("a cloned repository whose only pi folder is .pi/forge (legacy line: no trust)", () => {
		it("its tool is offered and runs, as before (under the person's own permissive policy)", async () => {
			const repo = await clonedRepository(false);
			await writeFile(join(repo.agentDir, "forge", "config.json"), JSON.stringify({ policy: "permissive" }));
			const run = await callReader(repo.cwd, repo.agentDir);
			expect(run.code, run.stderr).toBe(0);
			expect(run.ends.map((end) => [end.tool, end.isError, end.text])).toEqual([
				[READER.name, false, READ_TEXT],
				["use_forge_tool", false, READ_TEXT],
			]);
		}, 180_000);
	});
}

describe(`a project toolbox reached through a link (${PI_LINE} line)`, () => {
	it("is left out even when trusted, saying which folder; the user toolbox works", async () => {
		const repo = await clonedRepository(false);
		// The repository's .pi/forge is a link to a folder elsewhere holding the tools.
		await rename(join(repo.cwd, ".pi", "forge"), join(repo.root, "elsewhere"));
		await symlink(join(repo.root, "elsewhere"), join(repo.cwd, ".pi", "forge"));
		const mine = { ...READER, name: "mine", logic: 'return "mine";' };
		const run = await runPiJson({
			cwd: repo.cwd,
			agentDir: repo.agentDir,
			args: PI_LINE === "current" ? ["--approve"] : [],
			prompts: ["use the repository's tool"],
			script: [
				{ calls: [{ name: "use_forge_tool", args: { name: READER.name, args: {} } }] },
				{ calls: [{ name: "forge_tool", args: { ...mine, scope: "user" } }] },
				{ calls: [{ name: "use_forge_tool", args: { name: "mine", args: {} } }] },
				{ text: "done" },
			],
		});
		expect(run.code, run.stderr).toBe(0);
		const linked = ".pi/forge is a symbolic link (Agent Forge follows no link to a project's toolbox";
		expect(run.ends.map((end) => [end.tool, end.isError])).toEqual([
			["use_forge_tool", true],
			["forge_tool", false],
			["use_forge_tool", false],
		]);
		expect(run.ends[0].text).toContain(linked);
		expect(run.ends[0].text).toContain("make the project's toolbox a real folder");
		expect(run.ends[0].text).not.toContain(READ_TEXT);
		expect(run.ends[2].text).toBe("mine");
		const said = forgeWarnings(run.stderr);
		expect(said).toHaveLength(1);
		expect(said[0]).toContain(linked);
		expect(said[0]).toContain("(1 tool: repo-reader)");
	}, 180_000);
});

describe(`a project's config may not raise a limit (${PI_LINE} line)`, () => {
	it("its timeoutMs above the person's is ignored and reported: a slow tool is stopped at the person's limit", async () => {
		const cwd = await makeTempDir("forge-limit");
		const agentDir = await makeTempDir("forge-limit-agent");
		const sleeper = {
			name: "sleeper",
			description: "Sleeps for four seconds.",
			parametersSchema: { type: "object", properties: {} },
			logic: 'await new Promise((done) => setTimeout(done, 4000));\nreturn "slept";',
		};
		const forged = await runPiJson({
			cwd,
			agentDir,
			prompts: ["forge it"],
			script: [{ calls: [{ name: "forge_tool", args: sleeper }] }, { text: "done" }],
		});
		expect(
			forged.ends.map((end) => [end.tool, end.isError]),
			forged.stderr,
		).toEqual([["forge_tool", false]]);
		await writeFile(join(agentDir, "forge", "config.json"), JSON.stringify({ timeoutMs: 1500 }));
		const projectFile = join(cwd, ".pi", "forge", "config.json");
		await writeFile(projectFile, JSON.stringify({ timeoutMs: 600_000 }));
		const run = await runPiJson({
			cwd,
			agentDir,
			prompts: ["use it"],
			script: [{ calls: [{ name: "use_forge_tool", args: { name: "sleeper", args: {} } }] }, { text: "done" }],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.ends[0]).toMatchObject({ tool: "use_forge_tool", isError: true });
		expect(run.ends[0].text).toContain("'sleeper' did not finish within 1500 ms and was stopped.");
		expect(forgeWarnings(run.stderr)).toEqual([
			`Agent Forge: warning: ${projectFile}: "timeoutMs": 600000 is higher than your limit (1500, from ${join(agentDir, "forge", "config.json")}: "timeoutMs": 1500); a project's config file may only lower a limit, so it is ignored. To use 600000, set PI_FORGE_TIMEOUT_MS=600000 or "timeoutMs": 600000 in ${join(agentDir, "forge", "config.json")}.`,
		]);
	}, 180_000);
});
