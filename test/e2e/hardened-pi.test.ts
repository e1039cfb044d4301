// Issue 11, classes 4, 5, 6 and 8, through the real pi (scripted model): what a tool returns or throws does not crash
// pi, what it asks to validate and its tests do not hang it, its secrets reach no file, and its code ends with its call.
// After every case a tool forged first still answers, in the same pi.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type PiHarness, startPi, type ToolEvent } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const TIMEOUT_MS = 1500;
const NO_PARAMS = { type: "object", properties: {} };
const WASM_MODULE = "new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))";
/** A check's bound (PI_FORGE_TIMEOUT_MS here), the checker's start and slack for a loaded machine. */
const BOUND_MS = TIMEOUT_MS + 2500;

function harness(env: Record<string, string> = {}) {
	let pi: PiHarness;
	const call = async (toolName: string, args: Record<string, unknown>): Promise<ToolEvent> => {
		const run = await pi.run(`call ${toolName}`, [[{ name: toolName, args }], { text: "ok" }]);
		return run.toolEvents[0];
	};
	const forge = (name: string, logic: string, extra: Record<string, unknown> = {}) =>
		call("forge_tool", { name, description: `The ${name} tool.`, parametersSchema: NO_PARAMS, logic, ...extra });
	const forgeAndUse = async (
		name: string,
		logic: string,
		args: Record<string, unknown> = {},
		extra: Record<string, unknown> = {},
	): Promise<ToolEvent> => {
		const forged = await forge(name, logic, extra);
		expect(forged.isError, forged.text).toBe(false);
		return call("use_forge_tool", { name, args });
	};
	beforeAll(async () => {
		pi = await startPi({
			extensionPaths: [INDEX],
			env: { PI_FORGE_TIMEOUT_MS: String(TIMEOUT_MS), PI_FORGE_MAX_MEMORY_MB: "64", ...env },
		});
		const forged = await call("forge_tool", {
			name: "greet",
			description: "Greet someone by name.",
			parametersSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
			logic: "return `Hello, ${params.who}!`;",
		});
		expect(forged.isError, forged.text).toBe(false);
	});
	afterAll(async () => pi?.dispose());
	afterEach(async () => {
		const event = await call("use_forge_tool", { name: "greet", args: { who: "Ada" } });
		expect(event.isError, event.text).toBe(false);
		expect(event.text).toBe("Hello, Ada!");
	});
	return { pi: () => pi, call, forge, forgeAndUse };
}

describe("class 4: what a tool returns or throws cannot crash pi", () => {
	const { forgeAndUse } = harness();

	it("a WebAssembly.Module in a result's details reaches pi as plain JSON", async () => {
		const event = await forgeAndUse(
			"wasm-details",
			`return { content: [{ type: "text", text: "ok" }], details: { module: ${WASM_MODULE} } };`,
		);
		expect(event.isError, event.text).toBe(false);
		expect(event.text).toBe("ok");
		expect((event.details as { result?: unknown }).result).toEqual({ module: {} });
	});

	it.each([
		[
			"a SharedArrayBuffer and a MessagePort in details",
			'return { content: [{ type: "text", text: "ok" }], details: { shared: new SharedArrayBuffer(8), port: new MessageChannel().port1 } };',
			false,
		],
		["a thrown WebAssembly.Module", `throw ${WASM_MODULE};`, true],
		[
			"a thrown Error carrying a SharedArrayBuffer",
			'throw Object.assign(new Error("bad"), { shared: new SharedArrayBuffer(8) });',
			true,
		],
		[
			"details nested 100 000 deep",
			'let d: any = {};\nfor (let i = 0; i < 100_000; i++) d = { d };\nreturn { content: [{ type: "text", text: "ok" }], details: d };',
			false,
		],
	])("%s leaves pi running", async (_label, logic, isError) => {
		const event = await forgeAndUse("odd-value", logic);
		expect(event.isError, event.text).toBe(isError);
	});
});

describe("class 4 under the permissive policy", () => {
	const { forgeAndUse } = harness({ PI_FORGE_POLICY: "permissive" });

	it("reading process.env.toString (an inherited member, not a variable) neither rejects in pi nor fails the call", async () => {
		const event = await forgeAndUse(
			"env-tostring",
			'return [typeof process.env.toString, typeof (process.env as any).valueOf, String(process.env)].join(",");',
		);
		expect(event.isError, event.text).toBe(false);
		expect(event.text).toBe("function,function,[object Object]");
	});
});

describe("class 5: what a tool asks to validate, or its tests, cannot hang pi", () => {
	const { pi, call, forge } = harness();

	it("a catastrophic pattern in the schema fails use_forge_tool (phase arguments) within the bound", async () => {
		const forged = await forge("redos", 'return "ran";', {
			parametersSchema: { type: "object", properties: { text: { type: "string", pattern: "^(a+)+$" } } },
		});
		expect(forged.isError, forged.text).toBe(false);
		const started = performance.now();
		const event = await call("use_forge_tool", { name: "redos", args: { text: `${"a".repeat(40)}!` } });
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: arguments)");
		expect(event.text).toContain(`took longer than ${TIMEOUT_MS} ms, so the tool was not run`);
		expect(performance.now() - started).toBeLessThan(BOUND_MS);
	});

	it("a tool with that pattern called by its own name (pi validates its copy of the schema) fails the same way, and pi's copy holds no pattern", async () => {
		const forged = await forge("redos-direct", 'return "ran";', {
			parametersSchema: { type: "object", properties: { text: { type: "string", pattern: "^(a+)+$" } } },
		});
		expect(forged.isError, forged.text).toBe(false);
		const run = await pi().run("call redos-direct by its name", [
			[{ name: "redos-direct", args: { text: `${"a".repeat(40)}!` } }],
			{ text: "ok" },
		]);
		const event = run.toolEvents[0];
		expect(event.toolName).toBe("redos-direct");
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: arguments)");
		const offered = pi().session.getToolDefinition("redos-direct") as { parameters?: unknown } | undefined;
		expect(JSON.stringify(offered?.parameters)).toContain("Must match the regular expression /^(a+)+$/.");
		expect(JSON.stringify(offered?.parameters)).not.toContain('"pattern"');
	});

	it("$refs that double 30 times under anyOf fail the call (phase arguments) within the bound", async () => {
		const defs: Record<string, unknown> = { a30: { type: "number" } };
		for (let i = 0; i < 30; i++)
			defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
		const forged = await forge("exp-refs", 'return "ran";', {
			parametersSchema: { type: "object", properties: { x: { $ref: "#/$defs/a0" } }, $defs: defs },
		});
		expect(forged.isError, forged.text).toBe(false);
		const started = performance.now();
		const event = await call("use_forge_tool", { name: "exp-refs", args: { x: "not a number" } });
		expect(event.text).toContain("(phase: arguments)");
		expect(performance.now() - started).toBeLessThan(BOUND_MS);
	});

	it("a test whose matches backtracks catastrophically fails the forge (phase tests) within the bound", async () => {
		const started = performance.now();
		const event = await forge("redos-test", 'return "a".repeat(40) + "!";', {
			tests: [{ args: {}, matches: "^(a+)+$" }],
		});
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: tests)");
		expect(event.text).toContain("matching took too long");
		expect(performance.now() - started).toBeLessThan(BOUND_MS + 1000);
	});

	it("tests[].timeoutMs of 900 000 000 on a test that never settles is capped to PI_FORGE_TIMEOUT_MS", async () => {
		const started = performance.now();
		const event = await forge("never", "await new Promise(() => {});", {
			tests: [{ args: {}, expect: "x", timeoutMs: 900_000_000 }],
		});
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: tests)");
		expect(event.text).toContain(`did not finish within ${TIMEOUT_MS} ms`);
		expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 2500);
	});
});

describe("class 6: secrets are never stored raw", () => {
	const KEY = "sk-proj-Q7fT2mZ9xW4vB8nK1cR6yH3pL5sD0gJ";
	const VALUE = "plain-looking-but-secret-value-42";
	const { pi, forgeAndUse, call } = harness({ PI_FORGE_POLICY: "permissive", FORGE_E2E_API_KEY: VALUE });

	function filesContaining(dir: string, needle: string): string[] {
		return readdirSync(dir, { recursive: true, withFileTypes: true })
			.filter((entry) => entry.isFile())
			.map((entry) => join(entry.parentPath, entry.name))
			.filter((file) => readFileSync(file).includes(needle));
	}

	it("a granted tool's thrown key and secret variable reach no file in the project or the agent dir; state files are 0600", async () => {
		const logic =
			'const key = ["sk-proj", "Q7fT2mZ9xW4vB8nK1cR6yH3pL5sD0gJ"].join("-");\nthrow new Error(`auth failed for ${key} with ${process.env.FORGE_E2E_API_KEY}`);';
		const event = await forgeAndUse("leaky", logic);
		expect(event.isError).toBe(true);
		expect(event.text).not.toContain(KEY);
		await call("use_forge_tool", { name: "leaky", args: {} });
		// The health file is written a moment after a call, the audit log at once.
		await new Promise((resolve) => setTimeout(resolve, 600));
		const toolbox = join(pi().cwd, ".pi", "forge", "extensions");
		expect(filesContaining(pi().cwd, KEY)).toEqual([]);
		expect(filesContaining(pi().cwd, VALUE)).toEqual([]);
		expect(filesContaining(pi().agentDir, KEY)).toEqual([]);
		expect(readFileSync(join(toolbox, ".forge-health.json"), "utf8")).toContain("[redacted openai-api-key]");
		for (const file of [".forge-health.json", ".forge-audit.jsonl"])
			expect(statSync(join(toolbox, file)).mode & 0o777).toBe(0o600);
	});

	it("no tool, even a permissive one, can read the health file or the audit log", async () => {
		for (const file of [".forge-health.json", ".forge-audit.jsonl"]) {
			const event = await forgeAndUse(
				"state-reader",
				`import { readFileSync } from "node:fs";\nreturn readFileSync(".pi/forge/extensions/${file}", "utf8");`,
			);
			expect(event.isError).toBe(true);
			expect(event.text).toContain("one of Agent Forge's own files, which forged tools may not read");
		}
	});
});

describe("class 8: a call's code ends with the call", () => {
	const { pi, forgeAndUse } = harness();

	it("a top-level setInterval that appends to a file writes nothing after the call returned", async () => {
		const logic =
			'await new Promise((resolve) => setTimeout(resolve, 100));\nreturn "ticking";\n}\nimport { appendFileSync } from "node:fs";\nsetInterval(() => appendFileSync("ticks.txt", "tick"), 10);\nfunction unused() {';
		const event = await forgeAndUse("ticker", logic);
		expect(event.isError, event.text).toBe(false);
		const file = join(pi().cwd, "ticks.txt");
		const atResult = existsSync(file) ? readFileSync(file, "utf8").length : 0;
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect(existsSync(file) ? readFileSync(file, "utf8").length : 0).toBe(atResult);
	});

	it("an interval started in execute that writes and a pending promise that writes later do nothing after the result", async () => {
		const logic =
			'import { appendFileSync, promises } from "node:fs";\nsetInterval(() => appendFileSync("late-ticks.txt", "tick"), 10);\nvoid (async () => { await new Promise((r) => setTimeout(r, 100)); await promises.writeFile("late.txt", "late"); })();\nreturn "returned";';
		const event = await forgeAndUse("late", logic);
		expect(event.isError, event.text).toBe(false);
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect(existsSync(join(pi().cwd, "late-ticks.txt"))).toBe(false);
		expect(existsSync(join(pi().cwd, "late.txt"))).toBe(false);
	});
});
