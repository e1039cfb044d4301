// forge_tool and calls of the same tool in one assistant message, run concurrently by the real pi: the call waits for
// the forge and runs the version it made, saying which; a failed forge is said, and the previous version runs only if
// there is one; a re-forged tool is offered with its new schema in the next prompt.
import { join, resolve } from "node:path";
import type { Context } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { generateToolbox } from "../helpers/big-toolbox.ts";
import { toolsOf } from "../helpers/model-context.ts";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";
import { realisticTool } from "../helpers/realistic-tool.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");

let pi: PiHarness | undefined;
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

const base = realisticTool("order-summary", "order");
/** The same tool with another output and one more parameter, so each version is recognisable. */
const version = (label: string, extra?: Record<string, unknown>) => ({
	...base,
	parametersSchema: { ...base.parametersSchema, properties: { ...base.parametersSchema.properties, ...extra } },
	logic: `return ${JSON.stringify(label)} + " " + params.groupBy;`,
});
const broken = { ...base, logic: "return (;" };
const call = { path: "orders.csv", groupBy: "region" };
const use = (args: Record<string, unknown> = call) => ({ name: "use_forge_tool", args: { name: base.name, args } });

async function start(contexts: Context[] = []): Promise<PiHarness> {
	const cwd = await makeTempDir("forge-race");
	await generateToolbox(join(cwd, ".pi", "forge", "extensions"), 20, { seed: 5 });
	pi = await startPi({ extensionPaths: [INDEX], cwd, onContext: (context) => contexts.push(context as Context) });
	return pi;
}

const byTool = (events: { toolName: string; text: string; isError: boolean }[], name: string) =>
	events.find((e) => e.toolName === name)!;

describe("forge_tool and a call of the same tool in one message", () => {
	it("a new tool: use_forge_tool waits for the forge, runs it and names the version", async () => {
		const pi = await start();
		const run = await pi.run("make and use", [
			[{ name: "forge_tool", args: version("first") }, use()],
			{ text: "ok" },
		]);
		const used = byTool(run.toolEvents, "use_forge_tool");
		expect(used.isError, used.text).toBe(false);
		expect(used.text).toBe(
			"first region\n(Ran 'order-summary' v1, the version forged by the forge_tool call in this same message.)",
		);
	});

	it("the use listed before the forge waits for it too", async () => {
		const pi = await start();
		const run = await pi.run("use and make", [
			[use(), { name: "forge_tool", args: version("first") }],
			{ text: "ok" },
		]);
		const used = byTool(run.toolEvents, "use_forge_tool");
		expect(used.isError, used.text).toBe(false);
		expect(used.text).toContain("first region\n(Ran 'order-summary' v1");
	});

	it("a re-forge: the use runs the new version, and the next prompt offers the new schema", async () => {
		const contexts: Context[] = [];
		const pi = await start(contexts);
		await pi.run("v1", [[{ name: "forge_tool", args: version("one") }], { text: "ok" }]);
		await pi.run("v2", [[{ name: "forge_tool", args: version("two") }], { text: "ok" }]);
		const currency = { currency: { type: "string", enum: ["EUR", "USD"], description: "Currency of the totals." } };
		const run = await pi.run("v3 and use", [
			[{ name: "forge_tool", args: version("three", currency) }, use({ ...call, currency: "EUR" })],
			{ text: "ok" },
		]);
		const used = byTool(run.toolEvents, "use_forge_tool");
		expect(used.isError, used.text).toBe(false);
		expect(used.text).toBe(
			"three region\n(Ran 'order-summary' v3, the version forged by the forge_tool call in this same message.)",
		);

		contexts.length = 0;
		await pi.run("next", [{ text: "ok" }]);
		const offered = toolsOf(contexts[0]).find((tool) => tool.name === base.name);
		expect(offered?.parameters).toEqual(version("three", currency).parametersSchema);
		expect(offered?.description).toContain("v3");
	});

	it("a re-forge that adds a required parameter: a use with the old arguments is refused by the new version, named", async () => {
		const pi = await start();
		await pi.run("v1", [[{ name: "forge_tool", args: version("one") }], { text: "ok" }]);
		const v2 = version("two", {
			currency: { type: "string", enum: ["EUR", "USD"], description: "Currency of the totals." },
		});
		v2.parametersSchema = { ...v2.parametersSchema, required: [...v2.parametersSchema.required, "currency"] };
		const run = await pi.run("v2 and use", [[{ name: "forge_tool", args: v2 }, use()], { text: "ok" }]);
		const used = byTool(run.toolEvents, "use_forge_tool");
		expect(used.isError).toBe(true);
		expect(used.text).toMatch(/phase: arguments/);
		expect(used.text).toContain("currency");
		expect(used.text).toContain(
			"Called 'order-summary' v2, the version forged by the forge_tool call in this same message.",
		);
	});

	it("a failed re-forge: the use says so and runs the previous version, naming it", async () => {
		const pi = await start();
		await pi.run("v1", [[{ name: "forge_tool", args: version("one") }], { text: "ok" }]);
		const run = await pi.run("break and use", [[{ name: "forge_tool", args: broken }, use()], { text: "ok" }]);
		expect(byTool(run.toolEvents, "forge_tool").isError).toBe(true);
		const used = byTool(run.toolEvents, "use_forge_tool");
		expect(used.isError, used.text).toBe(false);
		expect(used.text).toBe(
			"one region\n(The forge_tool call for 'order-summary' in this same message failed (phase: syntax): this ran the previous version v1, which is still live.)",
		);
	});

	it("a failed forge of a new tool: the use says so and runs nothing", async () => {
		const pi = await start();
		const run = await pi.run("break and use", [[{ name: "forge_tool", args: broken }, use()], { text: "ok" }]);
		const used = byTool(run.toolEvents, "use_forge_tool");
		expect(used.isError).toBe(true);
		expect(used.text).toContain(
			"The forge_tool call for 'order-summary' in this same message failed (phase: syntax), and there is no earlier version: nothing ran.",
		);
	});

	it("a direct call racing a re-forge runs the new version and names it", async () => {
		const pi = await start();
		await pi.run("v1", [[{ name: "forge_tool", args: version("one") }], { text: "ok" }]);
		const run = await pi.run("v2 and call", [
			[
				{ name: "forge_tool", args: version("two") },
				{ name: base.name, args: call },
			],
			{ text: "ok" },
		]);
		expect(run.toolNamesSeen[0]).toContain(base.name);
		const direct = byTool(run.toolEvents, base.name);
		expect(direct.isError, direct.text).toBe(false);
		expect(direct.text).toBe(
			"two region\n(Ran 'order-summary' v2, the version forged by the forge_tool call in this same message.)",
		);
	});

	it("a call in a later message runs the live version without a note", async () => {
		const pi = await start();
		const run = await pi.run("make, then use", [
			[{ name: "forge_tool", args: version("first") }],
			[use()],
			{ text: "ok" },
		]);
		expect(byTool(run.toolEvents, "use_forge_tool").text).toBe("first region");
	});
});
