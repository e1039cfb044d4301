// Every change of the toolbox, one at a time through the write queue: forge, roll back, import, remove, and marking a
// tool verified; failed forges are counted per name, and after a commit one step records it (history, registry,
// caches, health, listeners).
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { type TakenNames, validateName } from "../contract/names.ts";
import { hashSource, parseMeta, serializeMeta, tsFileOf } from "../contract/tool-files.ts";
import { findSecrets, secretRefusal } from "../security/secrets.ts";
import { entryFromMeta, type RegistryEntry, withCalls } from "../store/registry.ts";
import { CandidateRuns } from "./candidate-runs.ts";
import type { ToolboxContext } from "./context.ts";
import {
	type Forged,
	type ForgeRequest,
	type PreviousVersion,
	promoteSource,
	runForgePipeline,
	type TestRunner,
} from "./forge-pipeline.ts";
import { backOffAdvice, REPAIR_ATTEMPTS_BEFORE_ADVICE } from "./messages.ts";
import { nextVersion } from "./next-version.ts";
import type { Reconciler } from "./reconcile.ts";

export class Changes {
	/** Failed forges of a name in a row: after a few, the error suggests going back to what worked. */
	private readonly failedForges = new Map<string, number>();
	/** Per name, where the last forge of it joins the write queue: forges of a name join it in the order they were made. */
	private readonly turns = new Map<string | undefined, Promise<unknown>>();

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
		const runs = new CandidateRuns(box.runner.preflight, this.testRunner);
		const pipeline = (previous: PreviousVersion | undefined, dryRun: boolean) =>
			runForgePipeline(request, {
				store: box.store,
				template: this.template(),
				takenNames,
				previous,
				previousTests: previous?.tests,
				preflight: runs.preflight,
				runTests: runs.runner,
				check: runs.check,
				signal: options.signal,
				now: box.now,
				dryRun,
			});
		// The candidate's code runs first, with the toolbox unlocked; under the lock the pipeline reuses what it did. (Not
		// for a runner whose preflight loads the staged file: nothing is staged before the lock.)
		const unlocked = box.runner.preflightReadsFile
			? Promise.resolve()
			: (async () => pipeline(name ? await this.previousVersion(name) : undefined, true))();
		return this.inTurn(name, unlocked, () =>
			box.change(async () => {
				// A hand edit the watcher has not taken in yet becomes a version of its own first (history, the .bak's label).
				if (name && box.registry.get(name)) await this.reconciler.takeIn(name);
				const previous = name ? await this.previousVersion(name) : undefined;
				const result = await this.guard(name, () => pipeline(previous, false));
				if (result.ok) await this.adopt(result.value, "forged");
				return result;
			}),
		);
	}

	/**
	 * Joins the write queue once `first` (the unlocked run) has ended and every forge of the same name made before this
	 * one has joined it: a forge's lock is not held while its candidate's code runs, and the forges of a name still change
	 * the toolbox in call order (forges of other names do not wait for each other's tests).
	 */
	private inTurn<T>(name: string | undefined, first: Promise<unknown>, join: () => Promise<T>): Promise<T> {
		const joined = (this.turns.get(name) ?? Promise.resolve()).then(async () => {
			await first.catch(() => undefined);
			return { queued: join() };
		});
		const turn = joined.catch(() => undefined);
		this.turns.set(name, turn);
		void turn.then(() => {
			if (this.turns.get(name) === turn) this.turns.delete(name);
		});
		return joined.then(({ queued }) => queued);
	}

	/** Makes an earlier version current again (as a new version), after the same checks as a forge. */
	rollback(name: string, version: number): Promise<Result<Forged>> {
		const { box } = this;
		return box.change(async () => {
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
			const previous = await this.previousVersion(name);
			const next = nextVersion(meta.value, {
				previous,
				hash: hashSource(stored.source),
				at: box.now().toISOString(),
				createdAt: meta.value.createdAt,
			});
			const result = await this.guard(name, () => this.promote(next, stored.source, previous));
			if (result.ok) await this.adopt(result.value, "rolled-back", version);
			return result;
		});
	}

	/** Brings a tool from another toolbox or an exported package: same checks as a forge; its version continues ours. */
	importTool(source: string, metaText: string, takenNames: TakenNames): Promise<Result<Forged>> {
		const { box } = this;
		return box.change(async () => {
			let declared: unknown;
			try {
				declared = (JSON.parse(metaText) as { name?: unknown } | null)?.name;
			} catch (error) {
				return fail(new ForgeError("load", `The tool's metadata is not valid JSON: ${(error as Error).message}`));
			}
			const named = validateName(declared, takenNames);
			if (!named.ok) return named;
			const meta = parseMeta(metaText, named.value);
			if (!meta.ok) return meta;
			const secrets = findSecrets(source);
			if (secrets.length)
				return fail(
					new ForgeError("secrets", secretRefusal(secrets, tsFileOf(named.value)).message, { tool: named.value }),
				);
			const previous = await this.previousVersion(named.value);
			const hash = hashSource(source);
			const verifiedHash = meta.value.tests?.length ? hash : meta.value.verifiedHash;
			const next = nextVersion({ ...meta.value, verifiedHash }, { previous, hash, at: box.now().toISOString() });
			const result = await this.guard(named.value, () => this.promote(next, source, previous));
			if (result.ok) await this.adopt(result.value, "imported");
			return result;
		});
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

	/** A roll-back's or an import's second half: the same checks and staging as a forge's. */
	private promote(next: Forged["meta"], source: string, previous: PreviousVersion | undefined) {
		const { box } = this;
		return promoteSource(next, source, {
			store: box.store,
			preflight: box.runner.preflight,
			previous,
			runTests: this.testRunner,
		});
	}

	/** Runs a change, turning a store failure into an error; counts failed attempts and adds back-off advice. */
	private async guard(name: string | undefined, work: () => Promise<Result<Forged>>): Promise<Result<Forged>> {
		const { box } = this;
		let result: Result<Forged>;
		try {
			result = await work();
		} catch (error) {
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

	/** After a successful promotion: history, registry, caches, health, listeners. */
	private async adopt(forged: Forged, event: "forged" | "rolled-back" | "imported", from?: number): Promise<void> {
		const { box } = this;
		const entry = withCalls(entryFromMeta(forged.meta, forged.stamps), forged.source);
		await box.history
			.record(entry.name, event, entry.version, forged.source, serializeMeta(forged.meta), box.now(), from)
			.catch(() => undefined);
		box.registry.set(entry);
		box.cache.changed(entry.name, entry, { hash: entry.hash, source: forged.source, code: forged.compiled });
		box.health.reset(entry.name);
		await box.cache.store(entry.hash, forged.compiled);
		box.emit({
			type: "forged",
			name: entry.name,
			version: entry.version,
			previousVersion: forged.previous?.version,
			rolledBackFrom: from,
		});
	}

	/** The live version of a name, for numbering and `createdAt`: its metadata file, else what the registry knows. */
	private async previousVersion(name: string): Promise<PreviousVersion | undefined> {
		const entry = this.box.registry.get(name);
		const { source, meta } = await this.box.store.readTool(name, { tolerant: true });
		if (meta?.ok) {
			// A live file that is not the one its metadata describes: a hand edit that did not pass the checks.
			const editedByHand = source !== undefined && hashSource(source) !== meta.value.hash;
			return {
				version: Math.max(meta.value.version, entry?.version ?? 0),
				createdAt: meta.value.createdAt,
				tests: meta.value.tests,
				...(editedByHand ? { editedByHand } : {}),
			};
		}
		return entry && entry.version > 0 ? { version: entry.version } : undefined;
	}
}
