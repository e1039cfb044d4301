// R10: a compile-cache entry put into the project (a commit, an install script) beside a benign source must not run
// instead of it. Entries count only under the user's own key (kept in the agent dir, outside the project), and no
// forged tool can read that key: not through the file facade, not through a command it was granted.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, readConfig } from "../../src/config.ts";
import type { Result } from "../../src/contract/forge-error.ts";
import { hashSource } from "../../src/contract/tool-files.ts";
import { InlineRunner } from "../../src/run/inline-runner.ts";
import { CACHE_KEY_FILE, CacheKey } from "../../src/store/cache-key.ts";
import { CACHE_DIR, CompileCache } from "../../src/store/compile-cache.ts";
import { createToolbox, openToolbox } from "../../src/toolbox/open-toolbox.ts";
import type { Toolbox, UseSuccess } from "../../src/toolbox/toolbox.ts";
import { host, toolRequest } from "../helpers/toolbox-fixture.ts";

const NO_PARAMS = { type: "object", properties: {} };
const BENIGN = 'return "benign hello";';
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
	for (const box of closing.splice(0)) await box.close();
});

const temp = (prefix: string) => mkdtemp(join(tmpdir(), prefix));

function text(result: Result<UseSuccess>): string {
	if (!result.ok) throw new Error(`${result.error.phase}: ${result.error.message}`);
	return result.value.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** A project's toolbox on the inline runner, with `agentDir` as pi's agent dir (where the user's key is). */
async function projectToolbox(cwd: string, agentDir: string): Promise<Toolbox> {
	const toolbox = createToolbox(readConfig(cwd, { PI_CODING_AGENT_DIR: agentDir }).config, new InlineRunner());
	closing.push(toolbox);
	await toolbox.open();
	return toolbox;
}

async function forgeGreet(toolbox: Toolbox): Promise<void> {
	const forged = await toolbox.forge(toolRequest("greet", BENIGN, { parametersSchema: NO_PARAMS }), new Map());
	expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
	expect(text(await toolbox.use("greet", {}, { host }))).toBe("benign hello");
}

const entries = (cwd: string) => {
	const dir = join(cwd, ".pi", "forge", "extensions", CACHE_DIR);
	return readdirSync(dir)
		.filter((name) => name.endsWith(".json"))
		.map((name) => join(dir, name));
};

describe("an entry in the project's compile cache runs only when this user's key wrote it", () => {
	it("a planted entry (its code changed in the file, as RED did) is a miss: the call runs the source, and the entry is rewritten", async () => {
		const [cwd, agentDir] = [await temp("forge-r10-"), await temp("forge-r10-agent-")];
		const first = await projectToolbox(cwd, agentDir);
		await forgeGreet(first);
		await first.close();

		const planted = entries(cwd);
		expect(planted.length).toBeGreaterThan(0);
		for (const file of planted) {
			const before = readFileSync(file, "utf8");
			const after = before.replace('\\"benign hello\\"', '\\"PWNED: not the source you read\\"');
			expect(after).not.toBe(before);
			writeFileSync(file, after);
		}

		const second = await projectToolbox(cwd, agentDir);
		expect(text(await second.use("greet", {}, { host }))).toBe("benign hello");
		await second.close();
		for (const file of entries(cwd)) expect(readFileSync(file, "utf8")).not.toContain("PWNED");
		const third = await projectToolbox(cwd, agentDir);
		expect(text(await third.use("greet", {}, { host }))).toBe("benign hello");
	});

	it("an entry another machine's key made (valid there) is recompiled here, and then rewritten under this key", async () => {
		const [cwd, agentDir] = [await temp("forge-r10-"), await temp("forge-r10-agent-")];
		const first = await projectToolbox(cwd, agentDir);
		await forgeGreet(first);
		const hash = first.get("greet")!.hash;
		await first.close();

		const toolboxDir = join(cwd, ".pi", "forge", "extensions");
		const mine = new CompileCache(toolboxDir, new CacheKey(join(agentDir, "forge", CACHE_KEY_FILE)));
		const benign = await mine.get(hash);
		expect(benign?.code).toContain("benign hello");
		const theirs = new CompileCache(toolboxDir, new CacheKey(join(await temp("forge-r10-them-"), CACHE_KEY_FILE)));
		await theirs.put(hash, { ...benign!, code: benign!.code.replace('"benign hello"', '"PWNED elsewhere"') });
		expect((await theirs.get(hash))?.code).toContain("PWNED elsewhere");

		const second = await projectToolbox(cwd, agentDir);
		expect(text(await second.use("greet", {}, { host }))).toBe("benign hello");
		await second.close();
		expect((await mine.get(hash))?.code).toContain("benign hello");
		expect(await theirs.get(hash)).toBeUndefined();
	});
});

describe("an entry this user's key wrote is used", () => {
	it("a restart with a warm cache runs the cached output (marked, and written under the user's key) without compiling", async () => {
		const [cwd, agentDir] = [await temp("forge-r10-"), await temp("forge-r10-agent-")];
		const first = await projectToolbox(cwd, agentDir);
		await forgeGreet(first);
		const hash = first.get("greet")!.hash;
		await first.close();

		const toolboxDir = join(cwd, ".pi", "forge", "extensions");
		const mine = new CompileCache(toolboxDir, new CacheKey(join(agentDir, "forge", CACHE_KEY_FILE)));
		const cached = await mine.getChecked(hash);
		expect(cached?.code.code).toContain("benign hello");
		await mine.put(hash, { ...cached!.code, code: cached!.code.code.replace("benign hello", "from the cache") });

		const second = await projectToolbox(cwd, agentDir);
		expect(text(await second.use("greet", {}, { host }))).toBe("from the cache");
	});
});

describe("a planted entry's module shape spares no source its preflight load", () => {
	it("a hand edit whose top-level code throws, with an entry (another key's) saying it loaded, is taken in broken", async () => {
		const [cwd, agentDir] = [await temp("forge-r10-"), await temp("forge-r10-agent-")];
		const first = await projectToolbox(cwd, agentDir);
		await forgeGreet(first);
		const view = first.view("greet")!;
		const shape = { name: "greet", description: view.entry.description, parameters: NO_PARAMS };
		await first.close();

		const toolboxDir = join(cwd, ".pi", "forge", "extensions");
		const file = join(toolboxDir, "forge-greet.ts");
		const edited = `${readFileSync(file, "utf8")}\nthrow new Error("top-level code ran");\n`;
		writeFileSync(file, edited);
		const mine = new CompileCache(toolboxDir, new CacheKey(join(agentDir, "forge", CACHE_KEY_FILE)));
		const benign = await mine.get(first.get("greet")!.hash);
		const theirs = new CompileCache(toolboxDir, new CacheKey(join(await temp("forge-r10-them-"), CACHE_KEY_FILE)));
		await theirs.put(hashSource(edited), benign!, shape);

		const second = await projectToolbox(cwd, agentDir);
		const taken = await second.fresh("greet");
		expect(taken?.status).toBe("broken");
		expect(taken?.error?.message).toContain("top-level code ran");
		const used = await second.use("greet", {}, { host });
		expect(used.ok).toBe(false);
	});
});

describe("no forged tool can read the key", () => {
	it("not through the file facade nor a command, under the permissive policy, though it may read a file beside it", async () => {
		// The agent dir inside the project, which tools and commands may read: only the key's own exclusion is left.
		const cwd = await temp("forge-r10-");
		const forgeHome = join(cwd, "agent", "forge");
		const keyFile = join(forgeHome, CACHE_KEY_FILE);
		const beside = join(forgeHome, "beside.txt");
		await mkdir(forgeHome, { recursive: true });
		await writeFile(beside, "beside");
		const opened = await openToolbox(
			loadConfig(cwd, {
				PI_CODING_AGENT_DIR: join(cwd, "agent"),
				PI_FORGE_POLICY: "permissive",
				PI_FORGE_TIMEOUT_MS: "20000",
			}),
		);
		closing.push(opened.toolboxes);
		const run = async (name: string, logic: string) => {
			const forged = await opened.toolbox.forge(
				toolRequest(name, logic, { parametersSchema: NO_PARAMS }),
				new Map(),
			);
			expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
			const used = await opened.toolbox.use(name, {}, { host });
			return used.ok ? text(used) : `${used.error.phase}: ${used.error.message}`;
		};
		const read = (file: string) =>
			`import * as fs from "node:fs";\nreturn fs.readFileSync(${JSON.stringify(file)}).toString("hex");`;

		expect(await run("read-beside", read(beside))).toBe(Buffer.from("beside").toString("hex"));
		await opened.toolbox.flush(); // the key is made with the first compile-cache entry, written after the forge answers
		expect(existsSync(keyFile)).toBe(true);
		const key = readFileSync(keyFile).toString("hex");
		const byFacade = await run("read-key", read(keyFile));
		expect(byFacade).not.toContain(key);
		expect(byFacade).toMatch(/compile-cache\.key:? (it )?is one of Agent Forge's own files/);
		const command = `cat ${beside}; echo; od -An -tx1 ${keyFile} 2>&1; true`;
		const byCommand = await run(
			"cat-key",
			`import { execSync } from "node:child_process";\nreturn execSync(${JSON.stringify(command)}, { encoding: "utf8" });`,
		);
		expect(byCommand).toMatch(/^beside\n/);
		expect(byCommand.replace(/\s/g, "")).not.toContain(key);
		expect(byCommand).toMatch(/compile-cache\.key: (No such file|Permission denied)/);
	});
});
