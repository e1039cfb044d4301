// The toolbox service: what is forged, in what state, and every operation on it (forge, use, list, roll back,
// remove, reload). It owns the in-memory view of the store; pi wiring, the UI and the command line read it and never
// touch the disk themselves. Changes are serialised in this process and, through the toolbox lock, across processes.
import { createTwoFilesPatch } from "diff";
import type { ForgeConfig } from "../config.ts";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { type TakenNames, validateName } from "../contract/names.ts";
import { hashSource, parseMeta, serializeMeta, type ToolMeta, tsFileOf } from "../contract/tool-files.ts";
import { judge, type TestVerdict } from "../contract/tool-tests.ts";
import { checkSource } from "../forge/check-source.ts";
import { loadTemplate } from "../forge/template.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import { sharedChecker } from "../run/bounded-checker.ts";
import { normaliseResult, outputText, type ToolOutput, withConsole } from "../run/result.ts";
import type { RunHost, RunnableTool, Runner } from "../run/runner.ts";
import { forgetValidator, type validateArguments, validateArgumentsWithin } from "../schema/arguments.ts";
import { findSecrets, secretRefusal } from "../security/secrets.ts";
import { CompileCache } from "../store/compile-cache.ts";
import { type HistoryEntry, ToolHistory } from "../store/history.ts";
import {
	emptyRegistry,
	entryFromMeta,
	parseRegistry,
	type Registry,
	type RegistryEntry,
	sameStamps,
	staleNames,
	type ToolStamps,
} from "../store/registry.ts";
import { ToolboxStore } from "../store/toolbox-store.ts";
import { deriveEntry } from "./derive.ts";
import {
	type Forged,
	type ForgeRequest,
	type PreviousVersion,
	promoteSource,
	runForgePipeline,
	type TestRunner,
} from "./forge-pipeline.ts";
import { ensureGitignore } from "./gitignore.ts";
import { HealthStore, type ToolHealth } from "./health.ts";
import { backOffAdvice, brokenToolError, notFoundError, REPAIR_ATTEMPTS_BEFORE_ADVICE } from "./messages.ts";
import { RecheckQueue } from "./recheck.ts";
import { RegistryKeeper } from "./registry-keeper.ts";
import { ToolSearch } from "./search.ts";

export type ToolState = "ok" | "broken" | "quarantined";

export interface ToolView {
	entry: RegistryEntry;
	health?: ToolHealth;
	state: ToolState;
}

export interface OpenReport {
	tools: number;
	broken: string[];
	/** Why the registry was (partly) rebuilt, if it was. */
	rebuilt?: "missing" | "corrupt" | "stale";
	rederived: string[];
	/** Interrupted changes finished (rolled forward) or discarded at start. */
	recovered: { rolledForward: string[]; discarded: string[]; leftovers: string[] };
}

export type ToolboxEvent =
	| { type: "opened"; report: OpenReport }
	| { type: "forged"; name: string; version: number; previousVersion?: number; rolledBackFrom?: number }
	| { type: "forge-failed"; name?: string; error: ForgeError }
	| { type: "removed"; name: string }
	| { type: "reloaded"; name: string; entry?: RegistryEntry }
	| { type: "executing"; name: string }
	| { type: "executed"; name: string; ok: boolean; durationMs: number };

export interface UseOptions {
	signal?: AbortSignal;
	host: RunHost;
	/** Scrubs what the call printed to the console before it becomes output the model reads. */
	redact?: (text: string) => string;
}

export interface UseSuccess extends ToolOutput {
	durationMs: number;
	version: number;
}

interface CompiledTool {
	hash: string;
	source: string;
	code: CompiledCode;
}

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

export class Toolbox {
	readonly store: ToolboxStore;
	readonly health: HealthStore;
	readonly history: ToolHistory;
	private readonly registry: RegistryKeeper;
	private readonly compiled = new Map<string, CompiledTool>();
	private readonly compileCache: CompileCache;
	/** Built at the first query, not at start: a large toolbox must not slow pi's start. */
	private searchIndex: ToolSearch | undefined;
	private readonly listeners = new Set<(event: ToolboxEvent) => void>();
	private writes: Promise<unknown> = Promise.resolve();
	/** Failed forges of a name in a row: after a few, the error suggests going back to what worked. */
	private readonly failedForges = new Map<string, number>();
	/** Opened with `readOnly`: nothing is ever written into the toolbox folder. */
	private readOnly = false;
	/** In a read-only open, the metadata derived for hand edits, which is not written. */
	private readonly unwrittenMeta = new Map<string, string>();
	/** Re-checks of tools whose files changed on disk, several at once under one hold of the lock. */
	private readonly rechecks: RecheckQueue<RegistryEntry | undefined>;
	/** Tools to re-check even if their stamps look unchanged (their content was found to differ). */
	private readonly forced = new Set<string>();
	private closing = false;

	constructor(
		readonly config: ForgeConfig,
		readonly runner: Runner,
		private readonly now: () => Date = () => new Date(),
	) {
		this.store = new ToolboxStore(config.toolboxDir, { staleMs: config.lockStaleMs });
		this.health = new HealthStore(config.toolboxDir);
		this.history = new ToolHistory(config.toolboxDir, config.historyLimit);
		this.registry = new RegistryKeeper(this.store);
		this.compileCache = new CompileCache(config.toolboxDir);
		this.rechecks = new RecheckQueue(
			(work) =>
				this.change(() => {
					const done = work();
					this.registry.holdSaves(done);
					return done;
				}),
			(name) => this.takeIn(name),
			RECHECK_CONCURRENCY,
		);
	}

	private get search(): ToolSearch {
		if (!this.searchIndex) {
			this.searchIndex = new ToolSearch();
			for (const entry of this.registry.entries()) this.searchIndex.upsert(entry);
		}
		return this.searchIndex;
	}

	/** Keeps the search index (if it exists yet) in step with a change. */
	private indexed(name: string, entry?: RegistryEntry): void {
		if (!this.searchIndex) return;
		if (entry) this.searchIndex.upsert(entry);
		else this.searchIndex.remove(name);
	}

	onEvent(listener: (event: ToolboxEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private emit(event: ToolboxEvent): void {
		for (const listener of this.listeners) listener(event);
	}

	/**
	 * Finishes interrupted changes, reads the registry and re-derives what is missing, corrupt or stale. Never throws for
	 * a broken tool. `readOnly` (the command line's list, show, check…) derives the same view in memory and writes nothing.
	 */
	async open(options: { verify?: "now" | "background"; readOnly?: boolean } = {}): Promise<OpenReport> {
		if (options.readOnly) return this.openReadOnly();
		await this.store.ensure();
		await ensureGitignore(this.store.dir);
		await this.health.load();
		const background = options.verify === "background";
		const report = await this.store.locked(async (): Promise<OpenReport> => {
			// pi's start leaves the temporary files of interrupted writes (a read of the whole folder) to the comparison after it.
			const recovered = await this.store.recover({ sweep: !background });
			const text = await this.store.readRegistry();
			const parsed = parseRegistry(text);
			const rebuilt: OpenReport["rebuilt"] =
				text === undefined ? "missing" : parsed === undefined ? "corrupt" : undefined;
			// A sound registry is trusted at once when asked (pi's start); the files are compared with it right after.
			if (parsed && background) {
				this.registry.replaceAll(parsed);
				return { tools: this.registry.size, broken: [], rederived: [], recovered };
			}
			const registry = parsed ?? emptyRegistry();
			const stale = await this.rederiveStale(registry, !parsed);
			this.registry.replaceAll(registry);
			if (rebuilt || stale.length > 0) await this.registry.writeAll();
			return {
				tools: this.registry.size,
				broken: [],
				rebuilt: rebuilt ?? (stale.length > 0 ? "stale" : undefined),
				rederived: stale,
				recovered,
			};
		});
		report.broken = this.entries()
			.filter((e) => e.status === "broken")
			.map((e) => e.name);
		this.emit({ type: "opened", report });
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

	/** The toolbox as the files say it is now, with no folder, lock, recovery, registry, history or metadata written. */
	private async openReadOnly(): Promise<OpenReport> {
		this.readOnly = true;
		await this.health.load();
		const text = await this.store.readRegistry();
		const parsed = parseRegistry(text);
		const registry = parsed ?? emptyRegistry();
		const stale = await this.rederiveStale(registry, !parsed);
		this.registry.replaceAll(registry);
		const rebuilt: OpenReport["rebuilt"] =
			text === undefined ? "missing" : parsed === undefined ? "corrupt" : stale.length > 0 ? "stale" : undefined;
		const broken = this.entries()
			.filter((e) => e.status === "broken")
			.map((e) => e.name);
		const report: OpenReport = {
			tools: this.registry.size,
			broken,
			rebuilt,
			rederived: stale,
			recovered: { rolledForward: [], discarded: [], leftovers: [] },
		};
		this.emit({ type: "opened", report });
		return report;
	}

	/** Resolves when the comparison of the files with the registry that followed a quick open is done, re-checks included. */
	verified(): Promise<unknown> {
		this.startComparison();
		return this.verification;
	}
	private verification: Promise<unknown> = Promise.resolve();
	/** Starts the comparison that follows a quick open now, if it is still waiting for pi's start to be over. */
	private startComparison: () => void = () => undefined;
	/** Whether the comparison that followed a quick open has read every tool's stamps. */
	private compared = true;

	/** Re-derives, in `registry`, every tool whose files differ from it (all of them when `all`); returns their names. */
	private async rederiveStale(registry: Registry, all: boolean): Promise<string[]> {
		const onDisk = await this.store.listStamps();
		const stale = all ? [...onDisk.keys()].sort() : staleNames(registry, onDisk);
		const queue = [...stale];
		const worker = async () => {
			for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
				if (!onDisk.has(name)) delete registry.tools[name];
				else registry.tools[name] = await this.derive(name);
			}
		};
		await Promise.all(Array.from({ length: RECHECK_CONCURRENCY }, worker));
		return stale;
	}

	/**
	 * After a quick open: every tool whose files changed while pi was closed (a hand edit, a `git pull`, another
	 * process) is re-checked now, several at once; a call of one of them waits for its own re-check, not for the rest.
	 */
	private async compareWithDisk(): Promise<void> {
		if (this.closing) return;
		this.compared = false;
		try {
			const onDisk = await this.store.listStamps({ stop: () => this.closing });
			if (this.closing) return;
			const current: Registry = {
				format: 1,
				tools: Object.fromEntries(this.registry.entries().map((e) => [e.name, e])),
			};
			const stale = staleNames(current, onDisk);
			this.compared = true;
			void this.change(() => this.store.sweep()).catch(() => undefined);
			await Promise.all(stale.map((name) => this.rechecks.request(name).catch(() => undefined)));
		} finally {
			this.compared = true;
		}
	}

	/**
	 * A tool's entry from its files (with the lock held); keeps the compiled code when the check compiled it, and
	 * makes sure the version on disk is in the history (a hand edit, or a change finished after an interruption).
	 */
	private async derive(name: string, stamps?: ToolStamps): Promise<RegistryEntry> {
		const preflight = this.runner.preflightBatch ?? this.runner.preflight;
		const derived = await deriveEntry(name, this.store, this.now(), preflight, {
			write: !this.readOnly,
			cache: this.compileCache,
			stamps,
		});
		if (derived.compiled && derived.source)
			this.compiled.set(name, { hash: derived.entry.hash, source: derived.source, code: derived.compiled });
		if (this.readOnly && derived.metaText) this.unwrittenMeta.set(name, derived.metaText);
		if (!this.readOnly && derived.shape && derived.compiled)
			await this.compileCache.put(derived.entry.hash, derived.compiled, derived.shape);
		if (derived.entry.status === "ok" && !this.readOnly)
			await this.recordIfMissing(name, derived.compiled ? "edited" : "recovered", derived.source, derived.metaText);
		return derived.entry;
	}

	/** Records the live version of a tool unless the history already ends with it. */
	private async recordIfMissing(
		name: string,
		event: "edited" | "recovered",
		knownSource?: string,
		knownMeta?: string,
	): Promise<void> {
		const [source, metaText] =
			knownSource !== undefined && knownMeta !== undefined
				? [knownSource, knownMeta]
				: await Promise.all([this.store.readSource(name), this.store.readMeta(name)]);
		if (source === undefined || metaText === undefined) return;
		const meta = parseMeta(metaText, name);
		if (!meta.ok) return;
		const entries = await this.history.entries(name);
		const last = entries.at(-1);
		if (
			last &&
			last.event !== "removed" &&
			`sha256-${last.ts}` === hashSource(source) &&
			last.version === meta.value.version
		)
			return;
		await this.history
			.record(name, event, meta.value.version, source, metaText, this.now(), undefined, entries)
			.catch(() => undefined);
	}

	entries(): readonly RegistryEntry[] {
		return this.registry.entries();
	}

	get(name: string): RegistryEntry | undefined {
		return this.registry.get(name);
	}

	/** broken: it cannot run; quarantined: it ran and failed `quarantineAfter` times in a row (not offered directly). */
	state(entry: RegistryEntry): ToolState {
		if (entry.status === "broken") return "broken";
		const failures = this.health.get(entry.name)?.consecutiveFailures ?? 0;
		return failures >= this.config.quarantineAfter ? "quarantined" : "ok";
	}

	view(name: string): ToolView | undefined {
		const entry = this.get(name);
		return entry && { entry, health: this.health.get(name), state: this.state(entry) };
	}

	/** All tools, or with a query the best matches first; at most `limit`. */
	list(query?: string, limit = 20): { total: number; matched: number; tools: ToolView[] } {
		const all = this.entries();
		if (!query?.trim()) {
			return { total: all.length, matched: all.length, tools: all.slice(0, limit).map((e) => this.view(e.name)!) };
		}
		const { hits, matched } = this.search.search(query, limit);
		return { total: this.registry.size, matched, tools: hits.flatMap((hit) => this.view(hit.name) ?? []) };
	}

	/** One change at a time in this process; across processes, the toolbox lock. */
	private change<T>(work: () => Promise<T>): Promise<T> {
		if (this.readOnly) return Promise.reject(new Error("This toolbox was opened read-only: it cannot be changed."));
		const run = this.writes.then(() => this.store.locked(work));
		this.writes = run.catch(() => undefined);
		return run;
	}

	forge(
		request: ForgeRequest,
		takenNames: TakenNames,
		options: { signal?: AbortSignal } = {},
	): Promise<Result<Forged>> {
		return this.change(async () => {
			const name = typeof request.name === "string" ? request.name : undefined;
			// A hand edit the watcher has not taken in yet becomes a version of its own first (history, the .bak's label).
			if (name && this.get(name)) await this.takeIn(name);
			const previous = name ? await this.previousVersion(name) : undefined;
			const result = await this.guard(name, () =>
				runForgePipeline(request, {
					store: this.store,
					template: loadTemplate(),
					takenNames,
					previous,
					previousTests: previous?.tests,
					preflight: this.runner.preflight,
					runTests: this.testRunner,
					signal: options.signal,
					now: this.now,
				}),
			);
			if (result.ok) await this.adopt(result.value, "forged");
			return result;
		});
	}

	/** Makes an earlier version current again (as a new version), after the same checks as a forge. */
	rollback(name: string, version: number): Promise<Result<Forged>> {
		return this.change(async () => {
			const stored = await this.history.read(name, version);
			if (!stored) {
				const known = (await this.history.entries(name)).map((e) => `v${e.version}`);
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
			const at = this.now().toISOString();
			const next = {
				...meta.value,
				version: (previous?.version ?? 0) + 1,
				hash: hashSource(stored.source),
				createdAt: previous?.createdAt || meta.value.createdAt,
				updatedAt: at,
			};
			const result = await this.guard(name, () =>
				promoteSource(next, stored.source, {
					store: this.store,
					preflight: this.runner.preflight,
					previous,
					runTests: this.testRunner,
				}),
			);
			if (result.ok) await this.adopt(result.value, "rolled-back", version);
			return result;
		});
	}

	/** Brings a tool from another toolbox or an exported package: same checks as a forge; its version continues ours. */
	importTool(source: string, metaText: string, takenNames: TakenNames): Promise<Result<Forged>> {
		return this.change(async () => {
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
			const at = this.now().toISOString();
			const hash = hashSource(source);
			const next = {
				...meta.value,
				version: (previous?.version ?? 0) + 1,
				hash,
				createdAt: previous?.createdAt || at,
				updatedAt: at,
				...(meta.value.tests?.length ? { verifiedHash: hash } : {}),
			};
			const result = await this.guard(named.value, () =>
				promoteSource(next, source, {
					store: this.store,
					preflight: this.runner.preflight,
					previous,
					runTests: this.testRunner,
				}),
			);
			if (result.ok) await this.adopt(result.value, "imported");
			return result;
		});
	}

	/** Removes a tool: its files go (its history stays), and it is no longer offered. */
	remove(name: string): Promise<Result<RegistryEntry>> {
		return this.change(async () => {
			const entry = this.get(name);
			if (!entry) return fail(this.notFound(name));
			const [source, metaText] = await Promise.all([this.store.readSource(name), this.store.readMeta(name)]);
			if (source !== undefined && metaText !== undefined)
				await this.history
					.record(name, "removed", entry.version, source, metaText, this.now())
					.catch(() => undefined);
			try {
				await this.store.remove(name);
			} catch (error) {
				// A committed removal left half done is finished at the next start; say so, and re-read what is there now.
				void this.reload(name).catch(() => undefined);
				return fail(
					new ForgeError(
						"store",
						`Removing '${name}' was interrupted: ${(error as Error).message}. It is completed at the next start.`,
						{ tool: name },
						{ cause: error },
					),
				);
			}
			this.registry.delete(name);
			this.health.delete(name);
			this.forgetCaches(name);
			this.indexed(name);
			this.emit({ type: "removed", name });
			return ok(entry);
		});
	}

	/** Re-reads one tool's files after they changed on disk (a hand edit, another process); ignores our own writes. */
	reload(name: string): Promise<RegistryEntry | undefined> {
		if (this.readOnly) return Promise.reject(new Error("This toolbox was opened read-only: it cannot be changed."));
		return this.rechecks.request(name);
	}

	/** A change to a tool's files seen by the watcher: re-checked after `quietMs` without another, or when someone asks. */
	noticed(name: string, quietMs: number): void {
		if (!this.readOnly && !this.closing) this.rechecks.notice(name, quietMs);
	}

	/** Compares every tool with its files again (after a change the watcher could not name). */
	rescan(): void {
		if (this.readOnly || this.closing) return;
		this.verification = this.compareWithDisk();
		this.verification.catch(() => undefined);
	}

	/**
	 * The entry of `name` as its files are now: a stamp check (size and modification time of its two files against
	 * what was checked), and when they differ, or a re-check of them is under way, the re-check's outcome.
	 */
	async fresh(name: string): Promise<RegistryEntry | undefined> {
		if (this.readOnly || this.closing) return this.get(name);
		// A file rewritten again and again is followed a few times, then taken as last checked.
		for (let round = 0; round < 3; round++) {
			const pending = this.rechecks.pending(name);
			if (pending) {
				this.rechecks.prioritize(name);
				await pending.catch(() => undefined);
				continue;
			}
			const stamps = await this.store.stampsOf(name);
			const entry = this.get(name);
			if (entry ? sameStamps(entry.stamps, stamps) : !stamps.ts && !stamps.json) return entry;
			await this.rechecks.request(name, { first: true }).catch(() => undefined);
		}
		return this.get(name);
	}

	/** Stamp-checks `names` (the tools about to be shown); true when one of them changed. */
	async refresh(names: readonly string[]): Promise<boolean> {
		const before = names.map((name) => this.get(name));
		const after = await Promise.all(names.map((name) => this.fresh(name)));
		return after.some((entry, i) => entry !== before[i]);
	}

	/**
	 * Waits until what is known to have changed on disk is taken in — the comparison after a quick open, the re-checks
	 * it queued, the changes the watcher noticed (started now) — for at most `boundMs`.
	 */
	async settle(boundMs = SETTLE_BOUND_MS): Promise<Settled> {
		if (this.readOnly) return { done: true, rechecking: 0 };
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

	/** The files of one tool as they are now, if they changed since the registry recorded them. Call inside `change`. */
	private async takeIn(name: string): Promise<RegistryEntry | undefined> {
		const stamps = await this.store.stampsOf(name);
		const current = this.get(name);
		if (current && sameStamps(current.stamps, stamps) && !this.forced.delete(name)) return current;
		if (!stamps.ts && !stamps.json) {
			if (!current) return undefined;
			this.registry.delete(name);
			this.forgetCaches(name);
			this.indexed(name);
			this.emit({ type: "reloaded", name });
			return undefined;
		}
		const entry = await this.derive(name, stamps);
		if (entry.hash !== current?.hash) this.health.reset(name);
		this.registry.set(entry);
		this.runner.forget(name);
		forgetValidator(name);
		this.indexed(name, entry);
		this.emit({ type: "reloaded", name, entry });
		return entry;
	}

	async versions(name: string): Promise<HistoryEntry[]> {
		return this.history.entries(name);
	}

	/** A unified diff between two versions of a tool (stored, or the live one). */
	async diff(name: string, from: number, to: number): Promise<Result<string>> {
		const [a, b] = await Promise.all([this.sourceOf(name, from), this.sourceOf(name, to)]);
		const missing = a === undefined ? from : b === undefined ? to : undefined;
		if (missing !== undefined)
			return fail(new ForgeError("not-found", `'${name}' has no stored version ${missing}.`, { tool: name }));
		return ok(createTwoFilesPatch(`forge-${name}.ts v${from}`, `forge-${name}.ts v${to}`, a!, b!));
	}

	/** A version's source: from the history, else from the files when it is the live version (a read-only open records none). */
	private async sourceOf(name: string, version: number): Promise<string | undefined> {
		const stored = await this.history.read(name, version);
		if (stored) return stored.source;
		const entry = this.get(name);
		if (entry?.version !== version || entry.status !== "ok") return undefined;
		const source = await this.store.readSource(name);
		return source !== undefined && hashSource(source) === entry.hash ? source : undefined;
	}

	private async guard(name: string | undefined, work: () => Promise<Result<Forged>>): Promise<Result<Forged>> {
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
			if (name) void this.reload(name).catch(() => undefined);
		}
		if (name && result.ok) this.failedForges.delete(name);
		if (!result.ok) {
			// A runner that could not start is not a failed attempt at the tool: it neither counts nor earns back-off advice.
			const attempt = result.error.phase !== "runner";
			const failures = name && attempt ? (this.failedForges.get(name) ?? 0) + 1 : 0;
			if (name && attempt) this.failedForges.set(name, failures);
			if (failures >= REPAIR_ATTEMPTS_BEFORE_ADVICE) {
				const advice = backOffAdvice(name!, failures, this.get(name!), await this.history.entries(name!));
				result = fail(result.error.with({ notes: [...(result.error.details.notes ?? []), advice] }));
			}
			this.emit({ type: "forge-failed", name, error: result.error });
		}
		return result;
	}

	/** After a successful promotion: history, registry, caches, health, search, listeners. */
	private async adopt(forged: Forged, event: "forged" | "rolled-back" | "imported", from?: number): Promise<void> {
		const entry = entryFromMeta(forged.meta, forged.stamps);
		await this.history
			.record(entry.name, event, entry.version, forged.source, serializeMeta(forged.meta), this.now(), from)
			.catch(() => undefined);
		this.registry.set(entry);
		this.forgetCaches(entry.name);
		this.compiled.set(entry.name, { hash: entry.hash, source: forged.source, code: forged.compiled });
		this.health.reset(entry.name);
		this.indexed(entry.name, entry);
		await this.compileCache.put(entry.hash, forged.compiled);
		this.emit({
			type: "forged",
			name: entry.name,
			version: entry.version,
			previousVersion: forged.previous?.version,
			rolledBackFrom: from,
		});
	}

	private forgetCaches(name: string): void {
		this.compiled.delete(name);
		this.runner.forget(name);
		forgetValidator(name);
	}

	/** The live version of a name, for numbering and `createdAt`: its metadata file, else what the registry knows. */
	private async previousVersion(name: string): Promise<PreviousVersion | undefined> {
		const entry = this.get(name);
		const text = await this.store.readMeta(name).catch(() => undefined);
		const meta = text === undefined ? undefined : parseMeta(text, name);
		if (meta?.ok) {
			// A live file that is not the one its metadata describes: a hand edit that did not pass the checks.
			const source = await this.store.readSource(name).catch(() => undefined);
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

	/** A candidate's tests, each in the runner real calls use, against its own copy (the live tool keeps running). */
	private readonly testRunner: TestRunner = (code, meta, signal) =>
		this.runTestCases(
			{
				name: meta.name,
				key: `${meta.name}@tests`,
				hash: meta.hash,
				file: tsFileOf(meta.name),
				path: this.store.tsPath(meta.name),
				code,
			},
			meta,
			signal,
		);

	/** How long checking a model's regular expression or schema may take off pi's main thread. */
	private get checkBoundMs(): number {
		return Math.min(this.config.timeoutMs, CHECK_BOUND_MS);
	}

	/**
	 * A forge holds the toolbox lock while its tests run, so their time is bounded: each case within PI_FORGE_TIMEOUT_MS
	 * (a longer timeoutMs of its own is capped to it), all of them within twice that, none once `signal` aborts.
	 */
	private async runTestCases(tool: RunnableTool, meta: ToolMeta, signal?: AbortSignal): Promise<TestVerdict[]> {
		const verdicts: TestVerdict[] = [];
		const { timeoutMs } = this.config;
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
			const args = await validateArgumentsWithin(
				meta.name,
				meta.hash,
				meta.parameters,
				test.args,
				sharedChecker(),
				this.checkBoundMs,
			);
			const outcome = args.ok
				? await this.runner.run({
						tool,
						params: args.value,
						cwd: this.config.cwd,
						timeoutMs: Math.min(test.timeoutMs ?? timeoutMs, timeoutMs, left),
						signal,
						host: TEST_HOST,
					})
				: args;
			const judged = outcome.ok
				? {
						ok: true as const,
						text: outputText(withConsole(normaliseResult(outcome.value.value), outcome.value.console)),
					}
				: { ok: false as const, error: outcome.error };
			const matched =
				test.matches !== undefined && judged.ok
					? await sharedChecker().matches(test.matches, judged.text, this.checkBoundMs)
					: undefined;
			verdicts.push(judge(test, index, judged, matched));
		}
		this.runner.forget(tool.key ?? tool.name);
		return verdicts;
	}

	/** Runs tests against code that is not the live tool's: a candidate, or a file `check` has just verified. */
	testCandidate(code: CompiledCode, meta: ToolMeta): Promise<TestVerdict[]> {
		return this.testRunner(code, meta);
	}

	/** A tool's metadata as it is now: its file, or what a read-only open derived for a hand edit and did not write. */
	async readMeta(name: string): Promise<string | undefined> {
		return this.unwrittenMeta.get(name) ?? this.store.readMeta(name);
	}

	/** Runs a live tool's tests on demand (`/forge test`, `agent-forge test`). */
	async runTests(name: string): Promise<Result<TestVerdict[]>> {
		const entry = await this.fresh(name);
		if (!entry) return fail(this.notFound(name));
		const metaText = await this.readMeta(name);
		const meta = metaText === undefined ? undefined : parseMeta(metaText, name);
		if (!meta?.ok)
			return fail(meta?.error ?? new ForgeError("load", `forge-${name}.json is missing.`, { tool: name }));
		const compiled = await this.compiledTool(entry);
		if (compiled === "changed") return fail(changedOnDisk(name, await this.store.readSource(name)));
		if (!compiled.ok) return compiled;
		const verdicts = await this.runTestCases(
			{
				name,
				key: `${name}@tests`,
				hash: entry.hash,
				file: tsFileOf(name),
				path: this.store.tsPath(name),
				code: compiled.value.code,
			},
			meta.value,
		);
		if (!this.readOnly && verdicts.length && verdicts.every((v) => v.pass) && meta.value.verifiedHash !== entry.hash)
			await this.markVerified(name, entry.hash);
		return ok(verdicts);
	}

	/** Records that the tests passed on this source (after a hand edit, say). */
	private markVerified(name: string, hash: string): Promise<void> {
		return this.change(async () => {
			const text = await this.store.readMeta(name);
			const meta = text === undefined ? undefined : parseMeta(text, name);
			if (!meta?.ok || meta.value.hash !== hash) return;
			await this.store.writeMeta(name, serializeMeta({ ...meta.value, verifiedHash: hash }));
			const entry = entryFromMeta({ ...meta.value, verifiedHash: hash }, await this.store.stampsOf(name));
			this.registry.set(entry);
			this.indexed(name, entry);
		});
	}

	/** Runs a forged tool: resolve, validate the arguments, run it in the runner, normalise what it returned. */
	async use(name: unknown, args: unknown, options: UseOptions): Promise<Result<UseSuccess>> {
		// What runs is what is on disk now: a tool changed since it was checked is re-checked first.
		let entry = typeof name === "string" ? await this.fresh(name) : undefined;
		let compiled: Result<CompiledTool> | "changed" = "changed";
		let validated: ReturnType<typeof validateArguments> | undefined;
		for (let attempt = 0; compiled === "changed"; attempt++) {
			if (!entry) return fail(this.notFound(name));
			if (entry.status === "broken") return fail(brokenToolError(entry, await this.store.readSource(entry.name)));
			validated = await validateArgumentsWithin(
				entry.name,
				entry.hash,
				entry.parameters,
				args,
				sharedChecker(),
				this.checkBoundMs,
			);
			if (!validated.ok) return validated;
			compiled = await this.compiledTool(entry);
			if (compiled !== "changed") break;
			if (attempt === 2 || this.readOnly)
				return fail(changedOnDisk(entry.name, await this.store.readSource(entry.name)));
			// Same stamps, other content (a file restored with its old size and time): re-checked all the same.
			this.forced.add(entry.name);
			entry = await this.rechecks.request(entry.name, { first: true }).catch(() => this.get(entry!.name));
		}
		if (!compiled.ok) return compiled;
		if (!entry || !validated?.ok) return fail(this.notFound(name));

		this.emit({ type: "executing", name: entry.name });
		const started = performance.now();
		const outcome = await this.runner.run({
			tool: {
				name: entry.name,
				hash: entry.hash,
				version: entry.version,
				file: tsFileOf(entry.name),
				path: this.store.tsPath(entry.name),
				code: compiled.value.code,
			},
			params: validated.value,
			cwd: this.config.cwd,
			timeoutMs: this.config.timeoutMs,
			signal: options.signal,
			host: options.host,
		});
		const durationMs = performance.now() - started;
		// The tool never ran when the runner could not start: not a call, not a failure of the tool.
		if (!outcome.ok && outcome.error.phase === "runner") return fail(outcome.error.with({ tool: entry.name }));
		// A refused permission is a grant not given, not a fault of the tool: it never counts towards quarantine.
		const denied =
			!outcome.ok && (outcome.error.phase === "permission" || outcome.error.details.origin === "permission");
		this.health.record(entry.name, {
			ok: outcome.ok,
			denied,
			durationMs,
			at: this.now(),
			error: outcome.ok ? undefined : outcome.error.toData(),
		});
		this.emit({ type: "executed", name: entry.name, ok: outcome.ok, durationMs });
		if (!outcome.ok)
			return fail(outcome.error.with({ tool: entry.name, source: compiled.value.source, args: validated.value }));
		const printed = outcome.value.console;
		const output = withConsole(
			normaliseResult(outcome.value.value),
			printed === undefined || !options.redact ? printed : options.redact(printed),
		);
		return ok({ ...output, durationMs, version: entry.version });
	}

	/** The compiled code of a tool: from memory, the disk cache, else compiled now (and checked again); "changed" when the file is not the one checked. */
	private async compiledTool(entry: RegistryEntry): Promise<Result<CompiledTool> | "changed"> {
		const cached = this.compiled.get(entry.name);
		if (cached?.hash === entry.hash) return ok(cached);
		const [source, fromDisk] = await Promise.all([
			this.store.readSource(entry.name),
			this.compileCache.get(entry.hash),
		]);
		if (source !== undefined && fromDisk && hashSource(source) === entry.hash) {
			const compiled = { hash: entry.hash, source, code: fromDisk };
			this.compiled.set(entry.name, compiled);
			return ok(compiled);
		}
		if (source === undefined || hashSource(source) !== entry.hash) return "changed";
		const checked = await checkSource(source, tsFileOf(entry.name));
		if (!checked.ok) return fail(checked.error.with({ tool: entry.name }));
		const compiled = { hash: entry.hash, source, code: checked.value.cjs };
		this.compiled.set(entry.name, compiled);
		if (!this.readOnly) await this.compileCache.put(entry.hash, compiled.code);
		return ok(compiled);
	}

	private notFound(name: unknown): ForgeError {
		const similar = typeof name === "string" ? this.search.search(name, 3).hits.map((h) => h.name) : [];
		return notFoundError(name, similar, this.registry.size === 0);
	}

	/** Waits for pending changes and background writes (registry, health, audit). */
	async flush(): Promise<void> {
		await this.writes;
		await this.registry.flush();
		await this.health.flush();
	}

	/** Re-checks not started yet are dropped (the next start finds those tools changed and re-checks them). */
	async close(): Promise<void> {
		this.closing = true;
		await this.rechecks.cancel();
		await this.flush();
		await this.runner.dispose();
	}
}

/** A file that kept changing while it was being checked and run. */
function changedOnDisk(name: string, source: string | undefined): ForgeError {
	return new ForgeError("load", `${tsFileOf(name)} kept changing on disk while it was being checked.`, {
		tool: name,
		source,
		hint: "Call it again once the file is saved; to be sure of what runs, re-forge it with forge_tool.",
	});
}

/** All of a forge's tests together may take this many times PI_FORGE_TIMEOUT_MS. */
export const TESTS_BUDGET_FACTOR = 2;
/** The most a model's regular expression or schema may take to check, off pi's main thread. */
const CHECK_BOUND_MS = 2000;

/** Tests run with no one to ask: a capability that needs a grant is refused, as without a UI. */
const TEST_HOST: RunHost = { pi: {}, hasUI: false, notify: () => undefined };
