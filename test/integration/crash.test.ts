// kill -9 in the middle of a burst of forges, then a start: every tool whole, no temp files left, registry valid.
// And a lock left behind by a killed process is taken over.
import { mkdir, readdir, readFile, utimes } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import { hashSource, parseMeta } from "../../src/contract/tool-files.ts";
import { InlineRunner } from "../../src/run/inline-runner.ts";
import { LOCK_FILE } from "../../src/store/lock.ts";
import { parseRegistry } from "../../src/store/registry.ts";
import { createToolbox } from "../../src/toolbox/open-toolbox.ts";
import { burstAndKill } from "../helpers/forge-burst.ts";
import { makeTempDir } from "../helpers/pi-harness.ts";
import { host, toolRequest } from "../helpers/toolbox-fixture.ts";

/** The killed process leaves its lock behind: take it over after 2 s, Node's minimum, rather than the default 5 s. */
const FAST_STALE = { PI_FORGE_LOCK_STALE_MS: "2000" };

async function expectWhole(cwd: string): Promise<void> {
	const { config } = readConfig(cwd, FAST_STALE);
	const dir = config.toolboxDir;
	const toolbox = createToolbox(config, new InlineRunner());
	await toolbox.open();
	await toolbox.flush();
	const files = await readdir(dir);
	expect(files.filter((f) => f === ".staging" || /\.\d+$/.test(f) || f.endsWith(".tmp"))).toEqual([]);
	const names = files.filter((f) => /^forge-burst-\d+\.ts$/.test(f)).map((f) => f.slice(6, -3));
	expect(names.length).toBeGreaterThan(0);
	for (const name of names) {
		const source = await readFile(join(dir, `forge-${name}.ts`), "utf8");
		const meta = parseMeta(await readFile(join(dir, `forge-${name}.json`), "utf8"), name);
		expect(meta.ok && meta.value.hash, `${name} is wholly one version`).toBe(hashSource(source));
		expect(toolbox.get(name)?.status).toBe("ok");
		const used = await toolbox.use(name, { n: 0 }, { host });
		expect(used.ok, name).toBe(true);
	}
	const registry = parseRegistry(await readFile(join(dir, "forge-registry.json"), "utf8"));
	expect(Object.keys(registry?.tools ?? {}).sort()).toEqual([...names].sort());
	await toolbox.close();
}

describe("crashes", () => {
	it("kill -9 during a burst of forges, six times over: every tool whole after each start", async () => {
		const cwd = await makeTempDir("forge-crash");
		for (let round = 0; round < 6; round++) {
			await burstAndKill(cwd, 3 + round * 2, 15);
			await expectWhole(cwd);
		}
	}, 120_000);

	it("a lock left by a killed process is taken over", async () => {
		const cwd = await makeTempDir("forge-stale-lock");
		const { config } = readConfig(cwd, FAST_STALE);
		await mkdir(join(config.toolboxDir, LOCK_FILE), { recursive: true });
		const old = new Date(Date.now() - 60_000);
		await utimes(join(config.toolboxDir, LOCK_FILE), old, old);
		const toolbox = createToolbox(config, new InlineRunner());
		const started = Date.now();
		await toolbox.open();
		const result = await toolbox.forge(toolRequest("after-stale", "return 1;"), new Map());
		expect(result.ok).toBe(true);
		expect(Date.now() - started).toBeLessThan(5000);
	});
});

describe("an interrupted commit marker", () => {
	it("a staging folder whose marker was never completed is discarded, and the toolbox opens", async () => {
		const { writeFile: write, mkdir: makeDir, readdir: list } = await import("node:fs/promises");
		const cwd = await makeTempDir("forge-half-commit");
		const { config } = readConfig(cwd, {});
		const toolbox = createToolbox(config, new InlineRunner());
		await toolbox.open();
		await toolbox.forge(toolRequest("kept", "return 'v1';"), new Map());
		await toolbox.close();
		// An empty marker, and one cut off in the middle (the marker is written in place, so a crash can leave a part).
		for (const [folder, marker] of [
			["kept-deadbeef", ""],
			["kept-cafef00d", '{"op":"promote","name":"ke'],
		]) {
			const staged = join(config.toolboxDir, ".staging", folder);
			await makeDir(staged, { recursive: true });
			await write(join(staged, "forge-kept.ts"), "half");
			await write(join(staged, "COMMIT"), marker);
		}
		const reopened = createToolbox(config, new InlineRunner());
		const report = await reopened.open();
		expect([...report.recovered.discarded].sort()).toEqual(["kept-cafef00d", "kept-deadbeef"]);
		expect(await list(config.toolboxDir)).not.toContain(".staging");
		const used = await reopened.use("kept", { text: "" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "v1" });
	});
});
