// Every refusal path through the real pi: each comes back as a tool error (isError) with the phase and what to do.
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PiHarness, startPi, type ToolEvent } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");

const base = {
	name: "greet",
	description: "Greet someone by name.",
	parametersSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
	logic: "return `Hello, ${params.who}!`;",
};

let pi: PiHarness;

beforeAll(async () => {
	pi = await startPi({ extensionPaths: [INDEX] });
	const run = await pi.run("forge greet", [[{ name: "forge_tool", args: base }], { text: "ok" }]);
	expect(run.toolEvents[0].isError, run.toolEvents[0].text).toBe(false);
});
afterAll(async () => pi.dispose());

async function call(toolName: string, args: Record<string, unknown>): Promise<ToolEvent> {
	const run = await pi.run(`call ${toolName}`, [[{ name: toolName, args }], { text: "ok" }]);
	return run.toolEvents[0];
}

const forge = (overrides: Record<string, unknown>) => call("forge_tool", { ...base, ...overrides });

describe("refusals through the real pi", () => {
	it.each([
		["uppercase", "Greet"],
		["a space", "greet someone"],
		["a path", "../escape"],
		["too long", `g${"x".repeat(48)}`],
		["a NUL byte", "greet\u0000x"],
	])("a name with %s", async (_label, name) => {
		const event = await forge({ name });
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: name)");
		expect(event.text).toMatch(/Hint: Call forge_tool again with a name like '[a-z][a-z0-9_-]*'/);
	});

	it.each(["read", "bash", "edit", "write", "forge_tool", "list_forge", "use_forge_tool"])(
		"the taken name %s",
		async (name) => {
			const event = await forge({ name });
			expect(event.isError).toBe(true);
			expect(event.text).toContain("(phase: name)");
		},
	);

	it("an invalid schema", async () => {
		const event = await forge({
			name: "bad-schema",
			parametersSchema: { type: "object", properties: { who: { type: "text" } } },
		});
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: schema)");
		expect(event.text).toContain("parametersSchema.properties.who.type");
	});

	it("a schema that is not an object schema", async () => {
		const event = await forge({ name: "bad-schema", parametersSchema: { type: "string" } });
		expect(event.text).toContain('must describe an object (type "object")');
	});

	it("a syntax error, located in forge-<name>.ts with a code frame and the source", async () => {
		const event = await forge({ logic: "const who = params.who\nreturn `Hello, ${who}!`);" });
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: syntax)");
		expect(event.text).toMatch(/at forge-greet\.ts:23:\d+ \(line 2 of the logic\)/);
		expect(event.text).toMatch(/> 23 \| return `Hello, \$\{who\}!`\);/);
		expect(event.text).toContain("Source of forge-greet.ts:");
	});

	it("a disallowed import, naming the module and its line", async () => {
		const event = await forge({ logic: 'import { createServer } from "node:http";\nreturn typeof createServer;' });
		expect(event.text).toContain("(phase: import)");
		expect(event.text).toContain("import of 'node:http' is outside the core library");
		expect(event.text).toMatch(/at forge-greet\.ts:4:1/);
	});

	it.each([
		["computed import()", "const m = 'os'; return await import(m);", "computed import()"],
		[
			"require of a non-literal",
			"const m = 'os'; return require(m);",
			"require() with a module name that is not a string literal",
		],
		["eval", "return eval('1 + 1');", "`eval` is not allowed"],
		["new Function", "return new Function('return 1')();", "`new Function(…)`"],
	])("%s", async (_label, logic, message) => {
		const event = await forge({ logic });
		expect(event.text).toContain("(phase: import)");
		expect(event.text).toContain(message);
	});

	it("wrong arguments, naming the field and showing the schema", async () => {
		const event = await call("use_forge_tool", { name: "greet", args: { whom: "Ada" } });
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: arguments)");
		expect(event.text).toContain("params.who: must have required property 'who'");
		expect(event.text).toContain('Parameters schema: {\n  "type": "object"');
	});

	it("an unknown tool", async () => {
		const event = await call("use_forge_tool", { name: "gret", args: {} });
		expect(event.text).toContain("(phase: not-found)");
		expect(event.text).toContain("Similar tools: greet");
	});

	it("a tool that throws, with the message, mapped line, arguments and source", async () => {
		const forged = await forge({
			name: "divide",
			parametersSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
			logic: "if (params.b === 0) throw new Error('division by zero');\nreturn params.a / params.b;",
		});
		expect(forged.isError, forged.text).toBe(false);
		const event = await call("use_forge_tool", { name: "divide", args: { a: 1, b: 0 } });
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: runtime)");
		expect(event.text).toContain("Error: division by zero");
		expect(event.text).toMatch(/at forge-divide\.ts:22:\d+ \(line 1 of the logic\)/);
		expect(event.text).toContain('"b": 0');
		expect(event.text).toContain("Source of forge-divide.ts:");
	});

	it("after all these refusals only the good tools are in the toolbox, and they still work", async () => {
		const files = (await readdir(join(pi.cwd, ".pi", "forge", "extensions")))
			.filter((f) => f.startsWith("forge-"))
			.sort();
		expect(files).toEqual([
			"forge-divide.json",
			"forge-divide.ts",
			"forge-greet.json",
			"forge-greet.ts",
			"forge-registry.json",
		]);
		const event = await call("use_forge_tool", { name: "greet", args: { who: "Ada" } });
		expect(event.text).toBe("Hello, Ada!");
	});
});

describe("a toolbox that cannot be opened", () => {
	it("never stops pi: the forge's tools report it, pi's own tools keep working", async () => {
		const { writeFile } = await import("node:fs/promises");
		const { makeTempDir } = await import("../helpers/pi-harness.ts");
		const cwd = await makeTempDir("forge-blocked");
		await writeFile(join(cwd, "not-a-dir"), "a file where the toolbox should be");
		const blocked = await startPi({ extensionPaths: [INDEX], cwd, env: { PI_FORGE_DIR: join(cwd, "not-a-dir") } });
		try {
			const run = await blocked.run("try", [
				[{ name: "list_forge", args: {} }],
				[{ name: "read", args: { path: "not-a-dir" } }],
				{ text: "ok" },
			]);
			expect(run.toolEvents[0].isError).toBe(true);
			expect(run.toolEvents[0].text).toContain("(phase: store)");
			expect(run.toolEvents[0].text).toContain("could not be opened");
			expect(run.toolEvents[1].isError).toBe(false);
			expect(run.toolEvents[1].text).toContain("a file where the toolbox should be");
		} finally {
			await blocked.dispose();
		}
	});
});
