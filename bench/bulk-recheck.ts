// Bulk re-check: 1,000 tools changed on disk while pi was closed, taken in at pi's next start (the toolbox opened as pi
// opens it: the registry at once, the files compared right after, the isolated runner warming up meanwhile).
//
// Scenarios, each applied to every tool of a generated toolbox (test/helpers/big-toolbox.ts), BENCH_REPS times:
//   pull   — a `git pull`: each pair replaced by a version forged elsewhere (.ts and a .json whose hash matches it).
//   edited — each .ts edited by hand (a script over the toolbox): every tool needs the full check and a preflight load.
//   known  — the .ts files as edited before, the .json files as the forge left them (a checkout of the .json alone):
//            hand edits again, but of sources the compile cache saw pass, so no preflight is needed.
// Figures per scenario: the whole re-check (open → every tool taken in), the first call of a changed tool and the
// first listing made right after the open (what the first turn sees meanwhile).
//
// Baseline, measured in the same run on BENCH_BASELINE of the same edited tools: the way before, one tool after the
// other, each checked with its load in a fresh worker (verifyToolFile with the runner's per-forge preflight).
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { hashSource } from "../src/contract/tool-files.ts";
import { verifyToolFile } from "../src/forge/check-source.ts";
import { openToolbox } from "../src/toolbox/open-toolbox.ts";
import { generatedTools, generateToolbox } from "../test/helpers/big-toolbox.ts";
import { benchEnv, benchHost, type Metric, mark, stats, table, tempDir, writeResult } from "./lib.ts";

const TOOLS = Number(process.env.BENCH_TOOLS ?? 1_000);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const BASELINE = Number(process.env.BENCH_BASELINE ?? 100);
const GOAL_MS = 3_000;
const SEED = 11;

type Scenario = "pull" | "edited" | "known";

interface Run {
	recheckMs: number;
	firstCallMs: number;
	firstListMs: number;
	listComplete: boolean;
	broken: number;
}

const tsFiles = (dir: string) => readdirSync(dir).filter((f) => /^forge-.+\.ts$/.test(f));

/** Changes every tool of `dir` as the scenario says; `tag` makes each repetition's content new. */
function apply(dir: string, scenario: Scenario, tag: string, forgedMeta: Map<string, string>): void {
	for (const file of tsFiles(dir)) {
		const tsPath = join(dir, file);
		const jsonPath = tsPath.replace(/\.ts$/, ".json");
		if (scenario === "known") {
			writeFileSync(jsonPath, forgedMeta.get(file)!);
			continue;
		}
		const source = `${readFileSync(tsPath, "utf8")}\n// ${tag}\n`;
		writeFileSync(tsPath, source);
		if (scenario === "pull") {
			const meta = JSON.parse(readFileSync(jsonPath, "utf8")) as {
				hash: string;
				version: number;
				updatedAt: string;
			};
			writeFileSync(
				jsonPath,
				`${JSON.stringify({ ...meta, hash: hashSource(source), version: meta.version + 1, updatedAt: new Date().toISOString() }, null, "\t")}\n`,
			);
		}
	}
}

async function measure(
	cwd: string,
	agentDir: string,
	probe: { name: string; args: Record<string, unknown> },
): Promise<Run> {
	const env = { ...benchEnv(), PI_CODING_AGENT_DIR: agentDir };
	const started = performance.now();
	const opened = await openToolbox(loadConfig(cwd, env), { verify: "background" });
	opened.runner.warm();
	const { toolbox } = opened;
	const since = () => performance.now() - started;
	let firstCallMs = Number.NaN;
	let firstListMs = Number.NaN;
	let listComplete = false;
	const call = toolbox.use(probe.name, probe.args, { host: benchHost }).then((used) => {
		firstCallMs = since();
		if (!used.ok) throw new Error(`${probe.name}: ${used.error.message}`);
	});
	const list = toolbox.settle().then((settled) => {
		toolbox.list(undefined, 20);
		firstListMs = since();
		listComplete = settled.done;
	});
	await toolbox.verified();
	const recheckMs = since();
	await Promise.all([call, list]);
	const entries = toolbox.entries();
	const run = {
		recheckMs,
		firstCallMs,
		firstListMs,
		listComplete,
		broken: entries.filter((e) => e.status === "broken").length,
	};
	await toolbox.close();
	return run;
}

async function baseline(cwd: string, agentDir: string): Promise<number> {
	const opened = await openToolbox(loadConfig(cwd, { ...benchEnv(), PI_CODING_AGENT_DIR: agentDir }), {
		readOnly: true,
	});
	const { toolbox, runner } = opened;
	const dir = toolbox.config.toolboxDir;
	const files = tsFiles(dir).slice(0, BASELINE);
	// The host started and one load done first, as in a running pi.
	await verifyToolFile(
		files[0].slice(6, -3),
		join(dir, files[0]),
		readFileSync(join(dir, files[0]), "utf8"),
		runner.preflight,
	);
	const started = performance.now();
	for (const file of files) {
		const checked = await verifyToolFile(
			file.slice(6, -3),
			join(dir, file),
			readFileSync(join(dir, file), "utf8"),
			runner.preflight,
		);
		if (!checked.ok) throw new Error(`${file}: ${checked.error.message}`);
	}
	const perTool = (performance.now() - started) / files.length;
	await runner.dispose();
	return perTool;
}

async function main(): Promise<void> {
	const tmp = tempDir("bulk-recheck");
	try {
		const agentDir = join(tmp.path, "agent");
		mkdirSync(agentDir, { recursive: true });
		const pristine = join(tmp.path, "pristine");
		const pristineDir = join(pristine, ".pi", "forge", "extensions");
		mkdirSync(pristineDir, { recursive: true });
		await generateToolbox(pristineDir, TOOLS, { seed: SEED });
		// One start as pi makes it, so that the toolbox has what a used one has (history, .gitignore, a sound registry).
		await (await openToolbox(loadConfig(pristine, { ...benchEnv(), PI_CODING_AGENT_DIR: agentDir }))).toolbox.close();
		const last = generatedTools(TOOLS, SEED)
			.sort((a, b) => (a.name < b.name ? -1 : 1))
			.at(-1)!;
		const probe = { name: last.name, args: last.sampleArgs };
		console.log(
			`${TOOLS.toLocaleString("en-US")} generated tools; ${REPS} repetitions per scenario; the first call is of '${probe.name}'\n`,
		);

		const runs: Record<Scenario, Run[]> = { pull: [], edited: [], known: [] };
		for (let rep = 0; rep < REPS; rep++) {
			const cwd = join(tmp.path, `rep-${rep}`);
			rmSync(cwd, { recursive: true, force: true });
			cpSync(pristine, cwd, { recursive: true });
			const dir = join(cwd, ".pi", "forge", "extensions");
			const forgedMeta = new Map(
				tsFiles(dir).map((f) => [f, readFileSync(join(dir, f.replace(/\.ts$/, ".json")), "utf8")]),
			);
			for (const scenario of ["pull", "edited", "known"] as const) {
				// "known" follows "edited": its sources are the ones just re-checked, with the forge's metadata back.
				apply(dir, scenario, `${scenario} ${rep}`, forgedMeta);
				const run = await measure(cwd, agentDir, probe);
				runs[scenario].push(run);
				console.log(
					`  rep ${rep + 1} ${scenario.padEnd(6)} re-check ${run.recheckMs.toFixed(0)} ms, first call ${run.firstCallMs.toFixed(0)} ms, first list ${run.firstListMs.toFixed(0)} ms${run.listComplete ? "" : " (before all were in)"}, broken ${run.broken}`,
				);
			}
		}
		const baseCwd = join(tmp.path, "rep-0");
		const basePerTool = await baseline(baseCwd, agentDir);
		const baseProjected = basePerTool * TOOLS;

		const metrics: Metric[] = [];
		const rows = (["pull", "edited", "known"] as const).map((scenario) => {
			const recheck = stats(runs[scenario].map((r) => r.recheckMs)).p50;
			const call = stats(runs[scenario].map((r) => r.firstCallMs)).p50;
			const list = stats(runs[scenario].map((r) => r.firstListMs)).p50;
			const ratio = recheck / baseProjected;
			metrics.push(
				{
					metric: `${scenario}: ${TOOLS} tools re-checked (p50)`,
					value: recheck,
					unit: "ms",
					goal: `≤ ${GOAL_MS} ms`,
					met: recheck <= GOAL_MS,
				},
				{ metric: `${scenario}: ratio to one at a time, fresh worker each`, value: ratio, unit: "×" },
				{ metric: `${scenario}: first call of a changed tool (p50)`, value: call, unit: "ms" },
				{ metric: `${scenario}: first listing (p50)`, value: list, unit: "ms" },
			);
			return [
				scenario,
				`${recheck.toFixed(0)} ms ${mark(recheck <= GOAL_MS)}`,
				`${ratio.toFixed(3)}× (${(baseProjected / recheck).toFixed(0)}× faster)`,
				`${call.toFixed(0)} ms`,
				`${list.toFixed(0)} ms`,
				String(Math.max(...runs[scenario].map((r) => r.broken))),
			];
		});
		console.log(
			`\nbaseline: one at a time, each load in a fresh worker: ${basePerTool.toFixed(1)} ms per tool (${BASELINE} tools) → ${(baseProjected / 1000).toFixed(1)} s for ${TOOLS.toLocaleString("en-US")}\n`,
		);
		console.log(
			table(
				[
					"scenario",
					`re-check of ${TOOLS} (goal ≤ ${GOAL_MS} ms)`,
					"ratio to baseline",
					"first call",
					"first listing",
					"broken",
				],
				rows,
			),
		);
		metrics.push({
			metric: "baseline: one tool at a time, fresh worker each (per tool)",
			value: basePerTool,
			unit: "ms",
		});
		writeResult("bulk-recheck", `bulk re-check: ${TOOLS} tools changed on disk, taken in at pi's start`, metrics, {
			runs,
			basePerTool,
			reps: REPS,
			baselineTools: BASELINE,
		});
	} finally {
		tmp.cleanup();
	}
}

await main();
