// The toolbox service: what is forged, in what state, and the three operations on it (forge, use, list).
// It owns the in-memory view of the store; pi wiring and UI read it, and never touch the disk themselves.
import type { ForgeConfig } from "../config.ts";
import { ForgeError, type Result, fail, ok } from "../errors/forge-error.ts";
import { checkSource } from "../forge/check-source.ts";
import type { TakenNames } from "../forge/names.ts";
import { type ForgeRequest, type Forged, type PreviousVersion, runForgePipeline } from "../forge/pipeline.ts";
import { loadTemplate } from "../forge/template.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import { normaliseResult, type ToolOutput } from "../runtime/result.ts";
import type { RunHost, Runner } from "../runtime/runner.ts";
import { forgetValidator, validateArguments } from "../schema/arguments.ts";
import { type Registry, type RegistryEntry, emptyRegistry, entryFromMeta, parseRegistry, serializeRegistry, staleNames } from "../store/registry.ts";
import { hashSource, parseMeta, tsFileOf } from "../store/tool-files.ts";
import { ToolboxStore } from "../store/toolbox-store.ts";
import { deriveEntry } from "./derive.ts";
import { HealthStore, type ToolHealth } from "./health.ts";
import { ToolSearch } from "./search.ts";

export interface ToolView {
	entry: RegistryEntry;
	health?: ToolHealth;
}

export interface OpenReport {
	tools: number;
	broken: string[];
	/** Why the registry was (partly) rebuilt, if it was. */
	rebuilt?: "missing" | "corrupt" | "stale";
	rederived: string[];
}

export type ToolboxEvent =
	| { type: "opened"; report: OpenReport }
	| { type: "forged"; name: string; version: number }
	| { type: "forge-failed"; name?: string; error: ForgeError }
	| { type: "executing"; name: string }
	| { type: "executed"; name: string; ok: boolean; durationMs: number };

export interface UseOptions {
	signal?: AbortSignal;
	host: RunHost;
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

export class Toolbox {
	readonly store: ToolboxStore;
	readonly health: HealthStore;
	private registry: Registry = emptyRegistry();
	private readonly compiled = new Map<string, CompiledTool>();
	private readonly search = new ToolSearch();
	private readonly listeners = new Set<(event: ToolboxEvent) => void>();
	private writes: Promise<unknown> = Promise.resolve();
	private registrySave: Promise<void> | undefined;
	private registryDirty = false;

	constructor(
		readonly config: ForgeConfig,
		readonly runner: Runner,
		private readonly now: () => Date = () => new Date(),
	) {
		this.store = new ToolboxStore(config.toolboxDir);
		this.health = new HealthStore(config.toolboxDir);
	}

	onEvent(listener: (event: ToolboxEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private emit(event: ToolboxEvent): void {
		for (const listener of this.listeners) listener(event);
	}

	/** Reads the registry, re-deriving what is missing, corrupt or stale. Never throws for a broken tool. */
	async open(): Promise<OpenReport> {
		await this.store.ensure();
		await this.store.cleanStaging();
		await this.health.load();
		const [text, onDisk] = await Promise.all([this.store.readRegistry(), this.store.listStamps()]);
		const parsed = parseRegistry(text);
		const rebuilt = text === undefined ? "missing" : parsed === undefined ? "corrupt" : undefined;
		const registry = parsed ?? emptyRegistry();
		const stale = parsed ? staleNames(parsed, onDisk) : [...onDisk.keys()].sort();

		for (const name of stale) {
			if (!onDisk.has(name)) {
				delete registry.tools[name];
				continue;
			}
			const derived = await deriveEntry(name, this.store, this.now(), this.runner.preflight);
			registry.tools[name] = derived.entry;
			if (derived.compiled && derived.source) this.compiled.set(name, { hash: derived.entry.hash, source: derived.source, code: derived.compiled });
		}
		this.registry = registry;
		for (const entry of Object.values(registry.tools)) this.search.upsert(entry);
		if (rebuilt || stale.length > 0) await this.saveRegistry();

		const report: OpenReport = {
			tools: Object.keys(registry.tools).length,
			broken: this.entries().filter((e) => e.status === "broken").map((e) => e.name),
			rebuilt: rebuilt ?? (stale.length > 0 ? "stale" : undefined),
			rederived: stale,
		};
		this.emit({ type: "opened", report });
		return report;
	}

	entries(): RegistryEntry[] {
		return Object.values(this.registry.tools).sort((a, b) => a.name.localeCompare(b.name));
	}

	get(name: string): RegistryEntry | undefined {
		return Object.hasOwn(this.registry.tools, name) ? this.registry.tools[name] : undefined;
	}

	view(name: string): ToolView | undefined {
		const entry = this.get(name);
		return entry && { entry, health: this.health.get(name) };
	}

	/** All tools, or with a query the best matches first; at most `limit`. */
	list(query?: string, limit = 20): { total: number; matched: number; tools: ToolView[] } {
		const all = this.entries();
		if (!query?.trim()) {
			return { total: all.length, matched: all.length, tools: all.slice(0, limit).map((e) => ({ entry: e, health: this.health.get(e.name) })) };
		}
		const { hits, matched } = this.search.search(query, limit);
		const tools = hits.flatMap((hit) => this.view(hit.name) ?? []);
		return { total: all.length, matched, tools };
	}

	/** Forges one tool. Forges of one toolbox run one at a time, in call order. */
	forge(request: ForgeRequest, takenNames: TakenNames): Promise<Result<Forged>> {
		const run = this.writes.then(() => this.forgeNow(request, takenNames));
		this.writes = run.catch(() => undefined);
		return run;
	}

	private async forgeNow(request: ForgeRequest, takenNames: TakenNames): Promise<Result<Forged>> {
		const name = typeof request.name === "string" ? request.name : undefined;
		const previous = name ? await this.previousVersion(name) : undefined;
		let result: Result<Forged>;
		try {
			result = await runForgePipeline(request, { store: this.store, template: loadTemplate(), takenNames, previous, preflight: this.runner.preflight, now: this.now });
		} catch (error) {
			result = fail(new ForgeError("store", `The toolbox could not be written: ${(error as Error).message}`, { tool: name }, { cause: error }));
		}
		if (!result.ok) {
			this.emit({ type: "forge-failed", name, error: result.error });
			return result;
		}
		const forged = result.value;
		const entry = entryFromMeta(forged.meta, forged.stamps);
		this.registry.tools[entry.name] = entry;
		this.compiled.set(entry.name, { hash: entry.hash, source: forged.source, code: forged.compiled });
		this.runner.forget(entry.name);
		forgetValidator(entry.name);
		this.search.upsert(entry);
		this.scheduleRegistrySave();
		this.emit({ type: "forged", name: entry.name, version: entry.version });
		return result;
	}

	/** The live version of a name, for numbering and `createdAt`: its metadata file, else what the registry knows. */
	private async previousVersion(name: string): Promise<PreviousVersion | undefined> {
		const entry = this.get(name);
		if (!entry) return undefined;
		const text = await this.store.readMeta(name).catch(() => undefined);
		const meta = text === undefined ? undefined : parseMeta(text, name);
		if (meta?.ok) return { version: Math.max(meta.value.version, entry.version), createdAt: meta.value.createdAt };
		return entry.version > 0 ? { version: entry.version } : undefined;
	}

	/** Runs a forged tool: resolve, validate the arguments, run it in the runner, normalise what it returned. */
	async use(name: unknown, args: unknown, options: UseOptions): Promise<Result<UseSuccess>> {
		const entry = typeof name === "string" ? this.get(name) : undefined;
		if (!entry) return fail(this.notFound(name));
		if (entry.status === "broken") return fail(await this.brokenError(entry));

		const validated = validateArguments(entry.name, entry.hash, entry.parameters, args);
		if (!validated.ok) return validated;

		const compiled = await this.compiledTool(entry);
		if (!compiled.ok) return compiled;

		this.emit({ type: "executing", name: entry.name });
		const started = performance.now();
		const outcome = await this.runner.run({
			tool: { name: entry.name, hash: entry.hash, file: tsFileOf(entry.name), path: this.store.tsPath(entry.name), code: compiled.value.code },
			params: validated.value,
			cwd: this.config.cwd,
			timeoutMs: this.config.timeoutMs,
			signal: options.signal,
			host: options.host,
		});
		const durationMs = performance.now() - started;
		this.health.record(entry.name, { ok: outcome.ok, durationMs, at: this.now(), error: outcome.ok ? undefined : outcome.error.toData() });
		this.emit({ type: "executed", name: entry.name, ok: outcome.ok, durationMs });
		if (!outcome.ok) return fail(outcome.error.with({ tool: entry.name, source: compiled.value.source, args: validated.value }));
		return ok({ ...normaliseResult(outcome.value), durationMs, version: entry.version });
	}

	/** The compiled code of a tool: from the forge or the derivation, else compiled now (and checked again). */
	private async compiledTool(entry: RegistryEntry): Promise<Result<CompiledTool>> {
		const cached = this.compiled.get(entry.name);
		if (cached?.hash === entry.hash) return ok(cached);
		const source = await this.store.readSource(entry.name);
		if (source === undefined || hashSource(source) !== entry.hash) {
			return fail(new ForgeError("load", `${tsFileOf(entry.name)} changed on disk since it was checked.`, {
				tool: entry.name,
				source,
				hint: "It is re-checked at the next start (or re-forge it now with forge_tool).",
			}));
		}
		const checked = await checkSource(source, tsFileOf(entry.name));
		if (!checked.ok) return fail(checked.error.with({ tool: entry.name }));
		const compiled = { hash: entry.hash, source, code: checked.value.cjs };
		this.compiled.set(entry.name, compiled);
		return ok(compiled);
	}

	private notFound(name: unknown): ForgeError {
		const shown = typeof name === "string" ? name : JSON.stringify(name);
		const similar = typeof name === "string" ? this.search.search(name, 3).hits.map((h) => h.name) : [];
		const known = this.entries().length;
		return new ForgeError("not-found", `There is no forged tool named '${shown}'.`, {
			notes: similar.length ? [`Similar tools: ${similar.join(", ")}`] : [],
			hint: known
				? "Call list_forge (with a query) to find the right tool, or forge_tool to create it."
				: "The toolbox is empty: create the tool with forge_tool first.",
		});
	}

	private async brokenError(entry: RegistryEntry): Promise<ForgeError> {
		const source = await this.store.readSource(entry.name);
		const base = entry.error ?? { phase: "broken" as const, message: "This tool is marked broken." };
		return ForgeError.fromData(base, { tool: entry.name, source }).with({
			hint: `'${entry.name}' is broken and was not run. Repair it with forge_tool (same name), then call it again.`,
		});
	}

	private async saveRegistry(): Promise<void> {
		await this.store.writeRegistry(serializeRegistry(this.registry));
	}

	/**
	 * The registry is derived (rebuilt from the tools' files when stale), so a forge does not wait for it:
	 * writes are coalesced in the background, at most one at a time, always of the latest state.
	 */
	private scheduleRegistrySave(): void {
		this.registryDirty = true;
		this.registrySave ??= (async () => {
			await Promise.resolve();
			while (this.registryDirty) {
				this.registryDirty = false;
				await this.saveRegistry().catch(() => undefined);
			}
			this.registrySave = undefined;
		})();
	}

	/** Waits for pending forges and background writes (registry, health). */
	async flush(): Promise<void> {
		await this.writes;
		while (this.registrySave) await this.registrySave;
		await this.health.flush();
	}

	async close(): Promise<void> {
		await this.flush();
		await this.runner.dispose();
	}
}
