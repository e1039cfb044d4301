// pi's project trust through the real pi command line in json mode (no UI, so a project that asks for trust stays
// untrusted unless --approve): a cloned repository carrying its own forged tool and a permissive .pi/forge/config.json.
// Untrusted (current line): the project's toolbox is neither offered nor run, its config is not read, the user
// toolbox works. Trusted (--approve), and on the legacy line (no trust API): the project's config may only tighten the
// policy.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clonedRepository, READ_TEXT, forgeWarnings as warnings } from "../helpers/cloned-repository.ts";
import { runPiJson } from "../helpers/pi-cli.ts";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";
import { PI_LINE } from "../helpers/pi-line.ts";

const INDEX = join(import.meta.dirname, "..", "..", "index.ts");
const NOTES_READER = {
	name: "notes-reader",
	description: "Reads notes.txt in the project.",
	parametersSchema: { type: "object", properties: {} },
	logic: `import { readFileSync } from "node:fs";\nreturn "notes: " + readFileSync("notes.txt", "utf8");`,
};

let pi: PiHarness | undefined;
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

if (PI_LINE === "current") {
	describe("an untrusted project (current line)", () => {
		it("its toolbox is neither offered nor run, its config is not read; the user toolbox works and forges need scope user", async () => {
			const repo = await clonedRepository(true);
			const helper = {
				name: "helper",
				description: "Calls the repository's tool.",
				parametersSchema: { type: "object", properties: {} },
				logic: `try { return await pi.useTool("repo-reader", {}); } catch (e) { return "refused: " + String(e.message).split("\\n")[0]; }`,
			};
			const run = await runPiJson({
				cwd: repo.cwd,
				agentDir: repo.agentDir,
				prompts: ["use the repository's tool"],
				script: [
					{ calls: [{ name: "repo-reader", args: {} }] },
					{ calls: [{ name: "use_forge_tool", args: { name: "repo-reader", args: {} } }] },
					{ calls: [{ name: "list_forge", args: {} }] },
					{ calls: [{ name: "list_forge", args: { name: "repo-reader" } }] },
					{ calls: [{ name: "forge_tool", args: helper }] },
					{ calls: [{ name: "forge_tool", args: { ...helper, scope: "user" } }] },
					{ calls: [{ name: "use_forge_tool", args: { name: "helper", args: {} } }] },
					{ text: "done" },
				],
			});
			expect(run.code, run.stderr).toBe(0);
			// pi itself left the project alone: its extension did not run.
			expect(repo.extensionRan()).toBe(false);
			const [direct, used, listed, described, forgedProject, forgedUser, usedHelper] = run.ends;
			// Not offered under its own name: pi does not know it.
			expect(direct).toMatchObject({ tool: "repo-reader", isError: true });
			expect(direct.text).not.toContain(READ_TEXT);
			expect(used).toMatchObject({ tool: "use_forge_tool", isError: true });
			expect(used.text).toContain("'repo-reader' is a tool of this project's toolbox");
			expect(used.text).toContain("pi does not trust this project");
			expect(used.text).toContain("--approve");
			expect(listed).toMatchObject({ tool: "list_forge", isError: false });
			expect(listed.text).toContain("The toolbox is empty");
			expect(listed.text).toContain("Note: pi does not trust this project");
			expect(listed.text).toContain("(repo-reader) cannot be run here");
			expect(described).toMatchObject({ tool: "list_forge", isError: true });
			expect(described.text).toContain("pi does not trust this project");
			expect(forgedProject).toMatchObject({ tool: "forge_tool", isError: true });
			expect(forgedProject.text).toContain("nothing was forged");
			expect(forgedProject.text).toContain('scope "user"');
			expect(forgedUser).toMatchObject({ tool: "forge_tool", isError: false });
			expect(forgedUser.text).toContain(`Scope: the user toolbox (${join(repo.agentDir, "forge", "extensions")})`);
			// The user toolbox's tool runs; its pi.useTool of the project's tool is refused the same way.
			expect(usedHelper).toMatchObject({ tool: "use_forge_tool", isError: false });
			expect(usedHelper.text).toContain("refused: ");
			expect(usedHelper.text).toContain("pi does not trust this project");
			expect(usedHelper.text).not.toContain(READ_TEXT);
			expect(existsSync(join(repo.agentDir, "forge", "extensions", "forge-helper.ts"))).toBe(true);
			expect(existsSync(join(repo.cwd, ".pi", "forge", "extensions", "forge-helper.ts"))).toBe(false);
			// The start report says so once; the project's config file was not read (nothing about its policy).
			const said = warnings(run.stderr);
			expect(said).toHaveLength(1);
			expect(said[0]).toContain("Agent Forge: warning: pi does not trust this project");
			expect(said[0]).toContain(join(repo.cwd, ".pi", "forge", "extensions"));
			expect(run.stderr).not.toContain("permissive");
		}, 180_000);

		it("trust given during the session (in-process pi): its tool is refused, then runs from the next call", async () => {
			const cwd = await makeTempDir("forge-trust-session");
			await writeFile(join(cwd, "notes.txt"), "hello");
			// The person forged the tool into the project (a trusted session, the same agent dir as below).
			const agentDir = await makeTempDir("forge-trust-session-agent");
			pi = await startPi({ extensionPaths: [INDEX], cwd, agentDir });
			const forged = await pi.run("forge", [[{ name: "forge_tool", args: NOTES_READER }], { text: "done" }]);
			expect(forged.toolEvents.map((e) => [e.toolName, e.isError])).toEqual([["forge_tool", false]]);
			await pi.dispose();

			pi = await startPi({ extensionPaths: [INDEX], cwd, agentDir, projectTrusted: false });
			const use = [[{ name: "use_forge_tool", args: { name: NOTES_READER.name, args: {} } }], { text: "done" }];
			const refused = await pi.run("use it", use);
			expect(refused.toolEvents[0]).toMatchObject({ toolName: "use_forge_tool", isError: true });
			expect(refused.toolEvents[0].text).toContain("pi does not trust this project");
			expect(refused.toolEvents[0].text).not.toContain("notes: hello");

			pi.session.settingsManager.setProjectTrusted(true);
			const ran = await pi.run("use it again", use);
			expect(ran.toolEvents[0]).toMatchObject({ toolName: "use_forge_tool", isError: false });
			expect(ran.toolEvents[0].text).toContain("notes: hello");
		}, 120_000);

		it("trusted with --approve: the project's tool runs, but its permissive config is ignored (looser than prompt)", async () => {
			const repo = await clonedRepository(true);
			const run = await runPiJson({
				cwd: repo.cwd,
				agentDir: repo.agentDir,
				args: ["--approve"],
				prompts: ["use the repository's tool"],
				script: [
					{ calls: [{ name: "use_forge_tool", args: { name: "repo-reader", args: {} } }] },
					{ text: "done" },
				],
			});
			expect(run.code, run.stderr).toBe(0);
			expect(repo.extensionRan()).toBe(true);
			expect(run.ends).toHaveLength(1);
			expect(run.ends[0]).toMatchObject({ tool: "use_forge_tool", isError: true });
			expect(run.ends[0].text).not.toContain(READ_TEXT);
			expect(run.ends[0].text).toContain("'repo-reader' may not read <outside the project>/hosts: no UI to ask.");
			expect(warnings(run.stderr)).toEqual([
				`Agent Forge: warning: ${join(repo.cwd, ".pi", "forge", "config.json")}: "policy": "permissive" is looser than your policy (prompt, from the default); a project's config file may only tighten the policy, so it is ignored. To use permissive, set PI_FORGE_POLICY=permissive or "policy": "permissive" in ${join(repo.agentDir, "forge", "config.json")}.`,
			]);
		}, 180_000);
	});
}

describe(`a project's config may only tighten the policy (${PI_LINE} line)`, () => {
	// The current line opens a toolbox made elsewhere only on explicit trust (project-trust-unasked-pi.test.ts).
	const use = (repo: Awaited<ReturnType<typeof clonedRepository>>) =>
		runPiJson({
			cwd: repo.cwd,
			agentDir: repo.agentDir,
			args: PI_LINE === "current" ? ["--approve"] : [],
			prompts: ["use the repository's tool"],
			script: [{ calls: [{ name: "use_forge_tool", args: { name: "repo-reader", args: {} } }] }, { text: "done" }],
		});

	it("a trusted project whose only pi folder is .pi/forge: its permissive config is ignored and the read refused", async () => {
		const repo = await clonedRepository(false);
		const run = await use(repo);
		expect(run.code, run.stderr).toBe(0);
		expect(run.ends[0]).toMatchObject({ tool: "use_forge_tool", isError: true });
		expect(run.ends[0].text).not.toContain(READ_TEXT);
		expect(run.ends[0].text).toContain("'repo-reader' may not read <outside the project>/hosts: no UI to ask.");
		const said = warnings(run.stderr);
		expect(said).toHaveLength(1);
		expect(said[0]).toContain('"policy": "permissive" is looser than your policy (prompt, from the default)');
	}, 180_000);

	it("the control: the user's own global config sets permissive, and the same read runs", async () => {
		const repo = await clonedRepository(false);
		await writeFile(join(repo.agentDir, "forge", "config.json"), JSON.stringify({ policy: "permissive" }));
		const run = await use(repo);
		expect(run.code, run.stderr).toBe(0);
		expect(run.ends[0]).toMatchObject({ tool: "use_forge_tool", isError: false });
		expect(run.ends[0].text).toContain(READ_TEXT);
		expect(warnings(run.stderr)).toEqual([]);
	}, 180_000);
});
