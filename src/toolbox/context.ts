// What the toolbox's parts share: the stores they are given, the in-memory registry and tool cache, the events
// listeners hear, the write queue, and whether the toolbox is read-only or closing. Built once by the facade.

import type { ForgeConfig } from "../contract/config.ts";
import type { ForgeError } from "../contract/forge-error.ts";
import type { Runner } from "../run/runner.ts";
import type { CompileCache } from "../store/compile-cache.ts";
import type { HealthStore } from "../store/health.ts";
import type { ToolHistory } from "../store/history.ts";
import type { RegistryEntry } from "../store/registry.ts";
import type { ToolboxStore } from "../store/toolbox-store.ts";
import { asLockHolder } from "./lock-guard.ts";
import { notFoundError } from "./messages.ts";
import { RegistryKeeper } from "./registry-keeper.ts";
import { ToolCache } from "./tool-cache.ts";

/** The stores a toolbox works on, made at the composition root (see open-toolbox.ts). */
export interface ToolboxStores {
	store: ToolboxStore;
	health: HealthStore;
	history: ToolHistory;
	compileCache: CompileCache;
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

/** The rejection of a change asked of a toolbox opened read-only. */
export const readOnlyError = () => new Error("This toolbox was opened read-only: it cannot be changed.");

export class ToolboxContext {
	readonly store: ToolboxStore;
	readonly health: HealthStore;
	readonly history: ToolHistory;
	readonly registry: RegistryKeeper;
	readonly cache: ToolCache;
	/** Opened with `readOnly`: nothing is ever written into the toolbox folder. */
	readOnly = false;
	/** Being closed: re-checks not started yet are dropped, no new comparison starts. */
	closing = false;
	private readonly listeners = new Set<(event: ToolboxEvent) => void>();
	private writes: Promise<unknown> = Promise.resolve();

	constructor(
		readonly config: ForgeConfig,
		readonly runner: Runner,
		stores: ToolboxStores,
		readonly now: () => Date,
	) {
		this.store = stores.store;
		this.health = stores.health;
		this.history = stores.history;
		this.registry = new RegistryKeeper(stores.store);
		this.cache = new ToolCache(runner, stores, this.registry, () => !this.readOnly);
	}

	onEvent(listener: (event: ToolboxEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	emit(event: ToolboxEvent): void {
		for (const listener of this.listeners) listener(event);
	}

	/**
	 * One change at a time in this process; across processes, the toolbox lock. `work` runs as the lock's holder, so
	 * no tool code runs for it (lock-guard.ts).
	 */
	change<T>(work: () => Promise<T>): Promise<T> {
		if (this.readOnly) return Promise.reject(readOnlyError());
		const run = this.writes.then(() => this.store.locked(() => asLockHolder(work)));
		this.writes = run.catch(() => undefined);
		return run;
	}

	/**
	 * `change`, answering as soon as `work` has when it handed something to `later` (a commit's last steps, its
	 * records): that still runs with the lock held, and the next change waits for it. A change that handed nothing on
	 * (a refused one) answers once the lock is let go, as `change` does.
	 */
	changeThenSettle<T>(work: (later: (rest: Promise<unknown>) => void) => Promise<T>): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			this.change(async () => {
				const rest: Promise<unknown>[] = [];
				const value = await work((pending) => rest.push(pending));
				if (rest.length > 0) resolve(value);
				await Promise.allSettled(rest);
				return value;
			}).then(resolve, reject);
		});
	}

	/** There is no tool of that name: the error names the closest ones. */
	notFound(name: unknown): ForgeError {
		const similar = typeof name === "string" ? this.cache.search.search(name, 3).hits.map((h) => h.name) : [];
		return notFoundError(name, similar, this.registry.size === 0);
	}

	/** Waits for the changes queued so far. */
	async drained(): Promise<void> {
		await this.writes;
	}
}
