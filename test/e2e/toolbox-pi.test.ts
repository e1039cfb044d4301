// The toolbox under real use through pi: parallel forges in one assistant message, two pi processes forging into one
// toolbox, and a hand edit seen by the running pi (a broken tool stops being offered; a repaired one comes back).
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseRegistry } from "../../src/store/registry.ts";
import { runPiJson } from "../helpers/pi-cli.ts";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const REPO = resolve(import.meta.dirname, "../..");
const INDEX = join(REPO, "index.ts");

const forgeArgs = (name: string, value: string) => ({
	name,
	description: `Returns ${value}.`,
	parametersSchema: { type: "object", properties: {} },
	logic: `return ${JSON.stringify(value)};`,
});

let pi: PiHarness | undefined;
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

async function registryNames(cwd: string): Promise<string[]> {
	const registry = parseRegistry(
		await readFile(join(cwd, ".pi", "forge", "extensions", "forge-registry.json"), "utf8"),
	);
	return Object.keys(registry?.tools ?? {}).sort();
}

/** One pi process (json mode, scripted model) that forges `names` one prompt each. */
async function forgeInProcess(cwd: string, names: string[]): Promise<number | null> {
	const run = await runPiJson({
		cwd,
		prompts: names.map((n) => `forge ${n}`),
		script: names.flatMap((name) => [
			{ calls: [{ name: "forge_tool", args: forgeArgs(name, name) }] },
			{ text: "ok" },
		]),
	});
	return run.code;
}

describe("the toolbox under real use", () => {
	it("16 forges in one assistant message (run concurrently by pi): nothing lost", async () => {
		pi = await startPi({ extensionPaths: [INDEX] });
		const names = Array.from({ length: 16 }, (_, i) => `par-${i}`);
		const run = await pi.run("forge many", [
			names.map((name) => ({ name: "forge_tool", args: forgeArgs(name, name) })),
			{ text: "ok" },
		]);
		expect(run.toolEvents.filter((e) => !e.isError)).toHaveLength(16);
		const next = await pi.run("use them", [
			names.map((name) => ({ name: "use_forge_tool", args: { name } })),
			{ text: "ok" },
		]);
		expect(next.toolEvents.map((e) => e.text).sort()).toEqual([...names].sort());
		// At most PI_FORGE_ACTIVE_LIMIT (12) of them are offered as tools of their own.
		expect(next.toolNamesSeen[0].filter((name) => name.startsWith("par-"))).toHaveLength(12);
		const cwd = pi.cwd;
		await pi.dispose();
		pi = undefined;
		expect(await registryNames(cwd)).toEqual([...names].sort());
	});

	it("two pi processes forging into one toolbox at once: nothing lost", async () => {
		const cwd = await makeTempDir("forge-two");
		const a = Array.from({ length: 6 }, (_, i) => `from-a-${i}`);
		const b = Array.from({ length: 6 }, (_, i) => `from-b-${i}`);
		const codes = await Promise.all([forgeInProcess(cwd, a), forgeInProcess(cwd, b)]);
		expect(codes).toEqual([0, 0]);
		expect(await registryNames(cwd)).toEqual([...a, ...b].sort());
		pi = await startPi({ extensionPaths: [INDEX], cwd });
		const run = await pi.run("use all", [[...a, ...b].map((name) => ({ name, args: {} })), { text: "ok" }]);
		expect(run.toolEvents.map((e) => e.text).sort()).toEqual([...a, ...b].sort());
	});

	it("a broken hand edit stops the tool being offered from the next run; the repair brings it back", async () => {
		pi = await startPi({ extensionPaths: [INDEX] });
		await pi.run("forge", [[{ name: "forge_tool", args: forgeArgs("edited", "v1") }], { text: "ok" }]);
		const path = join(pi.cwd, ".pi", "forge", "extensions", "forge-edited.ts");
		const original = await readFile(path, "utf8");
		await writeFile(path, original.replace('return "v1";', "return (;"));
		await waitUntil(async () => !(await offered(pi!)).includes("edited"));
		const listed = await pi.run("list", [[{ name: "list_forge", args: {} }], { text: "ok" }]);
		expect(listed.toolEvents[0].text).toMatch(/edited v\d+ \[broken: syntax at forge-edited\.ts:\d+\]/);

		await writeFile(path, original.replace('return "v1";', 'return "v2";'));
		await waitUntil(async () => (await offered(pi!)).includes("edited"));
		const fixed = await pi.run("use", [[{ name: "edited", args: {} }], { text: "ok" }]);
		expect(fixed.toolEvents[0].text).toBe("v2");
	});
});

/** The tools pi offers the model in a fresh run. */
async function offered(harness: PiHarness): Promise<string[]> {
	const run = await harness.run("which tools?", [{ text: "ok" }]);
	return run.toolNamesSeen[0];
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
	const started = Date.now();
	while (!(await check())) {
		if (Date.now() - started > timeoutMs) throw new Error("timed out");
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}
