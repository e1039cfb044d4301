// The toolbox: what is forged, in what state, and every operation on it (forge, use, list, roll back, remove, reload).
// A facade over parts with one job each — reconcile (open, keep in step with the files), changes (the write queue),
// invoke (the call path), the tool cache, history queries — working on the stores it is given. pi wiring, the UI and
// the command line go through it and never touch the disk themselves. Changes are serialised in this process and,
// through the toolbox lock, across processes.
import type { ForgeConfig } from "../contract/config.ts";
import type { Result } from "../contract/forge-error.ts";
import type { TakenNames } from "../contract/names.ts";
import type { ToolMeta } from "../contract/tool-files.ts";
import type { TestVerdict } from "../contract/tool-tests.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import type { RunHost, Runner } from "../run/runner.ts";
import type { ToolHealth } from "../store/health.ts";
import type { HistoryEntry } from "../store/history.ts";
import type { RegistryEntry } from "../store/registry.ts";
import { loadTemplate } from "../store/template-file.ts";
import type { ToolFiles } from "../store/toolbox-store.ts";
import { Changes } from "./changes.ts";
import { checkToolbox, type ToolVerdict } from "./check.ts";
import { type OpenReport, ToolboxContext, type ToolboxEvent, type ToolboxStores } from "./context.ts";
import type { Forged, ForgeRequest } from "./forge-pipeline.ts";
import { HistoryQueries } from "./history-queries.ts";
import { Invoke, type UseOptions, type UseSuccess } from "./invoke.ts";
import { Reconciler, type Settled } from "./reconcile.ts";
import { TestCases } from "./test-cases.ts";

export type { OpenReport, ToolboxEvent, ToolboxStores } from "./context.ts";
export type { UseOptions, UseSuccess } from "./invoke.ts";
export { COMPARE_AFTER_MS, RECHECK_CONCURRENCY, SETTLE_BOUND_MS, type Settled } from "./reconcile.ts";
export { TESTS_BUDGET_FACTOR } from "./test-cases.ts";

export type ToolState = "ok" | "broken" | "quarantined";

export interface ToolView {
	entry: RegistryEntry;
	health?: ToolHealth;
	state: ToolState;
}

/** The parts a toolbox is made of besides its stores; each defaults to the forge's own. */
export interface ToolboxOptions {
	now?: () => Date;
	/** The template a forge renders a tool's file from. */
	template?: () => string;
}

export class Toolbox {
	private readonly box: ToolboxContext;
	private readonly reconciler: Reconciler;
	private readonly changes: Changes;
	private readonly invoke: Invoke;
	private readonly tests: TestCases;
	private readonly past: HistoryQueries;

	constructor(
		readonly config: ForgeConfig,
		readonly runner: Runner,
		stores: ToolboxStores,
		options: ToolboxOptions = {},
	) {
		this.box = new ToolboxContext(config, runner, stores, options.now ?? (() => new Date()));
		this.reconciler = new Reconciler(this.box);
		this.tests = new TestCases(this.box);
		this.changes = new Changes(this.box, this.reconciler, this.tests.candidate, options.template ?? loadTemplate);
		this.invoke = new Invoke(this.box, this.reconciler, this.changes, this.tests);
		this.past = new HistoryQueries(this.box);
	}

	onEvent(listener: (event: ToolboxEvent) => void): () => void {
		return this.box.onEvent(listener);
	}

	/**
	 * Finishes interrupted changes, reads the registry and re-derives what is missing, corrupt or stale. Never throws for
	 * a broken tool. `readOnly` (the command line's list, show, check…) derives the same view in memory and writes nothing.
	 */
	open(options: { verify?: "now" | "background"; readOnly?: boolean } = {}): Promise<OpenReport> {
		return this.reconciler.open(options);
	}

	/** Resolves when the comparison of the files with the registry that followed a quick open is done, re-checks included. */
	verified(): Promise<unknown> {
		return this.reconciler.verified();
	}

	entries(): readonly RegistryEntry[] {
		return this.box.registry.entries();
	}

	/**
	 * The host tests run with from now on (a forge's and `/forge test`'s): the surface's, so that a tool's tests may
	 * call the tools it calls. Without one, tests run with no host API.
	 */
	useTestHost(host: (name: string) => RunHost): void {
		this.tests.host = host;
	}

	/** Ends the worker that ran calls under `key` (a top-level call's nested calls of a tool, once it is over). */
	releaseWorker(key: string): void {
		this.runner.forget(key);
	}

	/** The tools whose source calls `name` through `pi.useTool`, by name. */
	callersOf(name: string): string[] {
		return this.entries()
			.filter((entry) => entry.calls?.includes(name))
			.map((entry) => entry.name)
			.sort();
	}

	get(name: string): RegistryEntry | undefined {
		return this.box.registry.get(name);
	}

	/** broken: it cannot run; quarantined: it ran and failed `quarantineAfter` times in a row (not offered directly). */
	state(entry: RegistryEntry): ToolState {
		if (entry.status === "broken") return "broken";
		const failures = this.box.health.get(entry.name)?.consecutiveFailures ?? 0;
		return failures >= this.config.quarantineAfter ? "quarantined" : "ok";
	}

	/** Calls, failures and last use of a tool. */
	healthOf(name: string): ToolHealth | undefined {
		return this.box.health.get(name);
	}

	view(name: string): ToolView | undefined {
		const entry = this.get(name);
		return entry && { entry, health: this.box.health.get(name), state: this.state(entry) };
	}

	/** All tools, or with a query the best matches first; at most `limit`. */
	list(query?: string, limit = 20): { total: number; matched: number; tools: ToolView[] } {
		const all = this.entries();
		if (!query?.trim()) {
			return { total: all.length, matched: all.length, tools: all.slice(0, limit).map((e) => this.view(e.name)!) };
		}
		const { hits, matched } = this.box.cache.search.search(query, limit);
		return { total: this.box.registry.size, matched, tools: hits.flatMap((hit) => this.view(hit.name) ?? []) };
	}

	forge(
		request: ForgeRequest,
		takenNames: TakenNames,
		options: { signal?: AbortSignal } = {},
	): Promise<Result<Forged>> {
		return this.changes.forge(request, takenNames, options);
	}

	/** Makes an earlier version current again (as a new version), after the same checks as a forge. */
	rollback(name: string, version: number): Promise<Result<Forged>> {
		return this.changes.rollback(name, version);
	}

	/** Brings a tool from another toolbox or an exported package: same checks as a forge; its version continues ours. */
	importTool(source: string, metaText: string, takenNames: TakenNames): Promise<Result<Forged>> {
		return this.changes.importTool(source, metaText, takenNames);
	}

	/** Removes a tool: its files go (its history stays), and it is no longer offered. */
	remove(name: string): Promise<Result<RegistryEntry>> {
		return this.changes.remove(name);
	}

	/** Re-reads one tool's files after they changed on disk (a hand edit, another process); ignores our own writes. */
	reload(name: string): Promise<RegistryEntry | undefined> {
		return this.reconciler.reload(name);
	}

	/** A change to a tool's files seen by the watcher: re-checked after `quietMs` without another, or when someone asks. */
	noticed(name: string, quietMs: number): void {
		this.reconciler.noticed(name, quietMs);
	}

	/** Compares every tool with its files again (after a change the watcher could not name). */
	rescan(): void {
		this.reconciler.rescan();
	}

	/** The entry of `name` as its files are now (re-checked first when they changed since). */
	fresh(name: string): Promise<RegistryEntry | undefined> {
		return this.reconciler.fresh(name);
	}

	/** Stamp-checks `names` (the tools about to be shown); true when one of them changed. */
	async refresh(names: readonly string[]): Promise<boolean> {
		const before = names.map((name) => this.get(name));
		const after = await Promise.all(names.map((name) => this.fresh(name)));
		return after.some((entry, i) => entry !== before[i]);
	}

	/** Waits, for at most `boundMs`, until what is known to have changed on disk is taken in. */
	settle(boundMs?: number): Promise<Settled> {
		return this.reconciler.settle(boundMs);
	}

	versions(name: string): Promise<HistoryEntry[]> {
		return this.past.versions(name);
	}

	/** A unified diff between two versions of a tool (stored, or the live one). */
	diff(name: string, from: number, to: number): Promise<Result<string>> {
		return this.past.diff(name, from, to);
	}

	/** Runs tests against code that is not the live tool's: a candidate, or a file `check` has just verified. */
	testCandidate(code: CompiledCode, meta: ToolMeta): Promise<TestVerdict[]> {
		return this.tests.candidate(code, meta);
	}

	/** Checks every tool (or `names`) as the forge would, changing nothing (`agent-forge check`, `/forge`). */
	check(names?: string[]): Promise<ToolVerdict[]> {
		const preflight = this.runner.preflightBatch ?? this.runner.preflight;
		return checkToolbox({ store: this.box.store, preflight, runTests: this.tests.candidate }, names);
	}

	/** Runs a live tool's tests on demand (`/forge test`, `agent-forge test`). */
	runTests(name: string): Promise<Result<TestVerdict[]>> {
		return this.invoke.runTests(name);
	}

	/** Runs a forged tool: resolve, validate the arguments, run it in the runner, normalise what it returned. */
	use(name: unknown, args: unknown, options: UseOptions): Promise<Result<UseSuccess>> {
		return this.invoke.use(name, args, options);
	}

	/** A tool's metadata as it is now: its file, or what a read-only open derived for a hand edit and did not write. */
	readMeta(name: string): Promise<string | undefined> {
		return this.reconciler.readMeta(name);
	}

	/** A tool's source file as it is now. */
	readSource(name: string): Promise<string | undefined> {
		return this.box.store.readSource(name);
	}

	/** Both files of a tool as they are now, the metadata as `readMeta` gives it. */
	async readTool(name: string): Promise<Pick<ToolFiles, "source" | "metaText">> {
		const [source, metaText] = await Promise.all([this.readSource(name), this.readMeta(name)]);
		return { source, metaText };
	}

	/** The version the last re-forge replaced (`forge-<name>.ts.bak`), if there is one. */
	readBackup(name: string): Promise<string | undefined> {
		return this.box.store.readBackup(name);
	}

	/** Where a tool's source file is. */
	toolPath(name: string): string {
		return this.box.store.tsPath(name);
	}

	/** Waits for pending changes and background writes (registry, health, audit). */
	async flush(): Promise<void> {
		await this.box.drained();
		await this.box.registry.flush();
		await this.box.health.flush();
	}

	/** Re-checks not started yet are dropped (the next start finds those tools changed and re-checks them). */
	async close(): Promise<void> {
		this.box.closing = true;
		await this.reconciler.cancel();
		await this.flush();
		await this.runner.dispose();
	}
}
