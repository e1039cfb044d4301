// What the toolbox keeps about its tools besides the registry: each tool's compiled code (in memory, and on disk by
// hash), the runner's loaded module, the argument validator, the search index. `forget(name)` drops all of it at once.
import { fail, ok, type Result } from "../contract/forge-error.ts";
import type { ModuleShape } from "../contract/module-shape.ts";
import { hashSource, tsFileOf } from "../contract/tool-files.ts";
import { checkSource } from "../forge/check-source.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import type { Runner } from "../run/runner.ts";
import { createArgumentValidators } from "../schema/arguments.ts";
import type { CompileCache } from "../store/compile-cache.ts";
import type { RegistryEntry } from "../store/registry.ts";
import type { ToolboxStore } from "../store/toolbox-store.ts";
import type { RegistryKeeper } from "./registry-keeper.ts";
import { ToolSearch } from "./search.ts";

export interface CompiledTool {
	hash: string;
	source: string;
	code: CompiledCode;
}

export class ToolCache {
	private readonly compiled = new Map<string, CompiledTool>();
	/** Each tool's compiled argument validator (by name and hash). */
	readonly validators = createArgumentValidators();
	/** Built at the first query, not at start: a large toolbox must not slow pi's start. */
	private searchIndex: ToolSearch | undefined;

	constructor(
		private readonly runner: Pick<Runner, "forget">,
		/** The tools' sources, and their compiled code on disk. */
		private readonly stores: { store: Pick<ToolboxStore, "readSource">; compileCache: CompileCache },
		private readonly registry: RegistryKeeper,
		/** A read-only toolbox writes no compiled code to disk. */
		private readonly writable: () => boolean,
	) {}

	get search(): ToolSearch {
		if (!this.searchIndex) {
			this.searchIndex = new ToolSearch();
			for (const entry of this.registry.entries()) this.searchIndex.upsert(entry);
		}
		return this.searchIndex;
	}

	/** Drops what is kept about a tool's code: its compiled code, the runner's module, its argument validator. */
	forget(name: string): void {
		this.compiled.delete(name);
		this.runner.forget(name);
		this.validators.forget(name);
	}

	/** After a change of `name`: the old code forgotten, the new (when known) kept, the search index in step. */
	changed(name: string, entry: RegistryEntry | undefined, compiled?: CompiledTool): void {
		this.forget(name);
		if (compiled) this.compiled.set(name, compiled);
		this.index(name, entry);
	}

	/** Keeps the compiled code of a tool checked at open (nothing older to forget). */
	keep(name: string, compiled: CompiledTool): void {
		this.compiled.set(name, compiled);
	}

	/** Keeps the search index (if it exists yet) in step with a change. */
	index(name: string, entry?: RegistryEntry): void {
		if (!this.searchIndex) return;
		if (entry) this.searchIndex.upsert(entry);
		else this.searchIndex.remove(name);
	}

	/** Writes compiled code (and the shape its preflight found) to the disk cache, unless read-only. */
	async store(hash: string, code: CompiledCode, shape?: ModuleShape): Promise<void> {
		if (this.writable()) await this.stores.compileCache.put(hash, code, shape);
	}

	/** Compiled code already known to pass the checks, with its shape, by source hash. */
	checked(hash: string): Promise<{ code: CompiledCode; shape?: ModuleShape } | undefined> {
		return this.stores.compileCache.getChecked(hash);
	}

	/** The compiled code of a tool: from memory, the disk cache, else compiled now (and checked again); "changed" when the file is not the one checked. */
	async compiledTool(entry: RegistryEntry): Promise<Result<CompiledTool> | "changed"> {
		const cached = this.compiled.get(entry.name);
		if (cached?.hash === entry.hash) return ok(cached);
		const [source, fromDisk] = await Promise.all([
			this.stores.store.readSource(entry.name),
			this.stores.compileCache.get(entry.hash),
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
		await this.store(entry.hash, compiled.code);
		return ok(compiled);
	}
}
