// Every answer is true at the moment it is given, through the real pi: a tool broken or fixed by hand while pi was
// closed, tools committed by a pi killed in the middle of a burst of forges, and an edit made while pi runs — each seen
// at the very first call or listing, without waiting for the start-up comparison or the watcher.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { burstAndKill } from "../helpers/forge-burst.ts";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const REPO = resolve(import.meta.dirname, "../..");
const INDEX = join(REPO, "index.ts");
/** A killed process leaves its lock behind: taken over after 2 s rather than the default 5 s. */
const FAST_STALE = { PI_FORGE_LOCK_STALE_MS: "2000" };

const forgeArgs = (name: string, value: string) => ({
	name,
	description: `Returns ${value}.`,
	parametersSchema: { type: "object", properties: {} },
	logic: `return ${JSON.stringify(value)};`,
});

const toolFile = (cwd: string, name: string) => join(cwd, ".pi", "forge", "extensions", `forge-${name}.ts`);

let pi: PiHarness | undefined;
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

/** pi with one tool forged, then closed: the folders to start it again with. */
async function forgedThenClosed(name: string, value: string): Promise<{ cwd: string; agentDir: string }> {
	pi = await startPi({ extensionPaths: [INDEX] });
	const run = await pi.run("forge", [[{ name: "forge_tool", args: forgeArgs(name, value) }], { text: "ok" }]);
	expect(run.toolEvents[0].isError, run.toolEvents[0].text).toBe(false);
	const { cwd, agentDir } = pi;
	await pi.dispose();
	pi = undefined;
	return { cwd, agentDir };
}

describe("the first call of a session sees the files as they are", () => {
	it("a tool broken by hand while pi was closed is reported broken with its load error", async () => {
		const folders = await forgedThenClosed("greet", "hello");
		const path = toolFile(folders.cwd, "greet");
		await writeFile(
			path,
			(await readFile(path, "utf8")).replace(
				"export const metadata",
				'throw new Error("greet needs its settings file");\nexport const metadata',
			),
		);

		pi = await startPi({ extensionPaths: [INDEX], ...folders });
		const run = await pi.run("use it", [[{ name: "use_forge_tool", args: { name: "greet" } }], { text: "ok" }]);
		const [call] = run.toolEvents;
		expect(call.isError).toBe(true);
		expect(call.text).toContain("greet needs its settings file");
		expect(call.text).toMatch(/load/i);
		expect(call.text).not.toContain("changed on disk");
		const listed = await pi.run("list", [[{ name: "list_forge", args: {} }], { text: "ok" }]);
		expect(listed.toolEvents[0].text).toMatch(/greet v\d+ \[broken: load/);
	});

	it("a tool fixed by hand while pi was closed runs its new code", async () => {
		const folders = await forgedThenClosed("answer", "old answer");
		const path = toolFile(folders.cwd, "answer");
		await writeFile(path, (await readFile(path, "utf8")).replace('return "old answer";', 'return "new answer";'));

		pi = await startPi({ extensionPaths: [INDEX], ...folders });
		const run = await pi.run("use it", [[{ name: "use_forge_tool", args: { name: "answer" } }], { text: "ok" }]);
		expect(run.toolEvents[0]).toMatchObject({ isError: false, text: "new answer" });
	});

	it("after pi was killed in a burst of forges, every committed tool is in the first list_forge", async () => {
		const cwd = await makeTempDir("forge-truth-burst");
		await burstAndKill(cwd, 14);

		pi = await startPi({ extensionPaths: [INDEX], cwd, env: FAST_STALE });
		const run = await pi.run("list", [[{ name: "list_forge", args: {} }], { text: "ok" }]);
		// Read after pi's start: interrupted changes it rolled forward are on disk by now.
		const onDisk = (await readdir(join(cwd, ".pi", "forge", "extensions")))
			.filter((f) => /^forge-burst-\d+\.ts$/.test(f))
			.map((f) => f.slice(6, -3));
		expect(onDisk.length).toBeGreaterThan(0);
		const listed = [...run.toolEvents[0].text.matchAll(/^- (burst-\d+) v\d+ \[ok/gm)].map((m) => m[1]);
		expect(listed.sort()).toEqual(onDisk.sort());
	}, 60_000);
});

describe("an edit made while pi runs is what the next call runs", () => {
	it("written by the test right before the call", async () => {
		pi = await startPi({ extensionPaths: [INDEX] });
		await pi.run("forge", [[{ name: "forge_tool", args: forgeArgs("live", "v1") }], { text: "ok" }]);
		const path = toolFile(pi.cwd, "live");
		const original = await readFile(path, "utf8");
		const run = await pi.run("edit and use", [
			[{ name: "use_forge_tool", args: { name: "live" } }],
			async () => {
				await writeFile(path, original.replace('return "v1";', 'return "v2";'));
				return [{ name: "use_forge_tool", args: { name: "live" } }];
			},
			async () => {
				await writeFile(path, original.replace('return "v1";', "return (;"));
				return [{ name: "use_forge_tool", args: { name: "live" } }];
			},
			{ text: "ok" },
		]);
		expect(run.toolEvents.map((e) => e.text.split("\n")[0])).toEqual([
			"v1",
			"v2",
			expect.stringMatching(/syntax|Expected|Unexpected/i),
		]);
		expect(run.toolEvents.map((e) => e.isError)).toEqual([false, false, true]);
	});

	it("written right before a call of the tool by its own name", async () => {
		pi = await startPi({ extensionPaths: [INDEX] });
		await pi.run("forge", [[{ name: "forge_tool", args: forgeArgs("direct", "v1") }], { text: "ok" }]);
		const path = toolFile(pi.cwd, "direct");
		const original = await readFile(path, "utf8");
		const run = await pi.run("edit and call", [
			async ({ toolNames }) => {
				expect(toolNames).toContain("direct");
				await writeFile(path, original.replace('return "v1";', 'return "v2";'));
				return [{ name: "direct", args: {} }];
			},
			{ text: "ok" },
		]);
		expect(run.toolEvents[0]).toMatchObject({ toolName: "direct", isError: false, text: "v2" });
	});

	it("written with pi's own write tool", async () => {
		pi = await startPi({ extensionPaths: [INDEX] });
		await pi.run("forge", [[{ name: "forge_tool", args: forgeArgs("live", "v1") }], { text: "ok" }]);
		const path = toolFile(pi.cwd, "live");
		const edited = (await readFile(path, "utf8")).replace('return "v1";', 'return "written by pi";');
		const run = await pi.run("write and use", [
			[{ name: "write", args: { path, content: edited } }],
			[{ name: "use_forge_tool", args: { name: "live" } }],
			[{ name: "list_forge", args: { name: "live" } }],
			{ text: "ok" },
		]);
		expect(run.toolEvents[0].isError, run.toolEvents[0].text).toBe(false);
		expect(run.toolEvents[1]).toMatchObject({ isError: false, text: "written by pi" });
		expect(run.toolEvents[2].text).toContain('return "written by pi";');
	});
});
