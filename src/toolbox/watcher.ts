// Live reload: watches the toolbox folder (chokidar) and re-reads a tool whose files changed — a hand edit, another
// pi process's forge. Bursts are debounced per tool; the forge's own writes are recognised by their stamps and ignored.
import { watch, type FSWatcher } from "chokidar";
import { basename } from "node:path";
import { parseToolFileName } from "../store/tool-files.ts";
import type { Toolbox } from "./toolbox.ts";

export const RELOAD_DEBOUNCE_MS = 150;

export class ToolboxWatcher {
	private watcher: FSWatcher | undefined;
	private readonly timers = new Map<string, NodeJS.Timeout>();
	private readonly inFlight = new Set<Promise<unknown>>();

	constructor(private readonly toolbox: Toolbox, private readonly debounceMs = RELOAD_DEBOUNCE_MS) {}

	/** Resolves once the watcher is ready (changes made after this are seen). */
	start(): Promise<void> {
		const dir = this.toolbox.config.toolboxDir;
		this.watcher = watch(dir, {
			depth: 0,
			ignoreInitial: true,
			ignored: (path: string) => path !== dir && parseToolFileName(basename(path)) === undefined,
		});
		for (const event of ["add", "change", "unlink"] as const) {
			this.watcher.on(event, (path: string) => this.schedule(path));
		}
		this.watcher.on("error", () => undefined);
		return new Promise((resolve) => this.watcher!.once("ready", () => resolve()));
	}

	private schedule(path: string): void {
		const parsed = parseToolFileName(basename(path));
		if (!parsed) return;
		clearTimeout(this.timers.get(parsed.name));
		this.timers.set(
			parsed.name,
			setTimeout(() => {
				this.timers.delete(parsed.name);
				const reload = this.toolbox.reload(parsed.name).catch(() => undefined);
				this.inFlight.add(reload);
				void reload.finally(() => this.inFlight.delete(reload));
			}, this.debounceMs),
		);
	}

	/** Waits for scheduled and running reloads (tests, shutdown). */
	async settle(): Promise<void> {
		while (this.timers.size > 0 || this.inFlight.size > 0) {
			await Promise.all([...this.inFlight, new Promise((resolve) => setTimeout(resolve, this.debounceMs / 2))]);
		}
	}

	async stop(): Promise<void> {
		for (const timer of this.timers.values()) clearTimeout(timer);
		this.timers.clear();
		await this.watcher?.close();
		await Promise.all(this.inFlight);
	}
}
