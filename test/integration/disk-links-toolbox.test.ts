// A whole toolbox (and the folder checks of its open) on a folder a cloned repository filled: a tool file that is a
// link is a broken tool whose text is never read, `.state` and `.history/<name>` links are not followed by calls or by
// a promote, and a project toolbox reached through a link, or inside a folder pi loads code from, is not used.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import { InlineRunner } from "../../src/run/inline-runner.ts";
import { importTools } from "../../src/share/package.ts";
import { linkedToolboxEntries, unsafeToolboxFolder } from "../../src/store/toolbox-folder.ts";
import { createToolboxStores, openToolbox } from "../../src/toolbox/open-toolbox.ts";
import { Toolbox } from "../../src/toolbox/toolbox.ts";
import { Toolboxes, userRunner } from "../../src/toolbox/toolboxes.ts";
import { host, tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";

const SECRET = "password = hunter2-7f3a9c1e5b";
const closing: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
	for (const box of closing.splice(0)) await box.close();
});

/** A folder beside the project holding a secret and an empty folder. */
async function outsideOf(cwd: string): Promise<string> {
	const outside = join(cwd, "..", `${cwd.split("/").pop()}-outside`);
	await mkdir(join(outside, "empty"), { recursive: true });
	await writeFile(join(outside, "credentials"), `${SECRET}\n`);
	return outside;
}

describe("tool files and folders that are links", () => {
	it("a forge-<name>.ts link: the tool is broken, its text is never read, and the error says it is a link", async () => {
		const { toolbox, cwd, dir, reopen } = await tempToolbox();
		await toolbox.close();
		const outside = await outsideOf(cwd);
		await symlink(join(outside, "credentials"), join(dir, "forge-leak.ts"));
		const box = await reopen();
		closing.push(box);
		expect(box.get("leak")?.status).toBe("broken");
		expect(box.get("leak")?.error?.message).toContain("forge-leak.ts is a symbolic link");
		expect(JSON.stringify(box.get("leak"))).not.toContain("hunter2");
		await expect(box.readSource("leak")).rejects.toThrow(/forge-leak\.ts is a symbolic link/);
		const used = await box.use("leak", {}, { host }).catch((error: Error) => error.message);
		expect(JSON.stringify(used)).not.toContain("hunter2");
		expect(JSON.stringify(used)).toContain("symbolic link");
	});

	it("a forge-<name>.json link: its text is never read; the metadata is derived from the source instead", async () => {
		const { toolbox, cwd, dir, reopen } = await tempToolbox();
		expect((await toolbox.forge(toolRequest("real", "return params.text;"), new Map())).ok).toBe(true);
		await toolbox.close();
		const outside = await outsideOf(cwd);
		// Outside: the tool's own metadata, with a description of the outside file's (what a read through the link gives).
		const meta = JSON.parse(await readFile(join(dir, "forge-real.json"), "utf8"));
		await writeFile(join(outside, "meta.json"), JSON.stringify({ ...meta, description: SECRET }));
		await rm(join(dir, "forge-real.json"));
		await symlink(join(outside, "meta.json"), join(dir, "forge-real.json"));
		await rm(join(dir, "forge-registry.json"));
		const box = await reopen();
		closing.push(box);
		expect(box.get("real")?.description).toBe("The real tool.");
		expect(JSON.parse(await readFile(join(outside, "meta.json"), "utf8")).description).toBe(SECRET);
	});

	it("a promote whose .history/<name> is a link: the move drops nothing through it", async () => {
		const [cwd, agentDir] = [
			await mkdtemp(join(tmpdir(), "forge-dl-")),
			await mkdtemp(join(tmpdir(), "forge-dl-a-")),
		];
		const { config } = readConfig(cwd, { PI_CODING_AGENT_DIR: agentDir });
		const runner = new InlineRunner();
		const make = async (scope: "project" | "user", dir: string) => {
			const scoped = { ...config, toolboxDir: dir };
			const stores = createToolboxStores(scoped);
			const toolbox = new Toolbox(scoped, scope === "user" ? userRunner(runner) : runner, stores);
			await toolbox.open();
			return { scope, toolbox, stores };
		};
		const project = await make("project", config.toolboxDir);
		const boxes = new Toolboxes(project, await make("user", config.userToolboxDir ?? ""));
		closing.push(boxes);
		expect((await boxes.forge(toolRequest("moved", "return params.text;"), new Map())).ok).toBe(true);
		expect((await project.toolbox.versions("moved")).map((e) => e.version)).toEqual([1]);
		const outside = await outsideOf(cwd);
		// Outside: a history of its own (an index and the version it names), which a read through the link would take.
		const digest = createHash("sha256").update(SECRET).digest("hex");
		await writeFile(join(outside, `${digest}.ts`), SECRET);
		await writeFile(join(outside, `${digest}.json`), SECRET);
		const entry = { version: 7, event: "forged", at: new Date().toISOString(), ts: digest, json: digest };
		await writeFile(join(outside, "index.jsonl"), `${JSON.stringify(entry)}\n`);
		await rm(join(config.toolboxDir, ".history", "moved"), { recursive: true });
		await symlink(outside, join(config.toolboxDir, ".history", "moved"));
		expect((await boxes.promote("moved")).ok).toBe(true);
		expect((await boxes.versions("moved")).map((e) => e.version)).not.toContain(7);
		expect(await readFile(join(outside, "credentials"), "utf8")).toBe(`${SECRET}\n`);
		expect(existsSync(join(outside, "index.jsonl"))).toBe(true);
	});
});

describe("the toolbox folder itself", () => {
	it("a project whose .pi (or .pi/forge) is a link: its toolbox is not opened, and the error says why", async () => {
		for (const linked of [".pi", join(".pi", "forge")]) {
			const cwd = await mkdtemp(join(tmpdir(), "forge-dl-"));
			const outside = await outsideOf(cwd);
			await mkdir(join(cwd, linked, ".."), { recursive: true });
			await symlink(join(outside, "empty"), join(cwd, linked));
			const agentDir = await mkdtemp(join(tmpdir(), "forge-dl-a-"));
			await expect(openToolbox(readConfig(cwd, { PI_CODING_AGENT_DIR: agentDir }))).rejects.toThrow(
				`${join(cwd, linked)} is a symbolic link`,
			);
			expect(await readdir(join(outside, "empty"))).toEqual([]);
		}
	});

	it("a toolbox inside pi's extensions folder (PI_FORGE_DIR, or the user toolbox through a link) is refused", async () => {
		const agentDir = await mkdtemp(join(tmpdir(), "forge-dl-a-"));
		await mkdir(join(agentDir, "extensions"));
		expect(await unsafeToolboxFolder(join(agentDir, "extensions"), { agentDir })).toContain("whose files pi loads");
		await mkdir(join(agentDir, "forge"));
		await symlink(join(agentDir, "extensions"), join(agentDir, "forge", "extensions"));
		expect(await unsafeToolboxFolder(join(agentDir, "forge", "extensions"), { agentDir })).toContain(
			"through a link",
		);
		expect(await unsafeToolboxFolder(join(agentDir, "themes"), { agentDir })).toContain("whose files pi loads");
		expect(await unsafeToolboxFolder(join(agentDir, "extensions", "sub"), { agentDir })).toContain("pi loads");
		const cwd = await mkdtemp(join(tmpdir(), "forge-dl-"));
		expect(await unsafeToolboxFolder(join(cwd, ".pi", "forge", "extensions"), { agentDir, project: cwd })).toBe(
			undefined,
		);
		// An extension being written in the extensions folder is a project of its own: its toolbox is deep enough.
		const extension = join(agentDir, "extensions", "my-extension");
		const own = join(extension, ".pi", "forge", "extensions");
		expect(await unsafeToolboxFolder(own, { agentDir, project: extension })).toBe(undefined);
	});

	it("links at the places of its own files are reported at the open, each with what is done instead", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "forge-dl-"));
		const outside = await outsideOf(cwd);
		const dir = join(cwd, ".pi", "forge", "extensions");
		await mkdir(dir, { recursive: true });
		await symlink(join(outside, "credentials"), join(dir, ".gitignore"));
		await writeFile(join(dir, ".state"), "");
		await mkdir(join(dir, ".history"));
		await writeFile(join(dir, ".forge-health.json"), "{}");
		const agentDir = await mkdtemp(join(tmpdir(), "forge-dl-a-"));
		const opened = await openToolbox(readConfig(cwd, { PI_CODING_AGENT_DIR: agentDir }));
		closing.push(opened.toolboxes);
		const told = opened.problems.map((p) => p.message);
		expect(told).toEqual([
			`${join(dir, ".gitignore")} is a symbolic link in the toolbox folder; Agent Forge does not follow it: it is left as it is.`,
			`${join(dir, ".state")} is not a folder in the toolbox folder; Agent Forge does not follow it: the compile cache is off until it is removed.`,
		]);
		expect(await linkedToolboxEntries(join(cwd, "nothing-here"))).toEqual([]);
	});
});

describe("importing from a folder that holds links", () => {
	it("a tool file there that is a link is not read: that tool is not imported, saying why; the others are", async () => {
		const { toolbox, cwd, dir } = await tempToolbox();
		const from = join(cwd, "..", `${cwd.split("/").pop()}-package`);
		await mkdir(from, { recursive: true });
		expect((await toolbox.forge(toolRequest("honest", "return params.text;"), new Map())).ok).toBe(true);
		for (const file of ["forge-honest.ts", "forge-honest.json"])
			await writeFile(join(from, file), await readFile(join(dir, file), "utf8"));
		const outside = await outsideOf(cwd);
		await writeFile(join(from, "forge-leak.json"), await readFile(join(dir, "forge-honest.json"), "utf8"));
		await symlink(join(outside, "credentials"), join(from, "forge-leak.ts"));
		expect((await toolbox.remove("honest")).ok).toBe(true);
		const outcomes = await importTools(toolbox, from);
		const byName = Object.fromEntries(outcomes.map((o) => [o.name, o]));
		expect(byName.honest.ok).toBe(true);
		expect(byName.leak.ok).toBe(false);
		expect(byName.leak.error?.message).toContain("symbolic link");
		expect(JSON.stringify(byName.leak)).not.toContain("hunter2");
		await toolbox.close();
	});
});
