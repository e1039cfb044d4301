// When Agent Forge's own runner cannot start, the model is told so — not that its tool is wrong — through the real pi:
// the cause and what the user can do, no source to "repair", and no failed attempt counted against the tool.
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startPi, type ToolEvent } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");

const greet = {
	name: "greet",
	description: "Greet someone by name.",
	parametersSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
	logic: "return `Hello, ${params.who}!`;",
};

/** A stand-in for a Node binary: answers --version like Node, and fails the start the way `fail` says. */
async function fakeNode(fail: string): Promise<string> {
	const dir = await mkdtemp(join(tmpdir(), "forge-fake-node-"));
	const path = join(dir, "node");
	await writeFile(path, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo v99.1.0; exit 0; fi\n${fail}\n`);
	await chmod(path, 0o755);
	return path;
}

async function withRunner(
	nodePath: string,
	steps: (call: (tool: string, args: Record<string, unknown>) => Promise<ToolEvent>) => Promise<void>,
	cwd?: string,
) {
	const pi = await startPi({
		extensionPaths: [INDEX],
		cwd,
		env: { PI_FORGE_NODE: nodePath, PI_FORGE_QUARANTINE_AFTER: "2" },
	});
	try {
		await steps(
			async (tool, args) => (await pi.run(`call ${tool}`, [[{ name: tool, args }], { text: "ok" }])).toolEvents[0],
		);
	} finally {
		await pi.dispose();
	}
}

function expectRunnerFailure(event: ToolEvent, cause: RegExp, remedy: RegExp) {
	expect(event.isError).toBe(true);
	expect(event.text).toMatch(/^Agent Forge: its runner failed \(not the tool\) in tool '[a-z]+' \(phase: runner\)/);
	expect(event.text).toContain("(phase: runner)");
	expect(event.text).toContain("This is not a fault of the tool's code: do not change it.");
	expect(event.text).toMatch(cause);
	expect(event.text).toMatch(remedy);
	expect(event.text).not.toContain("Source of");
	expect(event.text).not.toContain("phase: runtime");
}

describe("the runner cannot start", () => {
	it("a Node that rejects the permission flag: the forge says the runner failed, with the flag and what to do, and never counts it against the tool", async () => {
		const node = await fakeNode('echo "$0: bad option: --permission" >&2\nexit 9');
		await withRunner(node, async (call) => {
			for (let attempt = 1; attempt <= 4; attempt++) {
				const event = await call("forge_tool", greet);
				expectRunnerFailure(
					event,
					/Cause: Node v99\.1\.0 \(.*node\) rejected the runner's flag --permission\./,
					/Tell the user: update Agent Forge .*PI_FORGE_NODE/,
				);
				// Back-off advice comes after three failed repairs of a tool; these were no attempts at it.
				expect(event.text).not.toMatch(/attempts|in a row/);
			}
			const listed = await call("list_forge", {});
			expect(listed.text).toBe("The toolbox is empty. Create a tool with forge_tool.");
		});
	});

	it("a Node binary that may not be run (EACCES), and one that is not there (ENOENT), each with its own remedy", async () => {
		const node = await fakeNode("exit 0");
		await chmod(node, 0o644);
		await withRunner(node, async (call) => {
			expectRunnerFailure(
				await call("forge_tool", greet),
				/Cause: pi's process could not start .*node \(EACCES\)\./,
				/allow pi to start child processes/,
			);
		});
		await withRunner(join(tmpdir(), "no-such-dir", "node"), async (call) => {
			expectRunnerFailure(
				await call("forge_tool", greet),
				/Cause: pi's process could not start .*no-such-dir\/node \(ENOENT\)\./,
				/point PI_FORGE_NODE at an installed Node binary/,
			);
		});
	});

	it("calls of a working tool while the runner cannot start: told plainly, and the tool is neither failed nor quarantined", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "forge-runner-down-"));
		await withRunner(
			process.execPath,
			async (call) => {
				expect((await call("forge_tool", greet)).isError).toBe(false);
			},
			cwd,
		);
		const node = await fakeNode('echo "$0: bad option: --permission" >&2\nexit 9');
		await withRunner(
			node,
			async (call) => {
				for (let i = 0; i < 3; i++) {
					const event = await call("use_forge_tool", { name: "greet", args: { who: "Ada" } });
					expectRunnerFailure(event, /'greet' was not run/, /Tell the user:/);
				}
				const listed = await call("list_forge", {});
				expect(listed.text).toMatch(/- greet v1 \[ok, draft\]/);
				expect(listed.text).toContain("never used");
			},
			cwd,
		);
		await withRunner(
			process.execPath,
			async (call) => {
				expect((await call("use_forge_tool", { name: "greet", args: { who: "Ada" } })).text).toBe("Hello, Ada!");
			},
			cwd,
		);
	});
});
