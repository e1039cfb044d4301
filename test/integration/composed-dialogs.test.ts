// A person's dialogs count to the top-level call, the calls it makes through pi.useTool included (third red team,
// R13: a caller looping over a callee that needs a grant opened 40 dialogs in one call, since every nested call began
// with a fresh budget and no memory of the Deny just given).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_DIALOGS_PER_CALL } from "../../src/policy/gate.ts";
import type { RunHost } from "../../src/run/runner.ts";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { toolRequest } from "../helpers/toolbox-fixture.ts";

const NO_PARAMS = { type: "object", properties: {} };
let box: IsolatedBox;

beforeAll(async () => {
	box = await isolatedToolbox({ PI_FORGE_POLICY: "prompt", PI_FORGE_TIMEOUT_MS: "20000" });
	for (const [name, logic] of [
		["reader", 'const fs = require("fs");\nreturn fs.readFileSync("/etc/hostname", "utf8");'],
		[
			"nagger",
			'let refused = 0;\nfor (let i = 0; i < 40; i++) { try { await pi.useTool("reader", {}); } catch { refused++; } }\nreturn "refused " + refused;',
		],
	]) {
		const forged = await box.toolbox.forge(toolRequest(name, logic, { parametersSchema: NO_PARAMS }), new Map());
		expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
	}
});
afterAll(async () => {
	await box.toolbox.close();
	rmSync(box.cwd, { recursive: true, force: true });
	rmSync(join(box.grants.file, "..", ".."), { recursive: true, force: true });
});

/** Hosts for one top-level call: each nested call's host shares its `callTree` (as compose.ts's do) and the UI. */
function callTree(answer: string, answerAfterMs = 0) {
	const titles: string[] = [];
	const tree = {};
	const host = (): RunHost => ({
		pi: {},
		hasUI: true,
		notify() {},
		callTree: tree,
		async select(title) {
			titles.push(title);
			await new Promise((resolve) => setTimeout(resolve, answerAfterMs));
			return answer;
		},
		async useTool(name, args, caller) {
			const timeoutMs = Math.max(1, caller.deadline - Date.now());
			const used = await box.toolbox.use(name, args, { host: host(), nested: {}, timeoutMs });
			if (!used.ok) throw new Error(used.error.message);
			return used.value.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
		},
	});
	return { host: host(), titles };
}

describe("dialogs of nested calls", () => {
	it("a Deny given to a callee holds for its other calls within the same top-level call", async () => {
		const { host, titles } = callTree("Deny");
		const used = await box.toolbox.use("nagger", {}, { host });
		expect(used.ok && used.value.content).toEqual([{ type: "text", text: "refused 40" }]);
		expect(titles).toHaveLength(1);
	});

	it("a top-level call opens at most MAX_DIALOGS_PER_CALL dialogs through all its nested calls", async () => {
		const { host, titles } = callTree("Allow once");
		const used = await box.toolbox.use("nagger", {}, { host });
		expect(used.ok && used.value.content).toEqual([{ type: "text", text: `refused ${40 - MAX_DIALOGS_PER_CALL}` }]);
		expect(titles).toHaveLength(MAX_DIALOGS_PER_CALL);
	});

	it("a nested call gets the caller's time left, the time a person took to answer given back", async () => {
		const slow = await box.toolbox.forge(
			toolRequest("sleeper", 'await new Promise((r) => setTimeout(r, 900));\nreturn "slept";', {
				parametersSchema: NO_PARAMS,
			}),
			new Map(),
		);
		const asks = await box.toolbox.forge(
			toolRequest(
				"asks-then-calls",
				'require("fs").readFileSync("/etc/hostname");\nreturn await pi.useTool("sleeper", {});',
				{
					parametersSchema: NO_PARAMS,
				},
			),
			new Map(),
		);
		expect([slow.ok, asks.ok]).toEqual([true, true]);
		const { host } = callTree("Allow once", 1500);
		const used = await box.toolbox.use("asks-then-calls", {}, { host, timeoutMs: 2000 });
		expect(used.ok ? used.value.content : used.error.message).toEqual([{ type: "text", text: "slept" }]);
	});

	it("the next top-level call may ask again", async () => {
		const { host, titles } = callTree("Deny");
		await box.toolbox.use("nagger", {}, { host });
		expect(titles).toHaveLength(1);
	});
});

describe("composingHost", () => {
	it("gives every host of one composition the same callTree, and caps their notifications together", async () => {
		const { composingHost } = await import("../../src/pi/compose.ts");
		const { MAX_NOTIFICATIONS } = await import("../../src/run/isolated/parent/call-table.ts");
		const shown: string[] = [];
		const ctx = { hasUI: true, ui: { notify: (text: string) => shown.push(text), select: async () => undefined } };
		const composition = { pi: {}, ctx, cwd: "/p", resolve: async () => undefined, names: () => [] } as never;
		const top = composingHost(composition, ["a"]);
		const nested = composingHost(composition, ["a", "b"]);
		expect(nested.callTree).toBe(top.callTree);
		expect(composingHost({ ...(composition as object) } as never, ["a"]).callTree).not.toBe(top.callTree);
		for (let i = 0; i < 15; i++) top.notify(`top ${i}`);
		for (let i = 0; i < 15; i++) nested.notify(`nested ${i}`);
		expect(shown).toHaveLength(MAX_NOTIFICATIONS + 1);
		expect(shown.at(-1)).toMatch(/sent more than 20 notifications/);
	});
});
