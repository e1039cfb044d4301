// The two toolboxes a project sees as one: its own, and the user toolbox (`<agent dir>/forge/extensions/`, shared by
// every project). A name resolves to the project's tool first; listings merge both and say each tool's scope; a forge
// goes into the scope it names; promote and demote move a tool, with its history, from one to the other (move-tool.ts).
// Both run their tools in one runner: the user toolbox's under keys of their own, so namesakes never share code.
import type { ForgeConfig } from "../contract/config.ts";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import type { TakenNames } from "../contract/names.ts";
import type { TestVerdict } from "../contract/tool-tests.ts";
import type { RunHost } from "../run/runner.ts";
import type { ToolHealth } from "../store/health.ts";
import type { HistoryEntry } from "../store/history.ts";
import type { RegistryEntry } from "../store/registry.ts";
import { ToolboxWatcher } from "../store/watcher.ts";
import type { ToolVerdict } from "./check.ts";
import type { ToolboxStores } from "./context.ts";
import type { Forged, ForgeRequest } from "./forge-pipeline.ts";
import { notFoundError } from "./messages.ts";
import { type Moved, moveTool, noUserToolbox } from "./move-tool.ts";
import { ToolSearch } from "./search.ts";
import type { Settled, Toolbox, ToolboxEvent, ToolState, ToolView, UseOptions, UseSuccess } from "./toolbox.ts";

export type { Moved } from "./move-tool.ts";
export { userRunner } from "./user-runner.ts";

export type Scope = "project" | "user";
export const SCOPES: readonly Scope[] = ["project", "user"];

/** A toolbox with the scope it serves and its stores (a move copies history between stores). */
export interface ScopedToolbox {
	scope: Scope;
	toolbox: Toolbox;
	stores: ToolboxStores;
}

export interface ScopedView extends ToolView {
	scope: Scope;
	/** A project tool's namesake in the user toolbox, which the project's tool hides. */
	hides?: RegistryEntry;
}

/** How a person reads a scope: "the project toolbox", "the user toolbox". */
export const scopeLabel = (scope: Scope) => `the ${scope} toolbox`;

export class Toolboxes {
	readonly config: ForgeConfig;
	/** A search over both toolboxes' tools in use, built at the first query after a change. */
	private index: ToolSearch | undefined;

	constructor(
		readonly project: ScopedToolbox,
		readonly user?: ScopedToolbox,
	) {
		this.config = project.toolbox.config;
		this.onEvent((event) => {
			if (event.type !== "executing" && event.type !== "executed") this.index = undefined;
		});
	}

	all(): ScopedToolbox[] {
		return this.user ? [this.project, this.user] : [this.project];
	}

	of(scope: Scope): ScopedToolbox | undefined {
		return scope === "project" ? this.project : this.user;
	}

	onEvent(listener: (event: ToolboxEvent, scope: Scope) => void): () => void {
		const off = this.all().map(({ toolbox, scope }) => toolbox.onEvent((event) => listener(event, scope)));
		return () => {
			for (const unsubscribe of off) unsubscribe();
		};
	}

	/** The toolbox a tool of this name is used from, as the registries know it now: the project's first. */
	owner(name: string): (ScopedToolbox & { entry: RegistryEntry }) | undefined {
		for (const scoped of this.all()) {
			const entry = scoped.toolbox.get(name);
			if (entry) return { ...scoped, entry };
		}
		return undefined;
	}

	/** The toolbox that answers for `name`: its owner; else one whose history knows it; else the project's. */
	private async holder(name: string): Promise<Toolbox> {
		const owner = this.owner(name);
		if (owner) return owner.toolbox;
		for (const { toolbox } of this.all()) if ((await toolbox.versions(name)).length) return toolbox;
		return this.project.toolbox;
	}

	get(name: string): RegistryEntry | undefined {
		return this.owner(name)?.entry;
	}

	scopeOf(name: string): Scope | undefined {
		return this.owner(name)?.scope;
	}

	/** Every tool in use: the project's, then the user toolbox's that no project tool hides. */
	entries(): readonly RegistryEntry[] {
		const project = this.project.toolbox.entries();
		if (!this.user) return project;
		return [...project, ...this.user.toolbox.entries().filter((entry) => !this.project.toolbox.get(entry.name))];
	}

	state(entry: RegistryEntry): ToolState {
		return (this.owner(entry.name)?.toolbox ?? this.project.toolbox).state(entry);
	}

	healthOf(name: string): ToolHealth | undefined {
		return this.owner(name)?.toolbox.healthOf(name);
	}

	view(name: string): ScopedView | undefined {
		const owner = this.owner(name);
		const view = owner?.toolbox.view(name);
		if (!owner || !view) return undefined;
		const hides = owner.scope === "project" ? this.user?.toolbox.get(name) : undefined;
		return { ...view, scope: owner.scope, ...(hides ? { hides } : {}) };
	}

	/** All tools in use, or with a query the best matches of both toolboxes first; at most `limit`. */
	list(query?: string, limit = 20): { total: number; matched: number; tools: ScopedView[] } {
		const all = this.entries();
		const views = (names: string[]) => names.flatMap((name) => this.view(name) ?? []);
		if (!query?.trim())
			return { total: all.length, matched: all.length, tools: views(all.slice(0, limit).map((e) => e.name)) };
		if (!this.user?.toolbox.entries().length) {
			const listed = this.project.toolbox.list(query, limit);
			return { ...listed, tools: views(listed.tools.map((t) => t.entry.name)) };
		}
		if (!this.index) {
			this.index = new ToolSearch();
			for (const entry of all) this.index.upsert(entry);
		}
		const { hits, matched } = this.index.search(query, limit);
		return { total: all.length, matched, tools: views(hits.map((hit) => hit.name)) };
	}

	/** The tools in use whose source calls `name` through `pi.useTool`. */
	callersOf(name: string): string[] {
		const project = this.project.toolbox.callersOf(name);
		const user = this.user?.toolbox.callersOf(name).filter((caller) => !this.project.toolbox.get(caller)) ?? [];
		return [...new Set([...project, ...user])].sort();
	}

	/** The tool of `name` as its files are now (each toolbox stamp-checked, the project's first), with its toolbox. */
	async find(name: string): Promise<(ScopedToolbox & { entry: RegistryEntry }) | undefined> {
		for (const scoped of this.all()) {
			const entry = await scoped.toolbox.fresh(name);
			if (entry) return { ...scoped, entry };
		}
		return undefined;
	}

	/** The toolbox whose tool `name` runs (for `pi.useTool`). */
	async resolve(name: string): Promise<Toolbox | undefined> {
		return (await this.find(name))?.toolbox;
	}

	async fresh(name: string): Promise<RegistryEntry | undefined> {
		return (await this.find(name))?.entry;
	}

	async settle(boundMs?: number): Promise<Settled> {
		const settled = await Promise.all(this.all().map(({ toolbox }) => toolbox.settle(boundMs)));
		return { done: settled.every((s) => s.done), rechecking: settled.reduce((sum, s) => sum + s.rechecking, 0) };
	}

	/** Stamp-checks `names` (the tools about to be shown); true when one of them changed. */
	async refresh(names: readonly string[]): Promise<boolean> {
		const changed = await Promise.all(this.all().map(({ toolbox }) => toolbox.refresh(names)));
		return changed.some(Boolean);
	}

	useTestHost(host: (name: string) => RunHost): void {
		for (const { toolbox } of this.all()) toolbox.useTestHost(host);
	}

	/** A forge into `scope` (default the project's); a scope that is not one, or no user toolbox, is an error. */
	async forge(
		request: ForgeRequest,
		takenNames: TakenNames,
		options: { signal?: AbortSignal; scope?: unknown } = {},
	): Promise<Result<Forged & { scope: Scope }>> {
		const scope = options.scope ?? "project";
		if (!SCOPES.includes(scope as Scope))
			return fail(
				new ForgeError("arguments", `scope is "project" (the default) or "user", not ${JSON.stringify(scope)}.`, {
					hint: 'Leave scope out for this project, or pass "user" for a tool every project sees.',
				}),
			);
		const target = this.of(scope as Scope);
		if (!target) return fail(noUserToolbox(this.config));
		const result = await target.toolbox.forge(request, takenNames, { signal: options.signal });
		return result.ok ? ok({ ...result.value, scope: target.scope }) : result;
	}

	/** Runs the tool of `name` (the project's first); an unknown name names the closest of both toolboxes. */
	async use(name: unknown, args: unknown, options: UseOptions): Promise<Result<UseSuccess>> {
		const found = typeof name === "string" ? await this.find(name) : undefined;
		if (found?.scope === "project") return found.toolbox.use(name, args, options);
		if (found) {
			// A forge without a scope goes into the project: the repair of a user tool must say where it lives.
			const result = await found.toolbox.use(name, args, options);
			if (result.ok || result.error.phase === "permission" || result.error.phase === "not-found") return result;
			const note = `'${found.entry.name}' is from the user toolbox: to repair it there (for every project), pass scope "user" to forge_tool.`;
			return fail(result.error.with({ notes: [...(result.error.details.notes ?? []), note] }));
		}
		const similar = typeof name === "string" ? this.list(name.replace(/[-_]/g, " "), 3).tools : [];
		return fail(
			notFoundError(
				name,
				similar.map((view) => view.entry.name),
				this.entries().length === 0,
			),
		);
	}

	/** The `.bak` of the last re-forge in `scope` (default: the toolbox the name is used from). */
	async readBackup(name: string, scope?: Scope): Promise<string | undefined> {
		return (scope ? this.of(scope)?.toolbox : await this.holder(name))?.readBackup(name);
	}

	async versions(name: string): Promise<HistoryEntry[]> {
		return (await this.holder(name)).versions(name);
	}

	async diff(name: string, from: number, to: number): Promise<Result<string>> {
		return (await this.holder(name)).diff(name, from, to);
	}

	async rollback(name: string, version: number): Promise<Result<Forged>> {
		return (await this.holder(name)).rollback(name, version);
	}

	async remove(name: string): Promise<Result<RegistryEntry>> {
		return (await this.holder(name)).remove(name);
	}

	async runTests(name: string): Promise<Result<TestVerdict[]>> {
		return (await this.holder(name)).runTests(name);
	}

	async readSource(name: string): Promise<string | undefined> {
		return (await this.holder(name)).readSource(name);
	}

	async readTool(name: string) {
		return (await this.holder(name)).readTool(name);
	}

	toolPath(name: string): string {
		return (this.owner(name)?.toolbox ?? this.project.toolbox).toolPath(name);
	}

	/** Checks every tool of both toolboxes (or `names`, wherever they are), each verdict with its scope. */
	async check(asked?: string[]): Promise<Array<ToolVerdict & { scope: Scope }>> {
		const names = asked?.length ? asked : undefined;
		const verdicts = await Promise.all(
			this.all().map(async ({ toolbox, scope }) => {
				const own = names?.filter((name) => toolbox.get(name));
				if (own?.length === 0) return [];
				return (await toolbox.check(own)).map((verdict) => ({ ...verdict, scope }));
			}),
		);
		const found = verdicts.flat();
		const unknown = (names ?? []).filter((name) => !found.some((v) => v.name === name));
		const missing = unknown.length ? await this.project.toolbox.check(unknown) : [];
		return [...found, ...missing.map((verdict) => ({ ...verdict, scope: "project" as const }))];
	}

	/** Moves a tool with its history from the project toolbox to the user toolbox. */
	promote(name: string, options: { force?: boolean } = {}): Promise<Result<Moved>> {
		if (!this.user) return Promise.resolve(fail(noUserToolbox(this.config)));
		return moveTool(name, this.project, this.user, options);
	}

	/** Moves a tool with its history from the user toolbox back to the project toolbox. */
	demote(name: string, options: { force?: boolean } = {}): Promise<Result<Moved>> {
		if (!this.user) return Promise.resolve(fail(noUserToolbox(this.config)));
		return moveTool(name, this.user, this.project, options);
	}

	/** Live reload of both folders; `stop` ends it. */
	watch(): { stop(): Promise<void> } {
		const watchers = this.all().map(({ toolbox }) => new ToolboxWatcher(toolbox));
		for (const watcher of watchers) void watcher.start().catch(() => undefined);
		return { stop: async () => void (await Promise.all(watchers.map((watcher) => watcher.stop()))) };
	}

	/** Closes the user toolbox, then the project's (which stops the runner they share). */
	async close(): Promise<void> {
		await this.user?.toolbox.close().catch(() => undefined);
		await this.project.toolbox.close();
	}
}
