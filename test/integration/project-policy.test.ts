// The policy and the limits from the files on disk (loadConfig): the user's (the environment, the global config, the
// default) and the project's .pi/forge/config.json, which may only tighten them; and an untrusted project, whose config is not read
// and whose toolbox is not opened (openToolbox gets the user toolbox alone and leaves the project's files as they are).
import { mkdir, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { type OpenedToolbox, openToolbox } from "../../src/toolbox/open-toolbox.ts";

const opened: OpenedToolbox[] = [];
afterEach(async () => {
	for (const box of opened.splice(0)) await box.toolboxes.close();
});

/** A project and an agent dir on disk, with the global and the project's config files as given (objects or text). */
async function setUp(files: { global?: unknown; project?: unknown }) {
	const root = await mkdtemp(join(tmpdir(), "forge-policy-"));
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	await mkdir(join(cwd, ".pi", "forge"), { recursive: true });
	await mkdir(join(agentDir, "forge"), { recursive: true });
	const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
	if (files.global !== undefined) await writeFile(join(agentDir, "forge", "config.json"), text(files.global));
	if (files.project !== undefined) await writeFile(join(cwd, ".pi", "forge", "config.json"), text(files.project));
	return { cwd, agentDir, projectFile: join(cwd, ".pi", "forge", "config.json") };
}

const policyOf = (cwd: string, env: Record<string, string>, projectTrusted?: boolean) =>
	loadConfig(cwd, env, {}, projectTrusted === undefined ? {} : { projectTrusted });

describe("the project's policy may only tighten the user's", () => {
	const cases: Array<{ user: { env?: string; global?: string }; project: string; policy: string; ignored: boolean }> =
		[
			{ user: {}, project: "permissive", policy: "prompt", ignored: true },
			{ user: {}, project: "strict", policy: "strict", ignored: false },
			{ user: { global: "strict" }, project: "permissive", policy: "strict", ignored: true },
			{ user: { global: "strict" }, project: "prompt", policy: "strict", ignored: true },
			{ user: { global: "permissive" }, project: "prompt", policy: "prompt", ignored: false },
			{ user: { env: "prompt", global: "permissive" }, project: "permissive", policy: "prompt", ignored: true },
			{ user: { env: "permissive" }, project: "strict", policy: "strict", ignored: false },
			{ user: { global: "permissive" }, project: "permissive", policy: "permissive", ignored: false },
		];
	for (const { user, project, policy, ignored } of cases)
		it(`user ${JSON.stringify(user)}, project ${project} → ${policy}${ignored ? " (the project's is ignored)" : ""}`, async () => {
			const setup = await setUp({
				global: user.global ? { policy: user.global } : undefined,
				project: { policy: project },
			});
			const env = { PI_CODING_AGENT_DIR: setup.agentDir, ...(user.env ? { PI_FORGE_POLICY: user.env } : {}) };
			const { config, problems } = policyOf(setup.cwd, env);
			expect(config.policy).toBe(policy);
			expect(problems).toHaveLength(ignored ? 1 : 0);
			if (ignored) {
				expect(problems[0].origin).toEqual({ file: setup.projectFile, key: "policy" });
				expect(problems[0].message).toContain(
					`${setup.projectFile}: "policy": "${project}" is looser than your policy`,
				);
				expect(problems[0].message).toContain(`set PI_FORGE_POLICY=${project} or "policy": "${project}" in`);
			}
			if (!ignored && project === policy && project !== (user.env ?? user.global ?? "prompt"))
				expect(config.policyFrom).toContain(`${setup.projectFile}: "policy": "${project}" (tighter than`);
		});

	it("the project's other settings still apply", async () => {
		const setup = await setUp({ project: { policy: "permissive", timeoutMs: 1234, pinned: ["a"] } });
		const { config } = policyOf(setup.cwd, { PI_CODING_AGENT_DIR: setup.agentDir });
		expect(config).toMatchObject({ policy: "prompt", timeoutMs: 1234, pinned: ["a"] });
	});

	it("its limits may only be lower than the user's: higher ones are ignored and reported", async () => {
		const setup = await setUp({
			global: { timeoutMs: 5000, maxMemoryMb: 256 },
			project: { timeoutMs: 600_000, maxMemoryMb: 128, quarantineAfter: 1000 },
		});
		const { config, problems } = policyOf(setup.cwd, { PI_CODING_AGENT_DIR: setup.agentDir });
		expect(config).toMatchObject({ timeoutMs: 5000, maxMemoryMb: 128, quarantineAfter: 5 });
		expect(problems.map((p) => p.origin)).toEqual([
			{ file: setup.projectFile, key: "timeoutMs" },
			{ file: setup.projectFile, key: "quarantineAfter" },
		]);
		expect(problems[0].message).toContain('"timeoutMs": 600000 is higher than your limit (5000, from');
		expect(problems[1].message).toContain('"quarantineAfter": 1000 is higher than your limit (5, from the default)');
	});
});

describe("a project's lower history and quarantine limits", () => {
	it("apply to the project's toolbox, not to the user toolbox: the user's history is kept to the user's own limit", async () => {
		const setup = await setUp({ global: { historyLimit: 10 }, project: { historyLimit: 1, quarantineAfter: 1 } });
		const box = await openToolbox(policyOf(setup.cwd, { PI_CODING_AGENT_DIR: setup.agentDir }, true));
		opened.push(box);
		expect(box.config).toMatchObject({ historyLimit: 1, quarantineAfter: 1 });
		expect(box.config.userLimits).toEqual({ historyLimit: 10, quarantineAfter: 5 });
		const versionsOf = async (scope: "project" | "user") => {
			for (const text of ["one", "two", "three"]) {
				const request = {
					name: `kept-${scope}`,
					description: "Says a word.",
					parametersSchema: { type: "object", properties: {} },
					logic: `return ${JSON.stringify(text)};`,
				};
				const forged = await box.toolboxes.forge(request, new Map(), { scope });
				expect(forged.ok).toBe(true);
			}
			return (await box.toolboxes.versions(`kept-${scope}`)).map((entry) => entry.version);
		};
		expect(await versionsOf("user")).toEqual([1, 2, 3]);
		expect(await versionsOf("project")).toEqual([3]);
	});
});

describe("an untrusted project", () => {
	it("its config file is not read at all (not even reported when broken)", async () => {
		for (const project of [{ policy: "strict", timeoutMs: 1234 }, "{ not json", { policy: "permissive" }]) {
			const setup = await setUp({ global: { timeoutMs: 999 }, project });
			const { config, problems } = policyOf(setup.cwd, { PI_CODING_AGENT_DIR: setup.agentDir }, false);
			expect(problems).toEqual([]);
			expect(config).toMatchObject({
				policy: "prompt",
				policyFrom: "the default",
				timeoutMs: 999,
				projectTrusted: false,
			});
		}
	});

	it("openToolbox opens the user toolbox alone; the project's toolbox is left as it is", async () => {
		const setup = await setUp({});
		const projectTools = join(setup.cwd, ".pi", "forge", "extensions");
		await mkdir(projectTools);
		await writeFile(join(projectTools, "forge-repo-reader.ts"), "export default 1;\n");
		const before = await readdir(projectTools);
		const box = await openToolbox(policyOf(setup.cwd, { PI_CODING_AGENT_DIR: setup.agentDir }, false));
		opened.push(box);
		expect(box.config.toolboxDir).toBe(join(setup.agentDir, "forge", "extensions"));
		expect(box.config.withheldToolboxDir).toBe(projectTools);
		expect(box.toolboxes.user).toBeUndefined();
		expect(box.toolboxes.get("repo-reader")).toBeUndefined();
		expect(await readdir(projectTools)).toEqual(before);
	});
});
