// open(): the registry is derived — rebuilt when missing, corrupt or stale — and a broken file never stops the rest.
import { mkdir, readFile, rm, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRegistry } from "../../src/store/registry.ts";
import { host, tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";

async function forgedBox() {
	const box = await tempToolbox();
	for (const [name, logic] of [
		["upper", "return params.text.toUpperCase();"],
		["lower", "return params.text.toLowerCase();"],
	]) {
		const result = await box.toolbox.forge(toolRequest(name, logic), new Map());
		if (!result.ok) throw result.error;
	}
	await box.toolbox.flush();
	return box;
}

const registryOf = async (dir: string) => parseRegistry(await readFile(join(dir, "forge-registry.json"), "utf8"));

/** Rewrites a file and moves its mtime, so a same-size edit within one millisecond is still seen. */
async function edit(path: string, transform: (text: string) => string) {
	await writeFile(path, transform(await readFile(path, "utf8")));
	const later = new Date(Date.now() + 5000);
	await utimes(path, later, later);
}

describe("start-up", () => {
	it("rebuilds a missing registry from the per-tool files", async () => {
		const { dir, reopen } = await forgedBox();
		await unlink(join(dir, "forge-registry.json"));
		const toolbox = await reopen();
		expect(toolbox.entries().map((e) => `${e.name}:${e.status}`)).toEqual(["lower:ok", "upper:ok"]);
		expect(Object.keys((await registryOf(dir))?.tools ?? {})).toEqual(["lower", "upper"]);
	});

	it("rebuilds a corrupt registry", async () => {
		const { dir, reopen } = await forgedBox();
		await writeFile(join(dir, "forge-registry.json"), "{ not json");
		const report = await (await reopen()).open();
		expect(report.tools).toBe(2);
		expect((await registryOf(dir))?.tools.upper.status).toBe("ok");
	});

	it("re-checks a valid hand edit, takes it, and bumps the version", async () => {
		const { dir, reopen } = await forgedBox();
		await edit(join(dir, "forge-upper.ts"), (s) => s.replace("toUpperCase()", "toUpperCase() + '!'"));
		const toolbox = await reopen();
		expect(toolbox.get("upper")).toMatchObject({ status: "ok", version: 2 });
		const used = await toolbox.use("upper", { text: "hi" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "HI!" });
		expect(JSON.parse(await readFile(join(dir, "forge-upper.json"), "utf8")).version).toBe(2);
	});

	it("marks a broken hand edit broken, with its location, and keeps the other tools working", async () => {
		const { dir, reopen } = await forgedBox();
		await edit(join(dir, "forge-upper.ts"), (s) => s.replace("toUpperCase();", "toUpperCase(;"));
		const toolbox = await reopen();
		const upper = toolbox.get("upper");
		expect(upper?.status).toBe("broken");
		expect(upper?.error?.phase).toBe("syntax");
		expect(upper?.error?.location?.file).toBe("forge-upper.ts");

		const failed = await toolbox.use("upper", { text: "x" }, { host });
		expect(!failed.ok && failed.error.details.source).toContain("toUpperCase(;");
		const lower = await toolbox.use("lower", { text: "OK" }, { host });
		expect(lower.ok && lower.value.content[0]).toEqual({ type: "text", text: "ok" });
	});

	it("a hand edit that imports outside the core library is refused at start-up", async () => {
		const { dir, reopen } = await forgedBox();
		await edit(join(dir, "forge-lower.ts"), (s) =>
			s.replace("return params.text.toLowerCase();", 'const os = require("os");\nreturn os.homedir();'),
		);
		const toolbox = await reopen();
		expect(toolbox.get("lower")?.error?.phase).toBe("import");
	});

	it("adopts a forge-<name>.ts that has no metadata file", async () => {
		const { dir, reopen } = await forgedBox();
		const source = (await readFile(join(dir, "forge-upper.ts"), "utf8"))
			.replaceAll('"upper"', '"shout"')
			.replace("The upper tool.", "Shout it.");
		await writeFile(join(dir, "forge-shout.ts"), source);
		const toolbox = await reopen();
		expect(toolbox.get("shout")).toMatchObject({ status: "ok", version: 1, description: "Shout it." });
		expect(JSON.parse(await readFile(join(dir, "forge-shout.json"), "utf8")).name).toBe("shout");
	});

	it("marks a metadata file without its code broken", async () => {
		const { dir, reopen } = await forgedBox();
		await unlink(join(dir, "forge-lower.ts"));
		const toolbox = await reopen();
		expect(toolbox.get("lower")?.status).toBe("broken");
		expect(toolbox.get("lower")?.error?.message).toContain("forge-lower.ts is missing");
		expect(toolbox.get("upper")?.status).toBe("ok");
	});

	it("forgets a tool whose files were both removed", async () => {
		const { dir, reopen } = await forgedBox();
		await Promise.all([unlink(join(dir, "forge-lower.ts")), unlink(join(dir, "forge-lower.json"))]);
		expect((await reopen()).entries().map((e) => e.name)).toEqual(["upper"]);
	});

	it("a corrupt metadata file with valid code is rebuilt from the code", async () => {
		const { dir, reopen } = await forgedBox();
		await writeFile(join(dir, "forge-upper.json"), "][");
		const toolbox = await reopen();
		expect(toolbox.get("upper")?.status).toBe("ok");
		expect(JSON.parse(await readFile(join(dir, "forge-upper.json"), "utf8")).description).toBe("The upper tool.");
	});

	it("removes staging folders left behind by an interrupted forge", async () => {
		const { dir, reopen } = await forgedBox();
		await mkdir(join(dir, ".staging", "upper-dead"), { recursive: true });
		await writeFile(join(dir, ".staging", "upper-dead", "forge-upper.ts"), "half written");
		await reopen();
		await expect(readFile(join(dir, ".staging", "upper-dead", "forge-upper.ts"))).rejects.toThrow();
	});

	it("opens an empty or absent toolbox", async () => {
		const { dir, reopen } = await tempToolbox();
		await rm(dir, { recursive: true, force: true });
		const toolbox = await reopen();
		expect(toolbox.entries()).toEqual([]);
	});
});

describe("a quick start (pi's): the registry only, the files compared right after", () => {
	it("trusts a sound registry at once, then takes in a hand edit made while pi was closed", async () => {
		const { dir, cwd } = await forgedBox();
		await edit(join(dir, "forge-upper.ts"), (s) => s.replace("toUpperCase()", "toUpperCase() + '?'"));
		const { readConfig } = await import("../../src/config.ts");
		const { InlineRunner } = await import("../../src/run/inline-runner.ts");
		const { createToolbox } = await import("../../src/toolbox/open-toolbox.ts");
		const toolbox = createToolbox(readConfig(cwd, {}).config, new InlineRunner());
		const report = await toolbox.open({ verify: "background" });
		expect(report.rederived).toEqual([]);
		expect(toolbox.get("upper")?.version).toBe(1);
		await toolbox.verified();
		expect(toolbox.get("upper")?.version).toBe(2);
		const used = await toolbox.use("upper", { text: "a" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "A?" });
	});

	it("still rebuilds a missing registry before it returns", async () => {
		const { dir, cwd } = await forgedBox();
		await unlink(join(dir, "forge-registry.json"));
		const { readConfig } = await import("../../src/config.ts");
		const { InlineRunner } = await import("../../src/run/inline-runner.ts");
		const { createToolbox } = await import("../../src/toolbox/open-toolbox.ts");
		const toolbox = createToolbox(readConfig(cwd, {}).config, new InlineRunner());
		const report = await toolbox.open({ verify: "background" });
		expect(report.rebuilt).toBe("missing");
		expect(toolbox.entries().map((e) => e.name)).toEqual(["lower", "upper"]);
	});
});
