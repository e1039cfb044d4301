// Re-checks of tools changed on disk while pi was closed: many at once in the isolated runner's batch workers (one
// failing to load, one never finishing, one leaving a global behind, among many), a tool edited again while its
// re-check runs, and a source the compile cache has seen pass (no new preflight).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import type { PreflightLoader } from "../../src/contract/module-shape.ts";
import { AuditLog } from "../../src/policy/audit-log.ts";
import { createPolicyGate } from "../../src/policy/gate.ts";
import { GrantsStore } from "../../src/policy/grants-store.ts";
import { InlineRunner } from "../../src/run/inline-runner.ts";
import { IsolatedRunner } from "../../src/run/isolated/parent/isolated-runner.ts";
import { createToolbox } from "../../src/toolbox/open-toolbox.ts";
import type { Toolbox } from "../../src/toolbox/toolbox.ts";
import { RUNTIME_DIR } from "../helpers/isolated-fixture.ts";
import { makeTempDir } from "../helpers/pi-harness.ts";
import { host, tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";

/** `count` tools forged (inline, quick), each returning "v1-<name>", in a toolbox that is then closed. */
async function forgedTools(count: number, env: Record<string, string> = {}) {
	const box = await tempToolbox(env);
	const names = Array.from({ length: count }, (_, i) => `t-${String(i).padStart(2, "0")}`);
	for (const name of names) {
		const forged = await box.toolbox.forge(toolRequest(name, `return "v1-${name}";`), new Map());
		if (!forged.ok) throw forged.error;
	}
	await box.toolbox.close();
	return { ...box, names };
}

async function edit(path: string, change: (source: string) => string): Promise<void> {
	await writeFile(path, change(await readFile(path, "utf8")));
}

/** A toolbox opened as pi opens it: the registry at once, the files compared right after. */
async function quickOpen(cwd: string, env: Record<string, string>, runner: Toolbox["runner"]): Promise<Toolbox> {
	const toolbox = createToolbox(readConfig(cwd, env).config, runner);
	await toolbox.open({ verify: "background" });
	return toolbox;
}

async function isolatedRunner(cwd: string, env: Record<string, string>): Promise<IsolatedRunner> {
	const { config } = readConfig(cwd, env);
	const agentDir = await makeTempDir("forge-recheck-agent");
	const grants = new GrantsStore(join(agentDir, "forge", "grants.json"));
	await grants.load();
	const audit = new AuditLog(join(config.toolboxDir, ".forge-audit.jsonl"), { secretValues: config.secretValues });
	const gate = createPolicyGate({
		config,
		grants,
		audit,
		runtimeDir: RUNTIME_DIR,
		protectedDirs: [join(agentDir, "forge")],
	});
	return new IsolatedRunner({ config, gate, runtimeDir: RUNTIME_DIR });
}

/** An inline runner whose batch loads go through `wrap` (to count them, or to act while one runs). */
function watchedRunner(
	wrap: (load: PreflightLoader, ...args: Parameters<PreflightLoader>) => ReturnType<PreflightLoader>,
): InlineRunner {
	const runner = new InlineRunner();
	Object.defineProperty(runner, "preflightBatch", {
		value: ((...args) => wrap(runner.preflight, ...args)) satisfies PreflightLoader,
	});
	return runner;
}

describe("a bulk re-check in the isolated runner's batch workers", () => {
	it("takes in every edit; a module that throws, one that never ends and one that leaves a global behind change nothing for the others", async () => {
		const env = { PI_FORGE_TIMEOUT_MS: "1500" };
		const { cwd, dir, names } = await forgedTools(24, env);
		// Every module refuses to load where another module's global is seen; t-00 leaves one behind.
		const guard =
			'if ((globalThis as any).forgeLeak) throw new Error("saw another module\'s global");\nexport const metadata';
		for (const name of names)
			await edit(join(dir, `forge-${name}.ts`), (s) =>
				s.replace(`return "v1-${name}";`, `return "v2-${name}";`).replace("export const metadata", guard),
			);
		await edit(join(dir, "forge-t-00.ts"), (s) =>
			s.replace("export const metadata", "(globalThis as any).forgeLeak = true;\nexport const metadata"),
		);
		await edit(join(dir, "forge-t-05.ts"), (s) =>
			s.replace("export const metadata", 'throw new Error("t-05 cannot find its data");\nexport const metadata'),
		);
		await edit(join(dir, "forge-t-11.ts"), (s) =>
			s.replace("export const metadata", "while (Date.now() > 0) {}\nexport const metadata"),
		);

		const runner = await isolatedRunner(cwd, env);
		const toolbox = await quickOpen(cwd, env, runner);
		try {
			await toolbox.verified();
			expect(toolbox.get("t-05")).toMatchObject({
				status: "broken",
				error: { phase: "load", message: expect.stringContaining("t-05 cannot find its data") },
			});
			expect(toolbox.get("t-11")).toMatchObject({
				status: "broken",
				error: { phase: "load", message: expect.stringContaining("did not finish within 1500 ms") },
			});
			for (const name of names.filter((n) => n !== "t-05" && n !== "t-11")) {
				expect(toolbox.get(name), name).toMatchObject({ status: "ok", version: 2 });
				const used = await toolbox.use(name, { text: "" }, { host });
				expect(used.ok && used.value.content[0], name).toEqual({ type: "text", text: `v2-${name}` });
			}
		} finally {
			await toolbox.close();
		}
	}, 60_000);
});

describe("re-checks and the files as they are now", () => {
	it("a tool edited again while its re-check runs: the next call runs the last edit", async () => {
		const { cwd, dir } = await forgedTools(3);
		const path = join(dir, "forge-t-01.ts");
		const original = await readFile(path, "utf8");
		await writeFile(path, original.replace('return "v1-t-01";', 'return "v2-t-01";'));
		let editedAgain = false;
		const runner = watchedRunner(async (load, ...args) => {
			if (args[2] === "t-01" && !editedAgain) {
				editedAgain = true;
				await writeFile(path, original.replace('return "v1-t-01";', 'return "v3-t-01";'));
			}
			return load(...args);
		});
		const toolbox = await quickOpen(cwd, {}, runner);
		await toolbox.verified();
		expect(editedAgain).toBe(true);
		const used = await toolbox.use("t-01", { text: "" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "v3-t-01" });
		// The edit was made while the re-check loaded the file before the lock; taking it in under the lock read the
		// file as it was by then, so the intermediate edit is not a version of its own.
		expect(used.ok && used.value.version).toBe(2);
		await toolbox.close();
	});

	it("a call waits for its tool's re-check rather than failing on a file changed since the registry was written", async () => {
		const { cwd, dir, names } = await forgedTools(12);
		for (const name of names)
			await edit(join(dir, `forge-${name}.ts`), (s) => s.replace(`return "v1-${name}";`, `return "v2-${name}";`));
		const toolbox = await quickOpen(cwd, {}, new InlineRunner());
		const used = await Promise.all(names.map((name) => toolbox.use(name, { text: "" }, { host })));
		expect(used.map((u) => (u.ok ? u.value.content[0] : u.error.message))).toEqual(
			names.map((name) => ({ type: "text", text: `v2-${name}` })),
		);
		await toolbox.close();
	});

	it("a source the compile cache has seen pass its checks is taken in without a new preflight", async () => {
		const { cwd, dir } = await forgedTools(1);
		const metaPath = join(dir, "forge-t-00.json");
		const forgedMeta = await readFile(metaPath, "utf8");
		await edit(join(dir, "forge-t-00.ts"), (s) => s.replace('return "v1-t-00";', 'return "v2-t-00";'));
		let loads = 0;
		const counting = watchedRunner((load, ...args) => {
			loads++;
			return load(...args);
		});
		const first = await quickOpen(cwd, {}, counting);
		await first.verified();
		await first.close();
		expect(loads).toBe(1);
		// The metadata as the forge wrote it again (a checkout of the .json alone): the .ts is a hand edit once more.
		await writeFile(metaPath, forgedMeta);
		loads = 0;
		const second = await quickOpen(cwd, {}, counting);
		await second.verified();
		expect(loads).toBe(0);
		expect(second.get("t-00")).toMatchObject({ status: "ok", version: 2 });
		const used = await second.use("t-00", { text: "" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "v2-t-00" });
		await second.close();
	});

	it("a listing waits for the re-checks of tools changed on disk, and says so when they outlast its bound", async () => {
		const { cwd, dir, names } = await forgedTools(4);
		for (const name of names)
			await edit(join(dir, `forge-${name}.ts`), (s) => s.replace(`return "v1-${name}";`, `return "v2-${name}";`));
		let release!: () => void;
		const gate = new Promise<void>((resolve) => (release = resolve));
		let arrived!: () => void;
		const allWaiting = new Promise<void>((resolve) => (arrived = resolve));
		let loads = 0;
		const runner = watchedRunner(async (load, ...args) => {
			if (++loads === names.length) arrived();
			await gate;
			return load(...args);
		});
		const toolbox = await quickOpen(cwd, {}, runner);
		await allWaiting;
		expect(await toolbox.settle(50)).toEqual({ done: false, rechecking: 4 });
		release();
		expect(await toolbox.settle()).toEqual({ done: true, rechecking: 0 });
		expect(toolbox.entries().map((e) => e.version)).toEqual([2, 2, 2, 2]);
		await toolbox.close();
	});
});
