// Through the real pi, with the default (isolated) runner: a tool written with each import form a model writes is
// forged and called; what a tool prints reaches the model; a failure says why (its causes) and whose fault it is.
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PiHarness, startPi, type ToolEvent } from "../helpers/pi-harness.ts";

const CLI = resolve(import.meta.dirname, "../../bin/agent-forge.mjs");
const INDEX = resolve(import.meta.dirname, "../../index.ts");
const PATH_PARAMS = {
	type: "object",
	properties: { path: { type: "string", description: "A file of the project" } },
	required: ["path"],
};

let pi: PiHarness;
beforeAll(async () => {
	pi = await startPi({ extensionPaths: [INDEX] });
	await writeFile(resolve(pi.cwd, "notes.txt"), "alpha beta\n");
}, 60_000);
afterAll(async () => pi?.dispose());

/** Forges a tool and calls it in the same run; both results come back. */
async function forgeAndUse(
	name: string,
	logic: string,
	args: Record<string, unknown>,
	parametersSchema: Record<string, unknown> = PATH_PARAMS,
): Promise<{ forged: ToolEvent; used: ToolEvent }> {
	const run = await pi.run(`make and use ${name}`, [
		[{ name: "forge_tool", args: { name, description: `The ${name} tool.`, parametersSchema, logic } }],
		[{ name: "use_forge_tool", args: { name, args } }],
		{ text: "done" },
	]);
	const [forged, used] = run.toolEvents;
	expect(forged.isError, forged.text).toBe(false);
	return { forged, used };
}

describe("every import form a model writes", () => {
	it.each([
		[
			"a destructured dynamic import",
			'const { readFile } = await import("node:fs/promises");\nreturn await readFile(params.path, "utf8");',
		],
		[
			"a dynamic import's namespace",
			'const fs = await import("node:fs");\nreturn fs.readFileSync(params.path, "utf8");',
		],
		[
			"a dynamic import's default",
			'const fs = (await import("fs")).default;\nreturn fs.readFileSync(params.path, "utf8");',
		],
		["require", 'const { readFileSync } = require("node:fs");\nreturn readFileSync(params.path, "utf8");'],
		["a default import", 'import fs from "node:fs";\nreturn fs.readFileSync(params.path, "utf8");'],
		[
			"a namespace import",
			'import * as fsp from "node:fs/promises";\nreturn await fsp.readFile(params.path, "utf8");',
		],
		["a named import", 'import { readFileSync } from "fs";\nreturn readFileSync(params.path, "utf8");'],
		["import-equals", 'import fs = require("node:fs");\nreturn fs.readFileSync(params.path, "utf8");'],
		[
			"a type-only import",
			'import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";\nimport { readFileSync } from "node:fs";\nconst api: ExtensionAPI | undefined = undefined;\nreturn api ?? readFileSync(params.path, "utf8");',
		],
	])("%s is forged and works", async (form, logic) => {
		const name = `read-${form.replace(/[^a-z]+/g, "-").replace(/^-|-$/g, "")}`.slice(0, 40);
		const { used } = await forgeAndUse(name, logic, { path: "notes.txt" });
		expect(used.isError, used.text).toBe(false);
		expect(used.text).toBe("alpha beta\n");
	});

	it("a dynamic import of a module outside the core library is refused at forge time, naming the form that works", async () => {
		const run = await pi.run("forge it", [
			[
				{
					name: "forge_tool",
					args: {
						name: "hostname",
						description: "Host name.",
						parametersSchema: { type: "object", properties: {} },
						logic: 'const os = await import("node:os");\nreturn os.hostname();',
					},
				},
			],
			{ text: "done" },
		]);
		const [refused] = run.toolEvents;
		expect(refused.isError).toBe(true);
		expect(refused.text).toContain("(phase: import)");
		expect(refused.text).toContain("import() of 'node:os' is outside the core library");
		expect(refused.text).toContain("Forged tools may import only fs, fs/promises, path, child_process");
	});

	it("a multi-line import is refused at forge time with the form that works", async () => {
		const run = await pi.run("forge it", [
			[
				{
					name: "forge_tool",
					args: {
						name: "multi-line",
						description: "Reads.",
						parametersSchema: PATH_PARAMS,
						logic: 'const x = 1;\nimport {\n\treadFileSync,\n} from "node:fs";\nreturn readFileSync(params.path, "utf8");',
					},
				},
			],
			{ text: "done" },
		]);
		expect(run.toolEvents[0].text).toContain("(phase: syntax)");
		expect(run.toolEvents[0].text).toContain(
			'Put each import on its own single line at the very top of logic (they are moved to the module header), or use `await import("node:fs")`.',
		);
	});
});

describe("what a tool prints", () => {
	it("reaches the model when the tool returned nothing, and in a failure; never another call's", async () => {
		const logic =
			'console.log("lines:", params.path.length);\nif (params.path === "fail") throw new Error("asked to fail");';
		const { used } = await forgeAndUse("printer", logic, { path: "first" });
		expect(used.isError, used.text).toBe(false);
		expect(used.text).toBe(
			"(the tool returned no value; below is what it printed to the console. Return the result from execute instead of printing it.)\nlines: 5",
		);

		const run = await pi.run("again", [
			[
				{ name: "use_forge_tool", args: { name: "printer", args: { path: "fail" } } },
				{ name: "use_forge_tool", args: { name: "printer", args: { path: "second!" } } },
			],
			{ text: "ok" },
		]);
		const failed = run.toolEvents.find((e) => e.isError)!;
		const passed = run.toolEvents.find((e) => !e.isError)!;
		expect(failed.text).toContain("Error: asked to fail");
		expect(failed.text).toContain("Console output of the call:\nlines: 4");
		expect(failed.text).not.toContain("lines: 7");
		expect(passed.text).toMatch(/\nlines: 7$/);
	});
});

describe("a failure's cause and fault", () => {
	it("fetch to a closed port: the cause (ECONNREFUSED) reaches the model, the URL argument is named, no source dump", async () => {
		const server = createServer();
		await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
		const { port } = server.address() as { port: number };
		await new Promise((done) => server.close(done));
		// Under the default policy the host is a capability: granted as a refusal would print it, between forge and call.
		const forged = await pi.run("make http-status", [
			[
				{
					name: "forge_tool",
					args: {
						name: "http-status",
						description: "The http-status tool.",
						parametersSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
						logic: "const response = await fetch(params.url);\nreturn response.status;",
					},
				},
			],
			{ text: "ok" },
		]);
		expect(forged.toolEvents[0].isError, forged.toolEvents[0].text).toBe(false);
		const granted = spawnSync(process.execPath, [CLI, "grant", "http-status", `net:127.0.0.1:${port}`], {
			cwd: pi.cwd,
			env: { ...process.env, PI_CODING_AGENT_DIR: pi.agentDir },
			encoding: "utf8",
		});
		expect(granted.status, granted.stderr).toBe(0);
		const used = (
			await pi.run("use it", [
				[{ name: "use_forge_tool", args: { name: "http-status", args: { url: `http://127.0.0.1:${port}/` } } }],
				{ text: "ok" },
			])
		).toolEvents[0];
		expect(used.isError).toBe(true);
		expect(used.text).toContain("TypeError: fetch failed\nCaused by:");
		expect(used.text).toContain("ECONNREFUSED");
		expect(used.text).toContain(
			`Hint: The error comes from the arguments, not the logic: params.url ("http://127.0.0.1:${port}/") points at 127.0.0.1:${port}, where nothing accepts connections (ECONNREFUSED).`,
		);
		expect(used.text).not.toContain("Source of forge-http-status.ts");
		expect(used.text).not.toContain("Fix the logic");
	});

	it("a missing file named in the arguments: the argument to change, not the logic", async () => {
		const { used } = await forgeAndUse(
			"cat",
			'const { readFile } = await import("node:fs/promises");\nreturn await readFile(params.path, "utf8");',
			{ path: "missing.txt" },
		);
		expect(used.isError).toBe(true);
		expect(used.text).toContain("ENOENT");
		expect(used.text).toContain(
			'Hint: The error comes from the arguments, not the logic: params.path ("missing.txt") names a file or folder that does not exist (ENOENT).',
		);
		// Node 26's fs.promises errors carry no stack into the tool: a location is given where Node gives one, and then right.
		if (used.text.includes("at forge-cat.ts:"))
			expect(used.text).toMatch(/> 24 \| return await readFile\(params\.path, "utf8"\);/);
		if (Number(process.versions.node.split(".")[0]) < 26) expect(used.text).toContain("at forge-cat.ts:24:");
		expect(used.text).not.toContain("Source of forge-cat.ts");
	});

	it("a write the policy refuses: the grant to ask for, not the logic, no source dump", async () => {
		const { used } = await forgeAndUse(
			"write-home",
			'const { writeFile } = await import("node:fs/promises");\nawait writeFile("/etc/agent-forge-probe", "x");\nreturn "written";',
			{ path: "unused" },
		);
		expect(used.isError).toBe(true);
		expect(used.text).toContain("(phase: permission)");
		expect(used.text).toContain("'write-home' may not write");
		expect(used.text).not.toContain("Source of forge-write-home.ts");
		expect(used.text).not.toContain("Fix the logic");
	});

	it("a bug in the logic keeps the repair signal: fix-the-logic hint and the source", async () => {
		const { used } = await forgeAndUse("buggy", 'const parts = params.path.split("/");\nreturn parts[5].length;', {
			path: "a/b",
		});
		expect(used.isError).toBe(true);
		expect(used.text).toContain("Hint: Fix the logic at forge-buggy.ts:24");
		expect(used.text).toContain("Source of forge-buggy.ts:");
	});
});
