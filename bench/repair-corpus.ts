// The repair-loop corpus through the Toolbox (as pi puts it together: openToolbox, isolated runner): for each realistic
// forging mistake, the broken forge must fail in the right phase and point at the right logic line, and the repaired
// forge must go live. Figures: caught, correctly located, size of the error text the model reads, repaired.
// BENCH_VERBOSE=1 prints every error text; BENCH_ONLY=id[,id…] runs only those fixtures.
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { MAX_ERROR_CHARS } from "../src/contract/error-format.ts";
import type { ForgeError } from "../src/contract/forge-error.ts";
import { toPiError } from "../src/pi/output.ts";
import { REPAIR_CASES, type RepairCase } from "../test/fixtures/repair-corpus/index.ts";
import { isolatedToolbox, line, type Metric, mark, table, tempDir, writeResult } from "./lib.ts";

const VERBOSE = process.env.BENCH_VERBOSE === "1";
const ONLY = process.env.BENCH_ONLY?.split(",")
	.map((id) => id.trim())
	.filter(Boolean);

/** Names pi itself holds (as ForgeSession.takenNames() reports them). */
const TAKEN = new Map(
	["read", "bash", "edit", "write", "grep", "find", "ls"].map((name) => [name, `pi's built-in tool '${name}'`]),
);

export interface CaseOutcome {
	id: string;
	expectedPhase: string;
	phase: string | undefined;
	caught: boolean;
	/** Where the mistake is (the fixture's logic lines, or where it should be when Agent Forge is known to mislocate it). */
	shouldBe?: [number, number];
	/** The logic line the error names, if any. */
	reportedLine?: number;
	located?: boolean;
	errorChars: number;
	repaired: boolean;
	repairError?: string;
	ms: number;
}

/** "(line N of the logic)" in an error text. */
export function reportedLogicLine(text: string): number | undefined {
	const match = /\(line (\d+) of the logic\)/.exec(text);
	return match ? Number(match[1]) : undefined;
}

/** Where the mistake really is: the known right place for a mislocated fixture, else the fixture's expectation. */
export function trueLines(c: RepairCase): [number, number] | undefined {
	return c.mislocated?.shouldBe ?? c.expect.logicLines;
}

const errorText = (error: ForgeError, cwd: string) => toPiError(error, loadConfig(cwd).config).message;

async function main(): Promise<void> {
	const tmp = tempDir("repair-corpus");
	const cases = ONLY ? REPAIR_CASES.filter((c) => ONLY.includes(c.id)) : REPAIR_CASES;
	const cwd = join(tmp.path, "project");
	const { toolbox } = await isolatedToolbox(cwd, join(tmp.path, "agent"));
	const outcomes: CaseOutcome[] = [];
	try {
		for (const c of cases) {
			const started = performance.now();
			const broken = await toolbox.forge(c.broken, TAKEN);
			const text = broken.ok ? "" : errorText(broken.error, cwd);
			const phase = broken.ok ? undefined : broken.error.phase;
			const shouldBe = trueLines(c);
			const reportedLine = reportedLogicLine(text);
			const repaired = await toolbox.forge(c.repaired, TAKEN);
			const outcome: CaseOutcome = {
				id: c.id,
				expectedPhase: c.expect.phase,
				phase,
				caught: phase === c.expect.phase,
				...(shouldBe
					? {
							shouldBe,
							reportedLine,
							located: reportedLine !== undefined && reportedLine >= shouldBe[0] && reportedLine <= shouldBe[1],
						}
					: {}),
				errorChars: text.length,
				repaired: repaired.ok,
				...(repaired.ok ? {} : { repairError: errorText(repaired.error, cwd) }),
				ms: performance.now() - started,
			};
			outcomes.push(outcome);
			if (VERBOSE) {
				console.log(`\n----- ${c.id}: ${c.mistake}\n${broken.ok ? "(the broken forge SUCCEEDED)" : text}`);
				if (!repaired.ok) console.log(`----- ${c.id}: repaired forge FAILED\n${outcome.repairError}`);
			}
		}
	} finally {
		await toolbox.close(); // disposes the runner too
		tmp.cleanup();
	}
	report(cases, outcomes);
}

function report(cases: RepairCase[], outcomes: CaseOutcome[]): void {
	const total = outcomes.length;
	const caught = outcomes.filter((o) => o.caught).length;
	const locatable = outcomes.filter((o) => o.shouldBe);
	const located = locatable.filter((o) => o.located).length;
	const failed = outcomes.filter((o) => o.phase !== undefined);
	const sizes = failed.map((o) => o.errorChars);
	const meanChars = sizes.reduce((a, b) => a + b, 0) / (sizes.length || 1);
	const maxChars = Math.max(0, ...sizes);
	const repaired = outcomes.filter((o) => o.repaired).length;

	console.log();
	console.log(
		table(
			["fixture", "phase", "caught", "lines", "reported", "located", "chars", "repaired"],
			outcomes.map((o) => [
				o.id,
				o.phase === o.expectedPhase ? (o.phase ?? "") : `${o.phase ?? "(none)"} ≠ ${o.expectedPhase}`,
				mark(o.caught),
				o.shouldBe ? `${o.shouldBe[0]}-${o.shouldBe[1]}` : "",
				o.shouldBe ? String(o.reportedLine ?? "-") : "",
				o.shouldBe ? mark(!!o.located) : "",
				String(o.errorChars),
				mark(o.repaired),
			]),
		),
	);
	console.log();
	console.log(`repair corpus (${total} fixtures)`);
	line("  caught (right phase)", `${caught}/${total}`);
	line("  correctly located", `${located}/${locatable.length}`);
	line("  error text size", `mean ${meanChars.toFixed(0)} chars`, `max ${maxChars} chars`);
	line("  repaired ok", `${repaired}/${total}`);
	const missed = outcomes
		.filter((o) => !o.caught)
		.map((o) => `${o.id} (${o.phase ?? "no error"}, expected ${o.expectedPhase})`);
	const mislocated = locatable
		.filter((o) => !o.located)
		.map(
			(o) =>
				`${o.id} (reported ${o.reportedLine ?? "no logic line"}, mistake at ${o.shouldBe![0]}-${o.shouldBe![1]})`,
		);
	const notRepaired = outcomes.filter((o) => !o.repaired).map((o) => o.id);
	if (missed.length) console.log(`  miscaught: ${missed.join(", ")}`);
	if (mislocated.length) console.log(`  mislocated: ${mislocated.join(", ")}`);
	if (notRepaired.length) console.log(`  repair failed: ${notRepaired.join(", ")}`);
	console.log();

	if (cases.length !== REPAIR_CASES.length) return; // a partial run (BENCH_ONLY) writes no result
	// Counts are in fixtures (each one tool, unit "tools"); error sizes in characters, a unit run-all prints as is.
	const chars = "chars" as Metric["unit"];
	writeResult(
		"repair-corpus",
		`repair-loop corpus (${total} fixtures)`,
		[
			{
				metric: "caught (right phase)",
				value: caught,
				unit: "tools",
				goal: `${total}/${total}`,
				met: caught === total,
			},
			{
				metric: "correctly located",
				value: located,
				unit: "tools",
				goal: `${locatable.length}/${locatable.length}`,
				met: located === locatable.length,
			},
			{
				metric: "error text mean",
				value: meanChars,
				unit: chars,
				goal: `≤ ${MAX_ERROR_CHARS}`,
				met: meanChars <= MAX_ERROR_CHARS,
			},
			{
				metric: "error text max",
				value: maxChars,
				unit: chars,
				goal: `≤ ${MAX_ERROR_CHARS}`,
				met: maxChars <= MAX_ERROR_CHARS,
			},
			{ metric: "repaired ok", value: repaired, unit: "tools", goal: `${total}/${total}`, met: repaired === total },
		],
		{
			total,
			locatable: locatable.length,
			errorChars: { mean: meanChars, max: maxChars },
			miscaught: missed,
			mislocated,
			repairFailed: notRepaired,
			outcomes,
		},
	);
}

await main();
