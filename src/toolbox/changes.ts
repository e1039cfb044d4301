// Every change of the toolbox, one at a time through the write queue: forge, roll back, import, remove, and marking a
// tool verified. A change of a tool's code runs the candidate's code before it locks (see codeChange); failed forges
// are counted per name, and after a commit one step records it (history, registry, caches, health, listeners).
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import type { TakenNames } from "../contract/names.ts";
import { hashSource, parseMeta, serializeMeta } from "../contract/tool-files.ts";
import { entryFromMeta, type RegistryEntry, withCalls } from "../store/registry.ts";
import { type Adoption, adopt } from "./adopt.ts";
import { CandidateRuns } from "./candidate-runs.ts";
import { readOnlyError, type ToolboxContext } from "./context.ts";
import {
	type Forged,
	type ForgeRequest,
	type PreviousVersion,
	promoteSource,
	runForgePipeline,
	type TestRunner,
} from "./forge-pipeline.ts";
import { readImportedTool } from "./imported-tool.ts";
import { liveVersion } from "./live-version.ts";
import { NotRunBeforeLock } from "./lock-guard.ts";
import { backOffAdvice, keptChangingError, REPAIR_ATTEMPTS_BEFORE_ADVICE } from "./messages.ts";
import { nextVersion } from "./next-version.ts";
import type { Reconciler } from "./reconcile.ts";
import { NameTurns } from "./turns.ts";

/** How many times a change goes back to run its changed candidate unlocked before it gives up (keptChangingError). */
export const UNLOCKED_ROUNDS = 3;

/** One try at a change of a tool's code against the live version `previous`: a dry run, or the change itself. */
type Attempt = (previous: PreviousVersion | undefined, dryRun: boolean) => Promise<Result<Forged>>;

export class Changes {
	/** Failed forges of a name in a row: after a few, the error suggests going back to what worked. */
	private readonly failedForges = new Map<string, number>();
	/** Changes of one name join the write queue in the order they were asked for. */
	private readonly turns = new NameTurns();

	constructor(
		private readonly box: ToolboxContext,
		private readonly reconciler: Reconciler,
		private readonly testRunner: TestRunner,
		/** The template a forge renders the tool's file from. */
		private readonly template: () => string,
	) {}

	forge(
		request: ForgeRequest,
		takenNames: TakenNames,
		options: { signal?: AbortSignal } = {},
	): Promise<Result<Forged>> {
		const { box } = this;
		const name = typeof request.name === "string" ? request.name : undefined;
		const runs = this.candidateRuns();
		const attempt: Attempt = (previous, dryRun) =>
			runForgePipeline(request, {
				store: box.store,
				template: this.template(),
				takenNames,
				previous,
				previousTests: previous?.tests,
				preflight: runs.preflight,
				runTests: runs.runner,
				check: runs.check,
				stage: runs.stage,
				signal: options.signal,
				now: runs.now,
				dryRun,
				readsFile: box.runner.preflightReadsFile,
			});
		return this.codeChange(name, attempt, { event: "forged", takeIn: true }, runs);
	}

	/** Makes an earlier version current again (as a new version), after the same checks as a forge. */
	rollback(name: string, version: number): Promise<Result<Forged>> {
		const { box } = this;
		const runs = this.candidateRuns();
		// A stored version never changes: it is read before the lock, like the candidate's runs.
		const prepared = (async (): Promise<Result<Attempt>> => {
			const stored = await box.history.read(name, version);
			if (!stored) {
				const known = (await box.history.entries(name)).map((e) => `v${e.version}`);
				return fail(
					new ForgeError("not-found", `'${name}' has no stored version ${version}.`, {
						tool: name,
						notes: known.length ? [`Stored: ${[...new Set(known)].join(", ")}`] : [],
					}),
				);
			}
			const meta = parseMeta(stored.metaText, name);
			if (!meta.ok) return meta;
			return ok((previous, dryRun) => {
				const next = nextVersion(meta.value, {
					previous,
					hash: hashSource(stored.source),
					at: runs.now().toISOString(),
					createdAt: meta.value.createdAt,
				});
				return this.promote(next, stored.source, previous, runs, dryRun);
			});
		})();
		return this.codeChange(name, prepared, { event: "rolled-back", from: version }, runs);
	}

	/** Brings a tool from another toolbox or an exported package: same checks as a forge; its version continues ours. */
	importTool(source: string, metaText: string, takenNames: TakenNames): Promise<Result<Forged>> {
		const imported = readImportedTool(source, metaText, takenNames);
		if (!imported.ok) return Promise.resolve(imported);
		const { name, meta, hash } = imported.value;
		const runs = this.candidateRuns();
		const attempt: Attempt = (previous, dryRun) => {
			const next = nextVersion(meta, { previous, hash, at: runs.now().toISOString() });
			return this.promote(next, source, previous, runs, dryRun);
		};
		return this.codeChange(name, attempt, { event: "imported" }, runs);
	}

	/**
	 * A change of a tool's code (forge, roll-back, import). Its attempt (once `prepared`, or its refusal) runs first as a
	 * dry run with the toolbox unlocked — the candidate's preflight load and tests, remembered in `runs` — then, in the
	 * name's turn, under the lock against the live version as it is by then, reusing what the dry run found. A candidate
	 * that differs by then (a forge that keeps the tests of a version changed meanwhile), or a hand edit changed again
	 * since its precheck, lets the lock go, runs unlocked, and tries again; past UNLOCKED_ROUNDS the change gives up with
	 * keptChangingError. So the lock is never held while the candidate's code runs, and the changes of a name still
	 * land in the order they were asked for.
	 */
	private codeChange(
		name: string | undefined,
		prepared: Attempt | Promise<Result<Attempt>>,
		how: Adoption & { takeIn?: boolean },
		runs: CandidateRuns,
	): Promise<Result<Forged>> {
		const { box } = this;
		if (box.readOnly) return Promise.reject(readOnlyError());
		const ready = Promise.resolve(typeof prepared === "function" ? ok(prepared) : prepared);
		const dryRun = async (attempt: Attempt) => {
			// A hand edit not taken in yet is loaded now, so that taking it in under the lock loads nothing.
			if (how.takeIn && name && box.registry.get(name)) await this.reconciler.precheck(name);
			await attempt(name ? await liveVersion(box, name) : undefined, true);
		};
		const unlocked = ready.then((attempt) => (attempt.ok ? dryRun(attempt.value) : undefined));
		const changed = this.turns.inTurn(name, unlocked, async () => {
			const attempt = await ready;
			if (!attempt.ok) return attempt;
			for (let round = 1; ; round++) {
				try {
					return await box.changeThenSettle((later) => this.underLock(name, attempt.value, how, later));
				} catch (error) {
					if (!(error instanceof NotRunBeforeLock)) throw error;
				}
				// A live version that keeps changing under a change's feet: past a few rounds it gives up, unlocked.
				if (round > UNLOCKED_ROUNDS) return this.keptChanging(name, how.event, round);
				await dryRun(attempt.value).catch(() => undefined);
			}
		});
		return changed.finally(() => runs.dispose());
	}

	/**
	 * A code change's locked half: the attempt against the live version, adopted when it succeeds. What is left to write
	 * once it is adopted goes to `later`, which keeps the lock for it.
	 */
	private async underLock(
		name: string | undefined,
		attempt: Attempt,
		how: Adoption & { takeIn?: boolean },
		later: (rest: Promise<unknown>) => void,
	) {
		const { box } = this;
		// A hand edit the watcher has not taken in yet becomes a version of its own first (history, the .bak's label).
		if (how.takeIn && name && box.registry.get(name)) await this.reconciler.takeIn(name);
		const previous = name ? await liveVersion(box, name) : undefined;
		const result = await this.guard(name, () => attempt(previous, false));
		if (result.ok) later(adopt(box, result.value, how));
		return result;
	}

	/** The change gave up: what it would have replaced kept changing. Not a failed attempt at the tool's code. */
	private keptChanging(name: string | undefined, event: Adoption["event"], rounds: number): Result<Forged> {
		const error = keptChangingError(name ?? "?", event, rounds);
		this.box.emit({ type: "forge-failed", name, error });
		return fail(error);
	}

	/** Removes a tool: its files go (its history stays), and it is no longer offered. */
	remove(name: string): Promise<Result<RegistryEntry>> {
		const { box } = this;
		return box.change(async () => {
			const entry = box.registry.get(name);
			if (!entry) return fail(box.notFound(name));
			const { source, metaText } = await box.store.readTool(name);
			if (source !== undefined && metaText !== undefined)
				await box.history
					.record(name, "removed", entry.version, source, metaText, box.now())
					.catch(() => undefined);
			try {
				await box.store.remove(name);
			} catch (error) {
				// A committed removal left half done is finished at the next start; say so, and re-read what is there now.
				void this.reconciler.reload(name).catch(() => undefined);
				return fail(
					new ForgeError(
						"store",
						`Removing '${name}' was interrupted: ${(error as Error).message}. It is completed at the next start.`,
						{ tool: name },
						{ cause: error },
					),
				);
			}
			box.registry.delete(name);
			box.health.delete(name);
			box.cache.changed(name, undefined);
			box.emit({ type: "removed", name });
			return ok(entry);
		});
	}

	/** Records that the tests passed on this source (after a hand edit, say). */
	markVerified(name: string, hash: string): Promise<void> {
		const { box } = this;
		return box.change(async () => {
			const { meta, source } = await box.store.readTool(name);
			if (!meta?.ok || meta.value.hash !== hash) return;
			const verified = { ...meta.value, verifiedHash: hash };
			await box.store.writeMeta(name, serializeMeta(verified));
			const entry = withCalls(entryFromMeta(verified, await box.store.stampsOf(name)), source);
			box.registry.set(entry);
			box.cache.index(name, entry);
		});
	}

	/** A roll-back's or an import's second half: the same checks and staging as a forge's, with `runs` remembered. */
	private promote(
		next: Forged["meta"],
		source: string,
		previous: PreviousVersion | undefined,
		runs: CandidateRuns,
		dryRun: boolean,
	) {
		return promoteSource(next, source, {
			store: this.box.store,
			preflight: runs.preflight,
			check: runs.check,
			stage: runs.stage,
			previous,
			runTests: runs.runner,
			dryRun,
			readsFile: this.box.runner.preflightReadsFile,
		});
	}

	/** The candidate's runs of one change: each runs once, whether in the dry run or under the lock. */
	private candidateRuns(): CandidateRuns {
		return new CandidateRuns(this.box.runner.preflight, this.testRunner, this.box.store, this.box.now);
	}

	/** Runs a change, turning a store failure into an error; counts failed attempts and adds back-off advice. */
	private async guard(name: string | undefined, work: () => Promise<Result<Forged>>): Promise<Result<Forged>> {
		const { box } = this;
		let result: Result<Forged>;
		try {
			result = await work();
		} catch (error) {
			if (error instanceof NotRunBeforeLock) throw error;
			result = fail(
				new ForgeError(
					"store",
					`The toolbox could not be written: ${(error as Error).message}`,
					{ tool: name },
					{ cause: error },
				),
			);
			// The change may have been committed before the failure (and then finished): read the files again.
			if (name) void this.reconciler.reload(name).catch(() => undefined);
		}
		if (name && result.ok) this.failedForges.delete(name);
		if (!result.ok) {
			// A runner that could not start is not a failed attempt at the tool: it neither counts nor earns back-off advice.
			const attempt = result.error.phase !== "runner";
			const failures = name && attempt ? (this.failedForges.get(name) ?? 0) + 1 : 0;
			if (name && attempt) this.failedForges.set(name, failures);
			if (failures >= REPAIR_ATTEMPTS_BEFORE_ADVICE) {
				const advice = backOffAdvice(name!, failures, box.registry.get(name!), await box.history.entries(name!));
				result = fail(result.error.with({ notes: [...(result.error.details.notes ?? []), advice] }));
			}
			box.emit({ type: "forge-failed", name, error: result.error });
		}
		return result;
	}
}
