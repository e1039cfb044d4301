// use_forge_tool overhead: Toolbox.use() on a forged tool vs calling a plain function with the same body.
import { join } from "node:path";
import { readConfig } from "../src/config.ts";
import { InlineRunner } from "../src/run/inline-runner.ts";
import { createToolbox } from "../src/toolbox/open-toolbox.ts";
import { benchEnv, line, mark, ms as msN, stats, tempDir, time, writeResult } from "./lib.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const GOAL_OVERHEAD_P50_MS = 1;
// Calls take microseconds: show three decimals.
const ms = (x: number) => msN(x, 6, 3);

const LOGIC =
	"const sum = params.a + params.b;\nreturn { sum, product: params.a * params.b, label: `${params.a}+${params.b}` };";
// The same body as a plain function (execute is async, so is this; both are awaited).
const direct = async (params: { a: number; b: number }) => {
	const sum = params.a + params.b;
	return { sum, product: params.a * params.b, label: `${params.a}+${params.b}` };
};

async function main(): Promise<void> {
	const tmp = tempDir("use");
	const toolbox = createToolbox(readConfig(join(tmp.path, "project"), benchEnv()).config, new InlineRunner());
	await toolbox.open();
	const forged = await toolbox.forge(
		{
			name: "add",
			description: "Adds two numbers and returns their sum, product and a label.",
			parametersSchema: {
				type: "object",
				properties: { a: { type: "number" }, b: { type: "number" } },
				required: ["a", "b"],
			},
			logic: LOGIC,
		},
		new Map(),
	);
	if (!forged.ok) throw forged.error;

	const options = { host: { pi: {}, hasUI: false, notify() {} } };
	const args = (i: number) => ({ a: i, b: 2 * i + 1 });
	const viaToolbox = async (i: number) => {
		const result = await toolbox.use("add", args(i), options);
		if (!result.ok) throw result.error;
	};
	const viaDirect = async (i: number) => {
		await direct(args(i));
	};

	for (let i = 0; i < WARMUP; i++) {
		await viaToolbox(i);
		await viaDirect(i);
	}
	const ours: number[] = [];
	const plain: number[] = [];
	for (let i = 0; i < CALLS; i++) {
		ours.push(await time(() => viaToolbox(i)));
		plain.push(await time(() => viaDirect(i)));
	}
	await toolbox.close();
	tmp.cleanup();

	const o = stats(ours);
	const d = stats(plain);
	const overhead = o.p50 - d.p50;
	const met = overhead <= GOAL_OVERHEAD_P50_MS;
	console.log();
	line(`use_forge_tool (${CALLS} calls)`, `p50 ${ms(o.p50)}`, `p95 ${ms(o.p95)}`, `mean ${ms(o.mean)}`);
	line("direct call (same body)", `p50 ${ms(d.p50)}`, `p95 ${ms(d.p95)}`, `mean ${ms(d.mean)}`);
	line(
		"overhead (ours − direct)",
		`p50 ${ms(overhead)}`,
		`p95 ${ms(o.p95 - d.p95)}`,
		`${"".padEnd(14)}goal p50 ≤ ${GOAL_OVERHEAD_P50_MS} ms  ${mark(met)}`,
	);
	console.log();

	writeResult(
		"use-overhead",
		`use_forge_tool overhead (${CALLS} calls)`,
		[
			{ metric: "use p50", value: o.p50, unit: "ms" },
			{ metric: "use p95", value: o.p95, unit: "ms" },
			{ metric: "direct p50", value: d.p50, unit: "ms" },
			{ metric: "direct p95", value: d.p95, unit: "ms" },
			{ metric: "overhead p50", value: overhead, unit: "ms", goal: `≤ ${GOAL_OVERHEAD_P50_MS} ms`, met },
			{ metric: "overhead p95", value: o.p95 - d.p95, unit: "ms" },
		],
		{ calls: CALLS, warmup: WARMUP, ours: o, direct: d },
	);
}

await main();
