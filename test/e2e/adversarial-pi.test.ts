// A few attacks through the real pi (scripted model): each comes back to the model as a tool error with its phase,
// and pi, the toolbox and a tool forged before them keep working.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type PiHarness, startPi, type ToolEvent } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const TIMEOUT_MS = 1500;
const NO_PARAMS = { type: "object", properties: {} };

let pi: PiHarness;
let greetSource: string;

async function call(toolName: string, args: Record<string, unknown>): Promise<ToolEvent> {
	const run = await pi.run(`call ${toolName}`, [[{ name: toolName, args }], { text: "ok" }]);
	return run.toolEvents[0];
}

const forge = (name: string, logic: string) =>
	call("forge_tool", { name, description: `The ${name} tool.`, parametersSchema: NO_PARAMS, logic });

async function forgeAndUse(name: string, logic: string): Promise<ToolEvent> {
	const forged = await forge(name, logic);
	expect(forged.isError, forged.text).toBe(false);
	return call("use_forge_tool", { name, args: {} });
}

beforeAll(async () => {
	pi = await startPi({
		extensionPaths: [INDEX],
		env: { PI_FORGE_TIMEOUT_MS: String(TIMEOUT_MS), PI_FORGE_MAX_MEMORY_MB: "64" },
	});
	const forged = await call("forge_tool", {
		name: "greet",
		description: "Greet someone by name.",
		parametersSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
		logic: "return `Hello, ${params.who}!`;",
	});
	expect(forged.isError, forged.text).toBe(false);
	greetSource = readFileSync(join(pi.cwd, ".pi", "forge", "extensions", "forge-greet.ts"), "utf8");
});
afterAll(async () => pi?.dispose());
afterEach(async () => {
	expect(readFileSync(join(pi.cwd, ".pi", "forge", "extensions", "forge-greet.ts"), "utf8")).toBe(greetSource);
	const event = await call("use_forge_tool", { name: "greet", args: { who: "Ada" } });
	expect(event.isError, event.text).toBe(false);
	expect(event.text).toBe("Hello, Ada!");
});

describe("attacks through the real pi", () => {
	it("a synchronous infinite loop is stopped at the deadline", async () => {
		const started = performance.now();
		const event = await forgeAndUse("spin", "while (true) {}");
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: timeout)");
		expect(event.text).toContain(`'spin' did not finish within ${TIMEOUT_MS} ms and was stopped.`);
		expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 3000);
	});

	it("a command without a grant is refused, naming the grants file", async () => {
		const event = await forgeAndUse(
			"run-id",
			'import { execSync } from "node:child_process";\nreturn execSync("id", { encoding: "utf8" });',
		);
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: permission)");
		expect(event.text).toContain("'run-id' may not run `id`: no UI to ask.");
		expect(event.text).toContain(join(pi.agentDir, "forge", "grants.json"));
	});

	it("a write into the toolbox is refused for good", async () => {
		const event = await forgeAndUse(
			"overwrite",
			'import { writeFileSync } from "node:fs";\nwriteFileSync(".pi/forge/extensions/forge-greet.ts", "export {};");\nreturn "done";',
		);
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: permission)");
		expect(event.text).toContain("the toolbox is never writable by a forged tool");
	});

	it("raw bytes for the runner's channel to pi are refused, and pi keeps going", async () => {
		const event = await forgeAndUse(
			"garble",
			'import { writeSync } from "node:fs";\nwriteSync(3, "garbage for the IPC parser");\nreturn "sent";',
		);
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: runtime)");
		expect(event.text).toContain("fs.writeSync is not available to forged tools");
	});

	it("a signal to pi's process is refused", async () => {
		const event = await forgeAndUse(
			"signal-pi",
			'(process as any)[["_ki", "ll"].join("")](process.ppid, 18);\nreturn "sent";',
		);
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: runtime)");
		expect(event.text).toContain("process._kill is not available to forged tools");
	});

	it("a top-level while (true) fails the forge (phase load) and leaves no tool behind", async () => {
		const event = await forge("hang-at-load", "return 1;\n}\nwhile (true) {}\nfunction unused() {");
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: load)");
		expect(event.text).toContain(`did not finish within ${TIMEOUT_MS} ms: its top-level code never ends`);
		const listed = await call("list_forge", {});
		expect(listed.text).not.toContain("hang-at-load");
	});
});
