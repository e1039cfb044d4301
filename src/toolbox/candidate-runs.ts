// The tool code a change of a tool's code (a forge, a roll-back, an import) runs — a candidate's preflight load and its
// tests — run once, before the toolbox is locked: the change then runs under the lock with these remembered results,
// so no forged code runs while the lock is held (other changes, re-checks, other processes and calls a tool makes of
// other tools go on meanwhile). Asked for by a holder of the lock (lock-guard.ts), a run that was not made before is
// refused: a candidate that differs by then (a forge that keeps the tests of a previous version changed in between)
// lets the lock go and runs unlocked first.
import type { Result } from "../contract/forge-error.ts";
import type { ModuleShape, PreflightLoader } from "../contract/module-shape.ts";
import type { TestVerdict } from "../contract/tool-tests.ts";
import { checkSource } from "../forge/check-source.ts";
import type { StagedTool, ToolboxStore } from "../store/toolbox-store.ts";
import type { TestRunner } from "./forge-pipeline.ts";
import { holdsLock, NotRunBeforeLock } from "./lock-guard.ts";

export class CandidateRuns {
	private readonly checks = new Map<string, ReturnType<typeof checkSource>>();
	private readonly preflights = new Map<string, Promise<Result<ModuleShape>>>();
	private readonly tests = new Map<string, Promise<TestVerdict[]>>();
	/** Pairs the dry run staged, by tool, source and metadata: `used` once the change under the lock took one. */
	private readonly stagings = new Map<string, { staged: Promise<StagedTool>; used: boolean }>();
	/** One time for the change, in the dry run and under the lock alike, so both make the same metadata. */
	private readonly at: Date;

	constructor(
		private readonly load: PreflightLoader,
		private readonly runTests: TestRunner,
		private readonly store: ToolboxStore,
		now: () => Date,
	) {
		this.at = now();
	}

	readonly now = (): Date => this.at;

	/**
	 * The candidate's pair on disk: written now in the dry run (`early`), and under the lock the one written then if
	 * it is the same pair and still whole, else a fresh one.
	 */
	readonly stage = async (tool: string, source: string, metaText: string, early = false): Promise<StagedTool> => {
		const key = `${tool}\0${source}\0${metaText}`;
		if (early) {
			const staged = this.store.stage(tool, source, metaText);
			staged.catch(() => undefined); // a failed early staging only means staging again under the lock
			this.stagings.set(key, { staged, used: false });
			return staged;
		}
		const earlier = this.stagings.get(key);
		if (earlier && !earlier.used) {
			earlier.used = true;
			const staged = await earlier.staged.catch(() => undefined);
			if (staged && (await this.store.intact(staged))) return staged;
		}
		return this.store.stage(tool, source, metaText);
	};

	/** Discards the pairs the dry run staged that were not promoted. */
	async dispose(): Promise<void> {
		const unused = [...this.stagings.values()].filter((staging) => !staging.used);
		this.stagings.clear();
		await Promise.all(
			unused.map(({ staged }) => staged.then((pair) => this.store.discard(pair)).catch(() => undefined)),
		);
	}

	/** The runner's preflight, once per tool and compiled code. */
	readonly preflight: PreflightLoader = (path, code, tool, file, map) =>
		this.remember(this.preflights, `${tool}\0${code}`, tool, () => this.load(path, code, tool, file, map));

	/** The source checks (transpile, imports), once per source. */
	readonly check: typeof checkSource = (source, file) => {
		const key = `${file}\0${source}`;
		const checked = this.checks.get(key) ?? checkSource(source, file);
		this.checks.set(key, checked);
		return checked;
	};

	/** The candidate's tests, once per compiled code, tests and parameters. */
	readonly runner: TestRunner = (code, meta, signal) =>
		this.remember(this.tests, `${code.code}\0${JSON.stringify([meta.tests, meta.parameters])}`, meta.name, () =>
			this.runTests(code, meta, signal),
		);

	private remember<T>(memo: Map<string, Promise<T>>, key: string, tool: string, run: () => Promise<T>): Promise<T> {
		let pending = memo.get(key);
		if (!pending) {
			if (holdsLock()) return Promise.reject(new NotRunBeforeLock(tool));
			pending = run();
			memo.set(key, pending);
		}
		return pending;
	}
}
