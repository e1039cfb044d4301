// Opening the toolbox and keeping it in step with its files: finishes interrupted changes, reads the registry,
// re-derives what is missing, corrupt or stale, and re-checks a tool whose files changed on disk (a hand edit, a
// `git pull`, another process) — in the background after a quick open, when the watcher notices, or before a call.
import { type Registry, type RegistryEntry, sameStamps, staleNames, type ToolStamps } from "../store/registry.ts";
import { type OpenReport, readOnlyError, type ToolboxContext } from "./context.ts";
import { deriveTool } from "./derive.ts";
import { unlockedOnly } from "./lock-guard.ts";
import { FailedLoads, precheckEdit } from "./precheck-edit.ts";
import { RecheckQueue } from "./recheck.ts";
import { brokenNames, openReadOnly, openWritable } from "./reconcile-open.ts";
import type { CompiledTool } from "./tool-cache.ts";

/** Tools re-checked at once (their preflight loads share the runner's batch workers). */
export const RECHECK_CONCURRENCY = 8;
/** How long after a quick open the files are compared with the registry, unless a listing asks sooner. */
export const COMPARE_AFTER_MS = 200;
/** How long a listing waits for the re-checks of tools changed on disk before it answers with what is known. */
export const SETTLE_BOUND_MS = 3_000;

/** Whether what changed on disk is all taken in: `done` false means `rechecking` tools (or the comparison) are still pending. */
export interface Settled {
	done: boolean;
	rechecking: number;
}

export class Reconciler {
	/** Re-checks of tools whose files changed on disk, several at once under one hold of the lock. */
	private readonly rechecks: RecheckQueue<RegistryEntry | undefined>;
	/** Loads that failed before the lock, answered from here when the take-in under the lock makes them again. */
	private readonly failedLoads = new FailedLoads();
	/** Tools to re-check even if their stamps look unchanged (their content was found to differ). */
	private readonly forced = new Set<string>();
	/** In a read-only open, the metadata derived for hand edits, which is not written. */
	private readonly unwrittenMeta = new Map<string, string>();
	/** The comparison of the files with the registry after a quick open (or a rescan), with the re-checks it queued. */
	private verification: Promise<unknown> = Promise.resolve();
	/** Starts the comparison that follows a quick open now, if it is still waiting for pi's start to be over. */
	private startComparison: () => void = () => undefined;
	/** Whether the comparison that followed a quick open has read every tool's stamps. */
	private compared = true;

	constructor(private readonly box: ToolboxContext) {
		this.rechecks = new RecheckQueue(
			(work) =>
				box.change(() => {
					const done = work();
					box.registry.holdSaves(done);
					return done;
				}),
			(name) => this.takeIn(name),
			RECHECK_CONCURRENCY,
			(name) => this.precheck(name),
			(name) => box.registry.get(name),
		);
	}

	/** See Toolbox.open. */
	async open(options: { verify?: "now" | "background"; readOnly?: boolean } = {}): Promise<OpenReport> {
		const { box } = this;
		const derive = (name: string) => this.derive(name);
		if (options.readOnly) {
			const report = await openReadOnly(box, RECHECK_CONCURRENCY, derive);
			box.emit({ type: "opened", report });
			return report;
		}
		const background = options.verify === "background";
		const { report, deferred } = await openWritable(box, background, RECHECK_CONCURRENCY, this.failedLoads, derive);
		// What a re-derivation left out (changed again since its load, or pi's start's hand edits) is re-checked now.
		await Promise.all(deferred.map((name) => this.rechecks.request(name).catch(() => undefined)));
		report.tools = box.registry.size;
		report.broken = brokenNames(box);
		box.emit({ type: "opened", report });
		if (background && report.rederived.length === 0 && !report.rebuilt) {
			// pi's own start goes first; a listing that needs the comparison starts it at once (see settle).
			this.compared = false;
			let start!: () => void;
			const due = new Promise<void>((resolve) => (start = resolve));
			const timer = setTimeout(start, COMPARE_AFTER_MS);
			timer.unref();
			this.startComparison = () => {
				clearTimeout(timer);
				start();
			};
			this.verification = due.then(() => this.compareWithDisk());
			this.verification.catch(() => undefined);
		}
		return report;
	}

	/** A tool's metadata as it is now: its file, or what a read-only open derived for a hand edit and did not write. */
	async readMeta(name: string): Promise<string | undefined> {
		return this.unwrittenMeta.get(name) ?? this.box.store.readMeta(name);
	}

	/** Resolves when the comparison of the files with the registry that followed a quick open is done, re-checks included. */
	verified(): Promise<unknown> {
		this.startComparison();
		return this.verification;
	}

	/**
	 * After a quick open: every tool whose files changed while pi was closed (a hand edit, a `git pull`, another
	 * process) is re-checked now, several at once; a call of one of them waits for its own re-check, not for the rest.
	 */
	private async compareWithDisk(): Promise<void> {
		const { box } = this;
		if (box.closing) return;
		this.compared = false;
		try {
			const onDisk = await box.store.listStamps({ stop: () => box.closing });
			if (box.closing) return;
			const current: Registry = {
				format: 1,
				tools: Object.fromEntries(box.registry.entries().map((e) => [e.name, e])),
			};
			const stale = staleNames(current, onDisk);
			this.compared = true;
			void box.change(() => box.store.sweep()).catch(() => undefined);
			await Promise.all(stale.map((name) => this.rechecks.request(name).catch(() => undefined)));
		} finally {
			this.compared = true;
		}
	}

	/**
	 * A tool's entry from its files; in a read-only open the metadata derived for a hand edit is kept in memory. Under
	 * the lock, a load is answered from what its precheck found, or refused (NotRunBeforeLock: the files changed since).
	 */
	private async derive(name: string, stamps?: ToolStamps): Promise<{ entry: RegistryEntry; compiled?: CompiledTool }> {
		const { runner } = this.box;
		const preflight = this.failedLoads.preflight(unlockedOnly(runner.preflightBatch ?? runner.preflight));
		const derived = await deriveTool(this.box, name, stamps, preflight);
		if (this.box.readOnly && derived.metaText) this.unwrittenMeta.set(name, derived.metaText);
		return derived;
	}

	/** Drops the re-checks not started yet and waits for the running ones (closing). */
	cancel(): Promise<void> {
		return this.rechecks.cancel();
	}

	/** Re-reads one tool's files after they changed on disk (a hand edit, another process); ignores our own writes. */
	reload(name: string): Promise<RegistryEntry | undefined> {
		if (this.box.readOnly) return Promise.reject(readOnlyError());
		return this.rechecks.request(name);
	}

	/** A change to a tool's files seen by the watcher: re-checked after `quietMs` without another, or when someone asks. */
	noticed(name: string, quietMs: number): void {
		if (!this.box.readOnly && !this.box.closing) this.rechecks.notice(name, quietMs);
	}

	/** Compares every tool with its files again (after a change the watcher could not name). */
	rescan(): void {
		if (this.box.readOnly || this.box.closing) return;
		this.verification = this.compareWithDisk();
		this.verification.catch(() => undefined);
	}

	/**
	 * The entry of `name` as its files are now: a stamp check (size and modification time of its two files against
	 * what was checked), and when they differ, or a re-check of them is under way, the re-check's outcome.
	 */
	async fresh(name: string): Promise<RegistryEntry | undefined> {
		const { box } = this;
		if (box.readOnly || box.closing) return box.registry.get(name);
		// A file rewritten again and again is followed a few times, then taken as last checked.
		for (let round = 0; round < 3; round++) {
			const pending = this.rechecks.pending(name);
			if (pending) {
				this.rechecks.prioritize(name);
				await pending.catch(() => undefined);
				continue;
			}
			const stamps = await box.store.stampsOf(name);
			const entry = box.registry.get(name);
			if (entry ? sameStamps(entry.stamps, stamps) : !stamps.ts && !stamps.json) return entry;
			await this.rechecks.request(name, { first: true }).catch(() => undefined);
		}
		return box.registry.get(name);
	}

	/** Re-checks a tool whose file has its recorded stamps but other content (a file restored with its old size and time). */
	recheckChanged(name: string): Promise<RegistryEntry | undefined> {
		this.forced.add(name);
		return this.rechecks.request(name, { first: true }).catch(() => this.box.registry.get(name));
	}

	/**
	 * Waits until what is known to have changed on disk is taken in — the comparison after a quick open, the re-checks
	 * it queued, the changes the watcher noticed (started now) — for at most `boundMs`.
	 */
	async settle(boundMs = SETTLE_BOUND_MS): Promise<Settled> {
		if (this.box.readOnly) return { done: true, rechecking: 0 };
		this.startComparison();
		this.rechecks.hurry();
		let timer: NodeJS.Timeout | undefined;
		const taken = this.verification.then(() => this.rechecks.idle());
		await (Number.isFinite(boundMs)
			? Promise.race([taken, new Promise((resolve) => (timer = setTimeout(resolve, boundMs)))])
			: taken);
		clearTimeout(timer);
		const rechecking = this.rechecks.size;
		return { done: this.compared && rechecking === 0, rechecking };
	}

	/** Loads a hand edit of `name` not taken in yet, before the lock: `takeIn` then loads nothing (see precheck-edit.ts). */
	readonly precheck = (name: string): Promise<void> =>
		precheckEdit(this.box, name, { force: this.forced.has(name), failed: this.failedLoads });

	/**
	 * The files of one tool as they are now, if they changed since the registry recorded them. Call inside `change`;
	 * throws NotRunBeforeLock when they changed again since their precheck (they are prechecked again, unlocked).
	 */
	async takeIn(name: string): Promise<RegistryEntry | undefined> {
		const { box } = this;
		const stamps = await box.store.stampsOf(name);
		const current = box.registry.get(name);
		if (current && sameStamps(current.stamps, stamps) && !this.forced.has(name)) return current;
		if (!stamps.ts && !stamps.json) {
			if (!current) return undefined;
			box.registry.delete(name);
			box.cache.changed(name, undefined);
			box.emit({ type: "reloaded", name });
			return undefined;
		}
		const { entry, compiled } = await this.derive(name, stamps);
		this.forced.delete(name);
		if (entry.hash !== current?.hash) box.health.reset(name);
		box.registry.set(entry);
		box.cache.changed(name, entry, compiled);
		box.emit({ type: "reloaded", name, entry });
		return entry;
	}
}
