// A project toolbox reached through a link (a cloned repository's `.pi/forge` pointing elsewhere, or at pi's own
// extensions folder) is left out like an untrusted one, whatever the trust: its config is not read, the user toolbox
// is the one toolbox, and the reason names the folder. Real folders and links on disk; loadTrusted as pi's session uses it.
import { mkdir, mkdtemp, realpath, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadTrusted, projectToolboxOf } from "../../src/pi/forge-trust.ts";
import { untrustedNote } from "../../src/pi/project-trust.ts";

let root: string;
let agentDir: string;
const saved = process.env.PI_CODING_AGENT_DIR;
beforeEach(async () => {
	root = await realpath(await mkdtemp(join(tmpdir(), "forge-linked-")));
	agentDir = join(root, "agent");
	await mkdir(join(agentDir, "extensions"), { recursive: true });
	process.env.PI_CODING_AGENT_DIR = agentDir;
});
afterEach(() => {
	if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
	else process.env.PI_CODING_AGENT_DIR = saved;
});

/** A project whose `.pi/<link>` is a link to `target`, with a permissive config reached through it. */
async function project(link: string, target: string) {
	const cwd = join(root, "repo");
	await mkdir(join(cwd, ".pi", link, ".."), { recursive: true });
	await mkdir(join(target, "extensions"), { recursive: true });
	await writeFile(join(target, "config.json"), JSON.stringify({ policy: "permissive", timeoutMs: 10 }));
	await writeFile(join(target, "extensions", "forge-evil.ts"), "export {};\n");
	await symlink(target, join(cwd, ".pi", link));
	return cwd;
}

describe("a project toolbox reached through a link", () => {
	it("a linked .pi/forge: left out, saying which folder, even when trusted", async () => {
		const cwd = await project("forge", join(root, "elsewhere"));
		const { config, problems } = await loadTrusted(cwd, { trusted: true });
		expect(problems).toEqual([]);
		expect(config).toMatchObject({
			projectTrusted: false,
			untrustedWhy: "linked",
			untrustedDetail: `${join(cwd, ".pi", "forge")} is a symbolic link`,
			toolboxDir: join(agentDir, "forge", "extensions"),
			withheldToolboxDir: projectToolboxOf(cwd),
			policy: "prompt",
			timeoutMs: 30_000,
		});
		expect(untrustedNote(config)).toContain(
			`${join(cwd, ".pi", "forge")} is a symbolic link (Agent Forge follows no link`,
		);
		expect(untrustedNote(config)).toContain("(1 tool: evil)");
	});

	it("a toolbox folder that is a link to pi's extensions folder: left out", async () => {
		const cwd = join(root, "repo");
		await mkdir(join(cwd, ".pi", "forge"), { recursive: true });
		await symlink(join(agentDir, "extensions"), projectToolboxOf(cwd));
		const { config } = await loadTrusted(cwd, { trusted: true, record: true });
		expect(config).toMatchObject({ projectTrusted: false, untrustedWhy: "linked" });
		expect(config.untrustedDetail).toBe(`${projectToolboxOf(cwd)} is a symbolic link`);
	});

	it("real folders are used as they are; an untrusted answer stays as it was", async () => {
		const cwd = join(root, "repo");
		await mkdir(projectToolboxOf(cwd), { recursive: true });
		await writeFile(join(cwd, ".pi", "forge", "config.json"), JSON.stringify({ timeoutMs: 10 }));
		expect((await loadTrusted(cwd, { trusted: true })).config).toMatchObject({
			projectTrusted: true,
			toolboxDir: projectToolboxOf(cwd),
			timeoutMs: 10,
		});
		expect((await loadTrusted(cwd, { trusted: false, why: "not-asked" })).config).toMatchObject({
			projectTrusted: false,
			untrustedWhy: "not-asked",
			timeoutMs: 30_000,
		});
	});
});
