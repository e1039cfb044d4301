// A property test: random sequences of forge / re-forge / remove / roll back / crash (a fault injected at any step of
// a transaction, then a fresh Toolbox from disk, as after a process death) keep the toolbox equal to a simple model.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import { InlineRunner } from "../../src/run/inline-runner.ts";
import { faults, type TransactionStep } from "../../src/store/transaction.ts";
import { createToolbox } from "../../src/toolbox/open-toolbox.ts";
import type { Toolbox } from "../../src/toolbox/toolbox.ts";
import { makeTempDir } from "../helpers/pi-harness.ts";
import { toolRequest } from "../helpers/toolbox-fixture.ts";

const NAMES = ["alpha", "beta", "gamma"] as const;
const STEPS: TransactionStep[] = ["staged", "backed-up", "committed", "renamed-bak", "renamed-live", "applied"];
const DURABLE: ReadonlySet<TransactionStep> = new Set(["committed", "renamed-bak", "renamed-live", "applied"]);

type Op =
	| { kind: "forge"; name: string; variant: number }
	| { kind: "remove"; name: string }
	| { kind: "rollback"; name: string; version: number };
type Command = Op | { kind: "crash"; op: Op; at: TransactionStep };

interface ModelTool {
	version: number;
	variant: number;
	bak?: number;
}

/** What the toolbox should hold: live tools, and every (name, version) → variant ever recorded, newest wins. */
class Model {
	live = new Map<string, ModelTool>();
	history = new Map<string, number>();

	apply(op: Op): boolean {
		const current = this.live.get(op.name);
		if (op.kind === "remove") {
			if (!current) return false;
			this.live.delete(op.name);
			return true;
		}
		const variant = op.kind === "forge" ? op.variant : this.history.get(`${op.name}@${op.version}`);
		if (variant === undefined) return false;
		const version = (current?.version ?? 0) + 1;
		this.live.set(op.name, { version, variant, bak: current?.variant });
		this.history.set(`${op.name}@${version}`, variant);
		return true;
	}
}

const logicOf = (name: string, variant: number) => `return "${name}-${variant}";`;

const opArb: fc.Arbitrary<Op> = fc.oneof(
	fc.record({
		kind: fc.constant("forge" as const),
		name: fc.constantFrom(...NAMES),
		variant: fc.integer({ min: 0, max: 4 }),
	}),
	fc.record({ kind: fc.constant("remove" as const), name: fc.constantFrom(...NAMES) }),
	fc.record({
		kind: fc.constant("rollback" as const),
		name: fc.constantFrom(...NAMES),
		version: fc.integer({ min: 1, max: 4 }),
	}),
);
const commandArb: fc.Arbitrary<Command> = fc.oneof(
	{ weight: 3, arbitrary: opArb },
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant("crash" as const), op: opArb, at: fc.constantFrom(...STEPS) }),
	},
);

afterEach(() => {
	faults.at = undefined;
});

async function openBox(cwd: string): Promise<Toolbox> {
	const toolbox = createToolbox(readConfig(cwd, {}).config, new InlineRunner());
	await toolbox.open();
	return toolbox;
}

async function run(toolbox: Toolbox, op: Op): Promise<boolean> {
	const result =
		op.kind === "forge"
			? await toolbox.forge(toolRequest(op.name, logicOf(op.name, op.variant)), new Map())
			: op.kind === "remove"
				? await toolbox.remove(op.name)
				: await toolbox.rollback(op.name, op.version);
	return result.ok;
}

async function expectMatches(toolbox: Toolbox, model: Model, dir: string): Promise<void> {
	expect(
		toolbox
			.entries()
			.map((e) => e.name)
			.sort(),
	).toEqual([...model.live.keys()].sort());
	for (const [name, tool] of model.live) {
		const entry = toolbox.get(name)!;
		expect({ name, version: entry.version, status: entry.status }).toEqual({
			name,
			version: tool.version,
			status: "ok",
		});
		expect(await readFile(join(dir, `forge-${name}.ts`), "utf8")).toContain(logicOf(name, tool.variant));
		if (tool.bak !== undefined)
			expect(await readFile(join(dir, `forge-${name}.ts.bak`), "utf8")).toContain(logicOf(name, tool.bak));
	}
	const files = await readdir(dir);
	expect(files.filter((f) => f === ".staging" || /\.\d+$/.test(f))).toEqual([]);
}

describe("the toolbox against a model", () => {
	it("random forge / re-forge / remove / roll back / crash sequences", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 15 }), async (commands) => {
				const cwd = await makeTempDir("forge-model");
				const dir = readConfig(cwd, {}).config.toolboxDir;
				const model = new Model();
				let toolbox = await openBox(cwd);
				for (const command of commands) {
					if (command.kind !== "crash") {
						expect(await run(toolbox, command)).toBe(model.apply(command));
						continue;
					}
					let reached = false;
					await toolbox.flush(); // the last change's last steps run before the crash is armed
					faults.at = (step, name) => {
						if (step === command.at && name === command.op.name) {
							reached = true;
							throw new Error(`injected crash at ${step}`);
						}
					};
					const succeeded = await run(toolbox, command.op);
					faults.at = undefined;
					// The process "died": nothing more of it runs (a re-check it queued after the failure is dropped).
					await toolbox.close().catch(() => undefined);
					// A fresh Toolbox from what is on disk.
					toolbox = await openBox(cwd);
					if (!reached) expect(succeeded).toBe(model.apply(command.op));
					else if (DURABLE.has(command.at)) model.apply(command.op);
				}
				await toolbox.flush();
				await expectMatches(toolbox, model, dir);
				await expectMatches(await openBox(cwd), model, dir);
			}),
			{ numRuns: 60 },
		);
	});
});
