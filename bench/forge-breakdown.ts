// Where a forge's time goes: the stages of runForgePipeline + Toolbox.forge, called one by one in the same order
// (same exported functions, same store), each timed. Figures only; the sum is close to, not equal to, a real forge.
import { join } from "node:path";
import { validateName } from "../src/contract/names.ts";
import { hashSource, serializeMeta, type ToolMeta, tsFileOf } from "../src/contract/tool-files.ts";
import { checkImports } from "../src/forge/imports.ts";
import { renderTool } from "../src/forge/render.ts";
import { transpile } from "../src/forge/transpile.ts";
import { preflightLoad } from "../src/run/jiti-preflight.ts";
import { validateParametersSchema } from "../src/schema/parameters-schema.ts";
import { emptyRegistry, entryFromMeta, serializeRegistry } from "../src/store/registry.ts";
import { loadTemplate } from "../src/store/template-file.ts";
import { ToolboxStore } from "../src/store/toolbox-store.ts";
import { line, ms, stats, tempDir, time, writeResult } from "./lib.ts";
import { toolSpec } from "./tools.ts";

const TOOLS = Number(process.env.BENCH_TOOLS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);

const STAGES = [
	"validate",
	"render",
	"transpile (esbuild ×2)",
	"import check (acorn)",
	"stage (2 durable writes)",
	"preflight (jiti load)",
	"promote (rename ×2 + stat)",
	"discard staging",
	"registry save",
] as const;
type Stage = (typeof STAGES)[number];

async function main(): Promise<void> {
	const tmp = tempDir("breakdown");
	const store = new ToolboxStore(join(tmp.path, "toolbox"));
	await store.ensure();
	const registry = emptyRegistry();
	const samples = new Map<Stage, number[]>(STAGES.map((s) => [s, []]));
	const totals: number[] = [];

	const forgeOnce = async (i: number, prefix: string, record: boolean) => {
		const spec = toolSpec(prefix, i);
		const times: Array<[Stage, number]> = [];
		const step = async <T>(stage: Stage, fn: () => Promise<T> | T): Promise<T> => {
			let out!: T;
			times.push([stage, await time(async () => (out = await fn()))]);
			return out;
		};
		const params = await step("validate", () => {
			const name = validateName(spec.name, new Map());
			const schema = validateParametersSchema(spec.parametersSchema);
			if (!name.ok || !schema.ok) throw new Error("invalid spec");
			return schema.value;
		});
		const file = tsFileOf(spec.name);
		const { source } = await step("render", () =>
			renderTool(loadTemplate(), {
				name: spec.name,
				description: spec.description,
				parameters: params,
				logic: spec.logic,
			}),
		);
		const transpiled = await step("transpile (esbuild ×2)", () => transpile(source, file));
		if (!transpiled.ok) throw transpiled.error;
		const imports = await step("import check (acorn)", () => checkImports(transpiled.value.esm, file, source));
		if (!imports.ok) throw imports.error;
		const now = new Date().toISOString();
		const meta: ToolMeta = {
			name: spec.name,
			description: spec.description,
			parameters: params,
			version: 1,
			hash: hashSource(source),
			createdAt: now,
			updatedAt: now,
		};
		const staged = await step("stage (2 durable writes)", () => store.stage(spec.name, source, serializeMeta(meta)));
		const shape = await step("preflight (jiti load)", () =>
			preflightLoad(staged.tsPath, transpiled.value.cjs.code, spec.name, file),
		);
		if (!shape.ok) throw shape.error;
		const promoted = await step("promote (rename ×2 + stat)", () => store.promote(staged));
		await step("discard staging", () => store.discard(staged));
		registry.tools[spec.name] = entryFromMeta(meta, promoted.stamps);
		await step("registry save", () => store.writeRegistry(serializeRegistry(registry)));
		if (!record) return;
		for (const [stage, t] of times) samples.get(stage)!.push(t);
		totals.push(times.reduce((sum, [, t]) => sum + t, 0));
	};

	for (let i = 0; i < WARMUP; i++) await forgeOnce(i, "warm", false);
	for (let i = 0; i < TOOLS; i++) await forgeOnce(i, "tool", true);
	tmp.cleanup();

	const total = stats(totals);
	console.log();
	console.log(`forge stage breakdown (${TOOLS} tools)`);
	for (const stage of STAGES) {
		const s = stats(samples.get(stage)!);
		line(
			`  ${stage}`,
			`p50 ${ms(s.p50)}`,
			`p95 ${ms(s.p95)}`,
			`mean ${ms(s.mean)}`,
			`${((100 * s.mean) / total.mean).toFixed(0).padStart(3)}% of mean`,
		);
	}
	line("  sum of stages", `p50 ${ms(total.p50)}`, `p95 ${ms(total.p95)}`, `mean ${ms(total.mean)}`);
	console.log();

	writeResult(
		"forge-breakdown",
		`forge stage breakdown (${TOOLS} tools)`,
		[
			...STAGES.map((stage) => ({
				metric: `${stage} p50`,
				value: stats(samples.get(stage)!).p50,
				unit: "ms" as const,
			})),
			{ metric: "sum of stages p50", value: total.p50, unit: "ms" },
		],
		{ stages: Object.fromEntries(STAGES.map((s) => [s, stats(samples.get(s)!)])) },
	);
}

await main();
