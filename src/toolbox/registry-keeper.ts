// The in-memory registry and its file. Saves run in the background, coalesced, under the toolbox lock, and merge
// this process's changes into what is on disk — so two pi processes forging into one toolbox lose nothing.
import {
	emptyRegistry,
	parseRegistry,
	type Registry,
	type RegistryEntry,
	serializeRegistry,
} from "../store/registry.ts";
import type { ToolboxStore } from "../store/toolbox-store.ts";

/** A burst of forges is saved once: the save waits this long after the last change (and at most MAX_DELAY_MS). */
export const SAVE_DELAY_MS = 100;
const MAX_DELAY_MS = 1_000;

export class RegistryKeeper {
	private registry: Registry = emptyRegistry();
	/** Entries sorted by name, kept until the next change (listing must not sort 10,000 entries per query). */
	private sorted: RegistryEntry[] | undefined;
	/** Names this process changed (set or deleted) since its last save. */
	private readonly dirty = new Set<string>();
	private saving: Promise<void> | undefined;
	private pendingSave = false;
	private lastChange = 0;
	private flushing = false;
	/** Saves wait for this: a bulk re-check is saved once after it, not every second while it runs. */
	private held: Promise<unknown> = Promise.resolve();

	constructor(private readonly store: ToolboxStore) {}

	replaceAll(registry: Registry): void {
		this.registry = registry;
		this.sorted = undefined;
	}

	get(name: string): RegistryEntry | undefined {
		return Object.hasOwn(this.registry.tools, name) ? this.registry.tools[name] : undefined;
	}

	entries(): readonly RegistryEntry[] {
		this.sorted ??= Object.values(this.registry.tools).sort((a, b) =>
			a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
		);
		return this.sorted;
	}

	get size(): number {
		return this.entries().length;
	}

	set(entry: RegistryEntry): void {
		this.sorted = undefined;
		this.registry.tools[entry.name] = entry;
		this.dirty.add(entry.name);
		this.scheduleSave();
	}

	delete(name: string): void {
		this.sorted = undefined;
		delete this.registry.tools[name];
		this.dirty.add(name);
		this.scheduleSave();
	}

	/** Writes the whole registry now (start-up, with the toolbox lock already held). */
	async writeAll(): Promise<void> {
		this.dirty.clear();
		await this.store.registryLocked(() => this.store.writeRegistry(serializeRegistry(this.registry)));
	}

	/** Holds saves until `until` settles (changes made meanwhile are saved then). */
	holdSaves(until: Promise<unknown>): void {
		this.held = until.catch(() => undefined);
	}

	private scheduleSave(): void {
		this.pendingSave = true;
		this.lastChange = Date.now();
		this.saving ??= (async () => {
			const first = Date.now();
			while (this.pendingSave) {
				// Quiet for SAVE_DELAY_MS (or waited MAX_DELAY_MS): then save everything changed so far.
				while (
					!this.flushing &&
					Date.now() - this.lastChange < SAVE_DELAY_MS &&
					Date.now() - first < MAX_DELAY_MS
				) {
					await new Promise((resolve) => setTimeout(resolve, SAVE_DELAY_MS));
				}
				await this.held;
				this.pendingSave = false;
				await this.store.registryLocked(() => this.mergeAndWrite()).catch(() => undefined);
			}
			this.saving = undefined;
		})();
	}

	/** Our entries for the names we changed, everything else as another process last wrote it. */
	private async mergeAndWrite(): Promise<void> {
		const changed = [...this.dirty];
		this.dirty.clear();
		try {
			const onDisk = parseRegistry(await this.store.readRegistry()) ?? emptyRegistry();
			for (const name of changed) {
				const entry = this.get(name);
				if (entry) onDisk.tools[name] = entry;
				else delete onDisk.tools[name];
			}
			await this.store.writeRegistry(serializeRegistry(onDisk));
		} catch (error) {
			for (const name of changed) this.dirty.add(name);
			throw error;
		}
	}

	/** Saves what is pending now, without the debounce. */
	async flush(): Promise<void> {
		this.flushing = true;
		try {
			while (this.saving) await this.saving;
		} finally {
			this.flushing = false;
		}
	}
}
