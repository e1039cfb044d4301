// The tool code a change runs — a candidate's preflight load and its tests — run once, before the toolbox is locked:
// the change then runs its pipeline under the lock with these remembered results, so no forged code runs while the
// lock is held (other forges, re-checks and calls a tool makes of other tools go on meanwhile). A candidate that
// differs under the lock (its previous version changed in between) runs there, as it always did.
import type { Result } from "../contract/forge-error.ts";
import type { ModuleShape, PreflightLoader } from "../contract/module-shape.ts";
import type { TestVerdict } from "../contract/tool-tests.ts";
import { checkSource } from "../forge/check-source.ts";
import type { TestRunner } from "./forge-pipeline.ts";

export class CandidateRuns {
	private readonly checks = new Map<string, ReturnType<typeof checkSource>>();
	private readonly preflights = new Map<string, Promise<Result<ModuleShape>>>();
	private readonly tests = new Map<string, Promise<TestVerdict[]>>();

	constructor(
		private readonly load: PreflightLoader,
		private readonly runTests: TestRunner,
	) {}

	/** The runner's preflight, once per tool and compiled code (a runner whose preflight reads the file gets no run before the lock). */
	readonly preflight: PreflightLoader = (path, code, tool, file, map) =>
		remember(this.preflights, `${tool}\0${code}`, () => this.load(path, code, tool, file, map));

	/** The source checks (transpile, imports), once per source. */
	readonly check: typeof checkSource = (source, file) =>
		remember(this.checks, `${file}\0${source}`, () => checkSource(source, file));

	/** The candidate's tests, once per compiled code, tests and parameters. */
	readonly runner: TestRunner = (code, meta, signal) =>
		remember(this.tests, `${code.code}\0${JSON.stringify([meta.tests, meta.parameters])}`, () =>
			this.runTests(code, meta, signal),
		);
}

function remember<T>(memo: Map<string, Promise<T>>, key: string, run: () => Promise<T>): Promise<T> {
	let pending = memo.get(key);
	if (!pending) {
		pending = run();
		memo.set(key, pending);
	}
	return pending;
}
