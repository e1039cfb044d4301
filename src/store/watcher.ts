// Live reload: watches the toolbox folder (the OS's own notifications through fs.watch: no scan at start, whatever the
// number of tools) and has a tool whose files changed re-checked — a hand edit, another pi process's forge. Bursts are
// debounced per tool; the forge's own writes are recognised by their stamps and ignored. Calls and listings do not
// wait for it: they stamp-check what they touch (Toolbox.fresh, Toolbox.settle).
import { type FSWatcher, watch } from "node:fs";
import { parseToolFileName } from "../contract/tool-files.ts";

/** What the watcher tells about changes: the toolbox (its folder, and where noticed changes go). */
export interface WatchedToolbox {
	readonly config: { readonly toolboxDir: string };
	/** A tool's files changed: re-check it after `quietMs` without another change. */
	noticed(name: string, quietMs: number): void;
	/** Something changed that the platform did not name: compare every tool with its files. */
	rescan(): void;
	/** Waits until what changed is taken in, for at most `boundMs`. */
	settle(boundMs: number): Promise<unknown>;
}

export const RELOAD_DEBOUNCE_MS = 150;

export class ToolboxWatcher {
	private watcher: FSWatcher | undefined;

	constructor(
		private readonly toolbox: WatchedToolbox,
		private readonly debounceMs = RELOAD_DEBOUNCE_MS,
	) {}

	/** Resolves once the watcher is watching (changes made after this are seen). */
	async start(): Promise<void> {
		this.watcher = watch(this.toolbox.config.toolboxDir, { persistent: false }, (_event, file) => {
			// Some platforms do not name the file: every tool is compared with its files then.
			if (!file) return this.toolbox.rescan();
			const parsed = parseToolFileName(file.toString());
			if (parsed) this.toolbox.noticed(parsed.name, this.debounceMs);
		});
		this.watcher.on("error", () => undefined);
	}

	/** Waits for noticed and running re-checks (tests, shutdown). */
	async settle(): Promise<void> {
		await this.toolbox.settle(Number.POSITIVE_INFINITY);
	}

	async stop(): Promise<void> {
		this.watcher?.close();
		this.watcher = undefined;
	}
}
