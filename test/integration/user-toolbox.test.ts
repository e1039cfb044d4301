// The user toolbox beside the project's (toolboxes.ts, move-tool.ts): a name resolves to the project's tool first,
// forges go into the scope asked for, promote/demote move a tool with its history and version, a user toolbox that
// does not exist yet is made only by a change, a tool forged by another process is found at the next call, and one
// runner serves both without namesakes sharing code.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { readConfig } from "../../src/config.ts";
import type { Result } from "../../src/contract/forge-error.ts";
import { InlineRunner } from "../../src/run/inline-runner.ts";
import { createToolboxStores, openToolbox } from "../../src/toolbox/open-toolbox.ts";
import { Toolbox, type UseSuccess } from "../../src/toolbox/toolbox.ts";
import { Toolboxes, userRunner } from "../../src/toolbox/toolboxes.ts";
import { host, toolRequest } from "../helpers/toolbox-fixture.ts";

const open: Toolboxes[] = [];
afterEach(async () => {
	for (const boxes of open.splice(0)) await boxes.close();
});

const temp = (prefix: string) => mkdtemp(join(tmpdir(), prefix));

/** The two toolboxes of `cwd` with `agentDir` as pi's agent dir, on one inline runner (as openToolbox puts them). */
async function toolboxes(cwd: string, agentDir: string, env: Record<string, string> = {}, readOnly = false) {
	const { config } = readConfig(cwd, { PI_CODING_AGENT_DIR: agentDir, ...env });
	const runner = new InlineRunner();
	const make = async (scope: "project" | "user", dir: string) => {
		const scoped = { ...config, toolboxDir: dir };
		const stores = createToolboxStores(scoped);
		const toolbox = new Toolbox(scoped, scope === "user" ? userRunner(runner) : runner, stores);
		await toolbox.open({ readOnly });
		return { scope, toolbox, stores };
	};
	const project = await make("project", config.toolboxDir);
	const user = config.userToolboxDir ? await make("user", config.userToolboxDir) : undefined;
	const boxes = new Toolboxes(project, user);
	open.push(boxes);
	return boxes;
}

async function forged(boxes: Toolboxes, name: string, logic: string, scope?: "project" | "user") {
	const result = await boxes.forge(toolRequest(name, logic), new Map(), { scope });
	expect(result.ok, result.ok ? "" : result.error.message).toBe(true);
	return result;
}

function text(result: Result<UseSuccess>): string {
	if (!result.ok) throw new Error(`${result.error.phase}: ${result.error.message}`);
	return result.value.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

const userDir = (agentDir: string) => join(agentDir, "forge", "extensions");
const projectDir = (cwd: string) => join(cwd, ".pi", "forge", "extensions");

describe("two toolboxes as one", () => {
	it("forges into the scope asked for, and the project's tool wins a name clash", async () => {
		const [cwd, agentDir] = [await temp("forge-ut-"), await temp("forge-ut-agent-")];
		const boxes = await toolboxes(cwd, agentDir);
		const user = await forged(boxes, "greet", "return 'user';", "user");
		expect(user.ok && user.value.scope).toBe("user");
		expect(existsSync(join(userDir(agentDir), "forge-greet.ts"))).toBe(true);
		expect(existsSync(join(projectDir(cwd), "forge-greet.ts"))).toBe(false);
		expect(boxes.scopeOf("greet")).toBe("user");
		expect(text(await boxes.use("greet", { text: "x" }, { host }))).toBe("user");

		await forged(boxes, "greet", "return 'project';");
		expect(boxes.scopeOf("greet")).toBe("project");
		expect(text(await boxes.use("greet", { text: "x" }, { host }))).toBe("project");
		expect(boxes.view("greet")?.hides?.version).toBe(1);
		expect(boxes.entries().map((e) => e.name)).toEqual(["greet"]);
		expect(boxes.list("greet").tools.map((t) => [t.entry.name, t.scope])).toEqual([["greet", "project"]]);

		// Without the project's, the user toolbox's is used again.
		expect((await boxes.remove("greet")).ok).toBe(true);
		expect(text(await boxes.use("greet", { text: "x" }, { host }))).toBe("user");
	});

	it("lists both toolboxes with their scope, and searches them together", async () => {
		const [cwd, agentDir] = [await temp("forge-ut-"), await temp("forge-ut-agent-")];
		const boxes = await toolboxes(cwd, agentDir);
		await forged(boxes, "csv-sum", "return 1;");
		await forged(boxes, "csv-count", "return 2;", "user");
		expect(boxes.list().tools.map((t) => `${t.entry.name}:${t.scope}`)).toEqual([
			"csv-sum:project",
			"csv-count:user",
		]);
		expect(boxes.list("csv count").tools[0]).toMatchObject({ scope: "user", entry: { name: "csv-count" } });
		const unknown = await boxes.use("csv-cont", {}, { host });
		expect(!unknown.ok && unknown.error.message).toContain("There is no forged tool named 'csv-cont'");
		expect(!unknown.ok && unknown.error.details.notes?.join(" ")).toContain("csv-count");
	});

	it('a failing user tool says to repair it with scope "user"', async () => {
		const boxes = await toolboxes(await temp("forge-ut-"), await temp("forge-ut-agent-"));
		await forged(boxes, "flaky", "throw new Error('nope');", "user");
		const failed = await boxes.use("flaky", { text: "x" }, { host });
		expect(!failed.ok && failed.error.details.notes).toContain(
			"'flaky' is from the user toolbox: to repair it there (for every project), pass scope \"user\" to forge_tool.",
		);
	});

	it("a scope that is not one is refused, naming the two", async () => {
		const boxes = await toolboxes(await temp("forge-ut-"), await temp("forge-ut-agent-"));
		const result = await boxes.forge(toolRequest("x", "return 1;"), new Map(), { scope: "global" });
		expect(!result.ok && result.error.message).toBe('scope is "project" (the default) or "user", not "global".');
	});

	it("a user toolbox that does not exist yet is made by the first forge into it, not by opening", async () => {
		const [cwd, agentDir] = [await temp("forge-ut-"), await temp("forge-ut-agent-")];
		const readOnly = await toolboxes(cwd, agentDir, {}, true);
		expect(readOnly.list().total).toBe(0);
		expect(existsSync(userDir(agentDir))).toBe(false);
		const boxes = await toolboxes(cwd, agentDir);
		await forged(boxes, "first", "return 'made';", "user");
		expect(existsSync(join(userDir(agentDir), "forge-first.ts"))).toBe(true);
		expect(existsSync(join(userDir(agentDir), ".gitignore"))).toBe(true);
	});

	it("a tool forged into the user toolbox by another process is found at the next call", async () => {
		const agentDir = await temp("forge-ut-agent-");
		const here = await toolboxes(await temp("forge-ut-a-"), agentDir);
		const there = await toolboxes(await temp("forge-ut-b-"), agentDir);
		expect(here.get("shared")).toBeUndefined();
		await forged(there, "shared", "return 'v1 from there';", "user");
		expect(text(await here.use("shared", { text: "x" }, { host }))).toBe("v1 from there");
		await forged(there, "shared", "return 'v2 from there';", "user");
		expect(text(await here.use("shared", { text: "x" }, { host }))).toBe("v2 from there");
		expect(here.get("shared")?.version).toBe(2);
	});
});

describe("promote and demote", () => {
	it("move a tool with its version and history, and back", async () => {
		const [cwd, agentDir] = [await temp("forge-ut-"), await temp("forge-ut-agent-")];
		const boxes = await toolboxes(cwd, agentDir);
		await forged(boxes, "count", "return 'one';");
		await forged(boxes, "count", "return 'two';");
		expect(text(await boxes.use("count", { text: "x" }, { host }))).toBe("two");
		const promoted = await boxes.promote("count");
		expect(promoted.ok && promoted.value).toMatchObject({ name: "count", version: 2, from: "project", to: "user" });
		expect(boxes.scopeOf("count")).toBe("user");
		expect(existsSync(join(projectDir(cwd), "forge-count.ts"))).toBe(false);
		expect(existsSync(join(projectDir(cwd), ".history", "count"))).toBe(false);
		expect((await boxes.versions("count")).map((e) => `v${e.version} ${e.event}`)).toEqual([
			"v1 forged",
			"v2 forged",
		]);
		expect(text(await boxes.use("count", { text: "x" }, { host }))).toBe("two");
		// Its calls came along too.
		expect(boxes.healthOf("count")?.calls).toBe(2);
		// The history came along: v1 can be rolled back to in the user toolbox.
		const rolled = await boxes.rollback("count", 1);
		expect(rolled.ok && rolled.value.meta.version).toBe(3);
		expect(text(await boxes.use("count", { text: "x" }, { host }))).toBe("one");

		const demoted = await boxes.demote("count");
		expect(demoted.ok && demoted.value).toMatchObject({ version: 3, from: "user", to: "project" });
		expect(boxes.scopeOf("count")).toBe("project");
		expect(existsSync(join(userDir(agentDir), "forge-count.ts"))).toBe(false);
		expect((await boxes.versions("count")).map((e) => e.version)).toEqual([1, 2, 3]);
		expect(await readFile(join(projectDir(cwd), "forge-count.ts"), "utf8")).toContain("return 'one';");
	});

	it("promote of a tool the project toolbox does not have is an error, and so is one the user toolbox has", async () => {
		const [cwd, agentDir] = [await temp("forge-ut-"), await temp("forge-ut-agent-")];
		const boxes = await toolboxes(cwd, agentDir);
		const unknown = await boxes.promote("nope");
		expect(!unknown.ok && unknown.error.message).toBe("There is no tool named 'nope' in the project toolbox.");

		await forged(boxes, "dup", "return 'user';", "user");
		await forged(boxes, "dup", "return 'project';");
		const refused = await boxes.promote("dup");
		expect(!refused.ok && refused.error.message).toContain("The user toolbox already has a tool named 'dup' (v1)");
		expect(!refused.ok && refused.error.details.hint).toContain("--force");
		expect(boxes.scopeOf("dup")).toBe("project");

		const forced = await boxes.promote("dup", { force: true });
		expect(forced.ok && forced.value.replaced).toBe(1);
		expect(text(await boxes.use("dup", { text: "x" }, { host }))).toBe("project");
		expect(boxes.scopeOf("dup")).toBe("user");
		// The replaced version's history stays in the user toolbox, before the tool that replaced it.
		expect((await boxes.versions("dup")).map((e) => e.event)).toEqual(["forged", "removed", "forged"]);
	});

	it("demote of a tool that is only in the project says where it is", async () => {
		const boxes = await toolboxes(await temp("forge-ut-"), await temp("forge-ut-agent-"));
		await forged(boxes, "here", "return 1;");
		const result = await boxes.demote("here");
		expect(!result.ok && result.error.message).toBe("There is no tool named 'here' in the user toolbox.");
		expect(!result.ok && result.error.details.hint).toBe("'here' is already in the project toolbox.");
	});

	it("with PI_FORGE_DIR set, promote moves from that folder; set to the user toolbox itself, there is one toolbox", async () => {
		const [cwd, agentDir, elsewhere] = [
			await temp("forge-ut-"),
			await temp("forge-ut-agent-"),
			await temp("forge-ut-dir-"),
		];
		const boxes = await toolboxes(cwd, agentDir, { PI_FORGE_DIR: elsewhere });
		await forged(boxes, "moved", "return 1;");
		expect(existsSync(join(elsewhere, "forge-moved.ts"))).toBe(true);
		expect((await boxes.promote("moved")).ok).toBe(true);
		expect(existsSync(join(elsewhere, "forge-moved.ts"))).toBe(false);
		expect(existsSync(join(userDir(agentDir), "forge-moved.ts"))).toBe(true);

		const single = await toolboxes(cwd, agentDir, { PI_FORGE_DIR: userDir(agentDir) });
		expect(single.user).toBeUndefined();
		expect(single.get("moved")).toBeDefined();
		const scoped = await single.forge(toolRequest("other", "return 1;"), new Map(), { scope: "user" });
		expect(!scoped.ok && scoped.error.message).toContain("PI_FORGE_DIR is the user toolbox's own folder");
		const promote = await single.promote("moved");
		expect(!promote.ok && promote.error.message).toContain("There is no separate user toolbox here");
	});
});

describe("opening", () => {
	it("a user toolbox that cannot be opened is reported, and the project's toolbox works without it", async () => {
		const [cwd, agentDir] = [await temp("forge-ut-"), await temp("forge-ut-agent-")];
		await mkdir(join(agentDir, "forge"), { recursive: true });
		await writeFile(userDir(agentDir), "not a folder");
		const opened = await openToolbox(readConfig(cwd, { PI_CODING_AGENT_DIR: agentDir }));
		open.push(opened.toolboxes);
		expect(opened.toolboxes.user).toBeUndefined();
		expect(opened.problems.map((p) => p.message).join("\n")).toContain(
			`The user toolbox (${userDir(agentDir)}) could not be opened`,
		);
		await forged(opened.toolboxes, "still-works", "return 'yes';");
		expect(text(await opened.toolboxes.use("still-works", { text: "x" }, { host }))).toBe("yes");
	}, 60_000);
});

describe("one runner for both toolboxes", () => {
	it("runs a user tool and a project tool of the same name each with its own code (isolated runner)", async () => {
		const [cwd, agentDir] = [await temp("forge-ut-"), await temp("forge-ut-agent-")];
		const opened = await openToolbox(
			readConfig(cwd, { PI_CODING_AGENT_DIR: agentDir, PI_FORGE_TIMEOUT_MS: "20000" }),
		);
		open.push(opened.toolboxes);
		const boxes = opened.toolboxes;
		await forged(boxes, "twin", "return 'user twin';", "user");
		await forged(boxes, "twin", "return 'project twin';");
		const user = boxes.user!.toolbox;
		const calls = await Promise.all([
			boxes.use("twin", { text: "x" }, { host }),
			user.use("twin", { text: "x" }, { host }),
			boxes.use("twin", { text: "x" }, { host }),
			user.use("twin", { text: "x" }, { host }),
		]);
		expect(calls.map(text)).toEqual(["project twin", "user twin", "project twin", "user twin"]);
	}, 60_000);
});

describe("agent-forge with the user toolbox", () => {
	const run = async (args: string[], cwd: string, agentDir: string) => {
		const out: string[] = [];
		const err: string[] = [];
		const code = await main(
			[...args, "--cwd", cwd],
			{ out: (t) => out.push(t), err: (t) => err.push(t) },
			{ PI_CODING_AGENT_DIR: agentDir },
		);
		return { code, out: out.join("\n"), err: err.join("\n") };
	};

	it("read-only commands show the scope and make no user toolbox", async () => {
		const [cwd, agentDir] = [await temp("forge-ut-"), await temp("forge-ut-agent-")];
		const listed = await run(["list"], cwd, agentDir);
		expect(listed.code).toBe(0);
		expect(existsSync(userDir(agentDir))).toBe(false);
		expect(existsSync(projectDir(cwd))).toBe(false);

		const boxes = await toolboxes(cwd, agentDir);
		await forged(boxes, "mine", "return 1;");
		await forged(boxes, "ours", "return 2;", "user");
		await boxes.close();
		open.splice(0);
		const table = await run(["list"], cwd, agentDir);
		expect(table.out).toMatch(/^TOOL\s+VER\s+STATE\s+SCOPE/);
		expect(table.out).toMatch(/mine\s+v1\s+draft\s+project/);
		expect(table.out).toMatch(/ours\s+v1\s+draft\s+user/);
		const json = JSON.parse((await run(["list", "--json"], cwd, agentDir)).out) as Array<{
			name: string;
			scope: string;
		}>;
		expect(json.map((t) => [t.name, t.scope])).toEqual([
			["mine", "project"],
			["ours", "user"],
		]);
		expect((await run(["show", "ours"], cwd, agentDir)).out).toContain("Scope: user");
		expect((await run(["check"], cwd, agentDir)).out).toContain("✓ ours v1 [user toolbox]");
		// Grants are the person's, per project: a user tool gets one like a project tool.
		const granted = await run(["grant", "ours", "read:/etc/hostname"], cwd, agentDir);
		expect(granted.code, granted.err).toBe(0);
		expect(granted.out).toContain("Granted read:/etc/hostname to 'ours' v1");
	});

	it("promote refuses a name the user toolbox has unless --force, and --force is only for import, promote, demote", async () => {
		const [cwd, agentDir] = [await temp("forge-ut-"), await temp("forge-ut-agent-")];
		const boxes = await toolboxes(cwd, agentDir);
		await forged(boxes, "same", "return 'user';", "user");
		await forged(boxes, "same", "return 'project';");
		await boxes.close();
		open.splice(0);
		const refused = await run(["promote", "same"], cwd, agentDir);
		expect(refused.code).toBe(1);
		expect(refused.err).toContain("The user toolbox already has a tool named 'same' (v1)");
		const forced = await run(["promote", "same", "--force"], cwd, agentDir);
		expect(forced.code, forced.err).toBe(0);
		expect(forced.out).toBe(
			"Moved 'same' v1 to the user toolbox (every project sees it), with 1 stored version; it replaced the v1 that was there.",
		);
		expect(await readFile(join(userDir(agentDir), "forge-same.ts"), "utf8")).toContain("'project'");
		const unknown = await run(["demote", "nothing"], cwd, agentDir);
		expect(unknown.code).toBe(1);
		expect(unknown.err).toContain("There is no tool named 'nothing' in the user toolbox.");
		const usage = await run(["list", "--force"], cwd, agentDir);
		expect(usage.code).toBe(2);
		expect(usage.err).toContain("--force applies to import, promote, demote only");
	});
});
