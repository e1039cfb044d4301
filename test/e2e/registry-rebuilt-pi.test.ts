// Through the real pi: a registry deleted or corrupted while pi was closed, with tools edited by hand meanwhile. pi's
// start rebuilds it from the tools' files — the hand edits loaded with the toolbox unlocked, then taken in — so the
// first call runs the edited code, a broken edit fails with its load error, and list_forge shows each as it is.
import { readFile, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type PiHarness, startPi } from "../helpers/pi-harness.ts";

const REPO = resolve(import.meta.dirname, "../..");
const INDEX = join(REPO, "index.ts");

const forgeArgs = (name: string, value: string) => ({
	name,
	description: `Returns ${value}.`,
	parametersSchema: { type: "object", properties: {} },
	logic: `return ${JSON.stringify(value)};`,
});

const toolbox = (cwd: string) => join(cwd, ".pi", "forge", "extensions");
const toolFile = (cwd: string, name: string) => join(toolbox(cwd), `forge-${name}.ts`);

let pi: PiHarness | undefined;
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

/** pi with `values` forged (name → returned value), then closed: the folders to start it again with. */
async function forgedThenClosed(values: Record<string, string>): Promise<{ cwd: string; agentDir: string }> {
	pi = await startPi({ extensionPaths: [INDEX] });
	const calls = Object.entries(values).map(([name, value]) => ({ name: "forge_tool", args: forgeArgs(name, value) }));
	const run = await pi.run("forge", [calls, { text: "ok" }]);
	expect(run.toolEvents.map((e) => e.isError)).toEqual(calls.map(() => false));
	const { cwd, agentDir } = pi;
	await pi.dispose();
	pi = undefined;
	return { cwd, agentDir };
}

async function edit(path: string, change: (source: string) => string): Promise<void> {
	await writeFile(path, change(await readFile(path, "utf8")));
}

describe("pi starts on a toolbox whose registry is gone, with hand edits in it", () => {
	it("a registry deleted while pi was closed: the first call runs the edit, and the listing shows it", async () => {
		const folders = await forgedThenClosed({ answer: "old answer", other: "other" });
		await edit(toolFile(folders.cwd, "answer"), (s) => s.replace('return "old answer";', 'return "new answer";'));
		await unlink(join(toolbox(folders.cwd), "forge-registry.json"));

		pi = await startPi({ extensionPaths: [INDEX], ...folders });
		const run = await pi.run("use it", [
			[{ name: "use_forge_tool", args: { name: "answer" } }],
			[{ name: "list_forge", args: {} }],
			{ text: "ok" },
		]);
		expect(run.toolEvents[0]).toMatchObject({ isError: false, text: "new answer" });
		const listing = run.toolEvents[1].text;
		expect(listing).toMatch(/^- answer v2 \[ok/m);
		expect(listing).toMatch(/^- other v1 \[ok/m);
		// The registry file is saved in the background, a burst of changes at once (SAVE_DELAY_MS after the last one).
		await vi.waitFor(
			async () =>
				expect(await readFile(join(toolbox(folders.cwd), "forge-registry.json"), "utf8")).toContain('"answer"'),
			{ timeout: 3000, interval: 50 },
		);
	});

	it("a corrupt registry and an edit that breaks the tool: its call fails with the load error, the other runs", async () => {
		const folders = await forgedThenClosed({ greet: "hello", other: "other" });
		await edit(toolFile(folders.cwd, "greet"), (s) =>
			s.replace("export const metadata", 'throw new Error("greet needs its settings file");\nexport const metadata'),
		);
		await writeFile(join(toolbox(folders.cwd), "forge-registry.json"), "{ half a regis");

		pi = await startPi({ extensionPaths: [INDEX], ...folders });
		const run = await pi.run("use them", [
			[{ name: "use_forge_tool", args: { name: "greet" } }],
			[{ name: "use_forge_tool", args: { name: "other" } }],
			{ text: "ok" },
		]);
		expect(run.toolEvents[0].isError).toBe(true);
		expect(run.toolEvents[0].text).toContain("greet needs its settings file");
		expect(run.toolEvents[1]).toMatchObject({ isError: false, text: "other" });
	});
});
