// A tool's tests, run in the runner real calls use: a candidate's before its promotion (against its own copy, so the
// live tool keeps running), or a live tool's on demand. Their time is bounded: a change waits on them (they run before
// it locks the toolbox, see candidate-runs.ts).
import { ForgeError } from "../contract/forge-error.ts";
import { type ToolMeta, tsFileOf } from "../contract/tool-files.ts";
import { judge, type TestVerdict } from "../contract/tool-tests.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import { sharedChecker } from "../run/bounded-checker.ts";
import { outputText, withConsole } from "../run/result.ts";
import type { RunHost, RunnableTool } from "../run/runner.ts";
import type { ToolboxContext } from "./context.ts";
import type { TestRunner } from "./forge-pipeline.ts";

/** All of a forge's tests together may take this many times PI_FORGE_TIMEOUT_MS. */
export const TESTS_BUDGET_FACTOR = 2;
/** The most a model's regular expression or schema may take to check, off pi's main thread. */
const CHECK_BOUND_MS = 2000;

/** Tests run with no one to ask: a capability that needs a grant is refused, as without a UI. */
const TEST_HOST: RunHost = { pi: {}, hasUI: false, notify: () => undefined };

/** How long checking a model's regular expression or schema may take off pi's main thread. */
export function checkBoundMs(config: { timeoutMs: number }): number {
	return Math.min(config.timeoutMs, CHECK_BOUND_MS);
}

export class TestCases {
	/** The host a tool's tests run with, when the surface gives one (so tests may call other tools); else TEST_HOST. */
	host: ((name: string) => RunHost) | undefined;
	private runs = 0;

	constructor(private readonly box: ToolboxContext) {}

	/** A candidate's tests, each in the runner real calls use, against its own copy (the live tool keeps running). */
	readonly candidate: TestRunner = (code, meta, signal) =>
		this.run(this.testCopy(meta.name, meta.hash, code), meta, signal);

	/**
	 * The tool the tests of `name` run as: a key of its own for each run, so the live tool's loaded module is untouched
	 * and two candidates of one name tested at once (forges in a row run their tests unlocked) never share a worker.
	 */
	testCopy(name: string, hash: string, code: CompiledCode): RunnableTool {
		const key = `${name}@tests#${++this.runs}`;
		return { name, key, hash, file: tsFileOf(name), path: this.box.store.tsPath(name), code };
	}

	/**
	 * A change waits on its tests (before it locks the toolbox), so their time is bounded: each case
	 * within PI_FORGE_TIMEOUT_MS (a longer timeoutMs of its own is capped to it), all of them within twice that, none
	 * once `signal` aborts.
	 */
	async run(tool: RunnableTool, meta: ToolMeta, signal?: AbortSignal): Promise<TestVerdict[]> {
		const { config, runner } = this.box;
		const verdicts: TestVerdict[] = [];
		const { timeoutMs } = config;
		const bound = checkBoundMs(config);
		const budget = timeoutMs * TESTS_BUDGET_FACTOR;
		const endsAt = Date.now() + budget;
		for (const [index, test] of (meta.tests ?? []).entries()) {
			const left = endsAt - Date.now();
			const stop = signal?.aborted
				? new ForgeError("aborted", "Not run: the forge was cancelled.")
				: left <= 0
					? new ForgeError(
							"timeout",
							`Not run: the tests of one forge may take ${budget} ms in all (twice PI_FORGE_TIMEOUT_MS).`,
						)
					: undefined;
			if (stop) {
				verdicts.push(judge(test, index, { ok: false, error: stop }));
				continue;
			}
			const args = await this.box.cache.validators.validateWithin(
				meta.name,
				meta.hash,
				meta.parameters,
				test.args,
				sharedChecker(),
				bound,
				signal,
			);
			const outcome = args.ok
				? await runner.run({
						tool,
						params: args.value,
						cwd: config.cwd,
						timeoutMs: Math.min(test.timeoutMs ?? timeoutMs, timeoutMs, left),
						signal,
						host: this.host?.(meta.name) ?? TEST_HOST,
						test: true,
					})
				: args;
			const judged = outcome.ok
				? {
						ok: true as const,
						text: outputText(withConsole(outcome.value.output, outcome.value.console)),
					}
				: { ok: false as const, error: outcome.error };
			const matched =
				test.matches !== undefined && judged.ok
					? await sharedChecker().matches(test.matches, judged.text, bound, signal)
					: undefined;
			verdicts.push(judge(test, index, judged, matched));
		}
		runner.forget(tool.key ?? tool.name);
		return verdicts;
	}
}
