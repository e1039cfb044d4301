// Runs every benchmark in its own child process (same node flags, so no warm-up leaks from one into another),
// then prints a summary table from bench/results/<name>.json.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_DIR, type BenchResult, RESULTS_DIR, table } from "./lib.ts";

const BENCHES = [
	"forge-latency",
	"forge-breakdown",
	"use-overhead",
	"isolated-overhead",
	"toolbox-scale",
	"bulk-recheck",
	"repair-corpus",
	"scale",
];

const failed: string[] = [];
for (const bench of BENCHES) {
	console.log(`\n=== ${bench} ${"=".repeat(60 - bench.length)}`);
	const child = spawnSync(process.execPath, [...process.execArgv, join(BENCH_DIR, `${bench}.ts`)], {
		stdio: "inherit",
		env: process.env,
	});
	if (child.status !== 0) failed.push(`${bench} (exit ${child.status ?? child.signal})`);
}

const rows: string[][] = [];
for (const bench of BENCHES) {
	let result: BenchResult;
	try {
		result = JSON.parse(readFileSync(join(RESULTS_DIR, `${bench}.json`), "utf8")) as BenchResult;
	} catch {
		rows.push([bench, "(no result)", "", "", ""]);
		continue;
	}
	for (const m of result.metrics) {
		const value =
			m.unit === "ms"
				? `${m.value.toFixed(m.value < 0.1 ? 3 : 2)} ms`
				: m.unit === "/s"
					? `${m.value.toFixed(1)} /s`
					: m.unit === "tools"
						? `${m.value} tools`
						: m.unit === "×"
							? `${m.value.toFixed(2)}×`
							: `${Math.round(m.value)} ${m.unit}`;
		rows.push([result.bench, m.metric, value, m.goal ?? "", m.met === undefined ? "" : m.met ? "✓" : "✗"]);
	}
}
console.log(`\n=== summary ${"=".repeat(56)}\n`);
console.log(table(["bench", "metric", "value", "goal", "met"], rows));
if (failed.length) console.log(`\nnot run to completion: ${failed.join(", ")}`);
