// Every version of every tool, beside the contract's `.bak`: content-addressed files per tool in `.history/<name>/`
// and an append-only index of events, pruned to a retention bound. History is a safety net: a failure to write it
// never fails a forge.
import { appendFile, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "../contract/hash.ts";

export const HISTORY_DIR = ".history";

export type HistoryEvent = "forged" | "edited" | "rolled-back" | "removed" | "recovered" | "imported";

export interface HistoryEntry {
	version: number;
	event: HistoryEvent;
	at: string;
	/** Content hashes (hex) of the `.ts` and `.json` of this version, stored as `<hash>.ts` / `<hash>.json`. */
	ts: string;
	json: string;
	/** For a roll-back: the version it restored. */
	from?: number;
}

export interface StoredVersion {
	entry: HistoryEntry;
	source: string;
	metaText: string;
}

const INDEX = "index.jsonl";

export class ToolHistory {
	/** Folders made by this process (a re-check of 1,000 tools makes each once, not per record). */
	private readonly made = new Set<string>();
	/** Records of a tool still being written: its history is read after them. */
	private readonly writing = new Map<string, Promise<unknown>>();

	constructor(
		private readonly toolboxDir: string,
		private readonly limit: number,
	) {}

	private dirOf(name: string): string {
		return join(this.toolboxDir, HISTORY_DIR, name);
	}

	/**
	 * Records a version (its files are written once; an identical version costs only the index line). `known`: the
	 * entries the caller has just read, so the index need not be read again to know whether to prune.
	 */
	record(
		name: string,
		event: HistoryEvent,
		version: number,
		source: string,
		metaText: string,
		at: Date,
		from?: number,
		known?: HistoryEntry[],
	): Promise<void> {
		const before = this.writing.get(name) ?? Promise.resolve();
		const recorded = before.then(() => this.write(name, event, version, source, metaText, at, from, known));
		const settled = recorded.catch(() => undefined);
		this.writing.set(name, settled);
		void settled.then(() => {
			if (this.writing.get(name) === settled) this.writing.delete(name);
		});
		return recorded;
	}

	private async write(
		name: string,
		event: HistoryEvent,
		version: number,
		source: string,
		metaText: string,
		at: Date,
		from?: number,
		known?: HistoryEntry[],
	): Promise<void> {
		const dir = this.dirOf(name);
		if (!this.made.has(dir)) {
			await mkdir(dir, { recursive: true });
			this.made.add(dir);
		}
		const entry: HistoryEntry = {
			version,
			event,
			at: at.toISOString(),
			ts: sha256Hex(source),
			json: sha256Hex(metaText),
			...(from ? { from } : {}),
		};
		try {
			await Promise.all([
				writeOnce(join(dir, `${entry.ts}.ts`), source),
				writeOnce(join(dir, `${entry.json}.json`), metaText),
			]);
			await appendFile(join(dir, INDEX), `${JSON.stringify(entry)}\n`);
		} catch (error) {
			this.made.delete(dir);
			throw error;
		}
		if (!known || known.length + 1 > this.limit) await this.prune(name);
	}

	/** A tool's history entries, oldest first, once the records being written are in. */
	async entries(name: string): Promise<HistoryEntry[]> {
		await this.writing.get(name);
		return this.readEntries(name);
	}

	private async readEntries(name: string): Promise<HistoryEntry[]> {
		const text = await readFile(join(this.dirOf(name), INDEX), "utf8").catch(() => "");
		return text
			.split("\n")
			.filter(Boolean)
			.flatMap((line) => {
				try {
					return [JSON.parse(line) as HistoryEntry];
				} catch {
					return [];
				}
			});
	}

	/** The newest stored event for `version` that still has its files. */
	async read(name: string, version: number): Promise<StoredVersion | undefined> {
		const candidates = (await this.entries(name))
			.filter((e) => e.version === version && e.event !== "removed")
			.reverse();
		for (const entry of candidates) {
			try {
				const dir = this.dirOf(name);
				const [source, metaText] = await Promise.all([
					readFile(join(dir, `${entry.ts}.ts`), "utf8"),
					readFile(join(dir, `${entry.json}.json`), "utf8"),
				]);
				return { entry, source, metaText };
			} catch {
				// pruned or damaged: try an older record of the same version
			}
		}
		return undefined;
	}

	/** Every stored version of a tool, oldest first, with its files; a record whose files are gone is left out. */
	async all(name: string): Promise<StoredVersion[]> {
		const dir = this.dirOf(name);
		const stored: StoredVersion[] = [];
		for (const entry of await this.entries(name)) {
			try {
				const [source, metaText] = await Promise.all([
					readFile(join(dir, `${entry.ts}.ts`), "utf8"),
					readFile(join(dir, `${entry.json}.json`), "utf8"),
				]);
				stored.push({ entry, source, metaText });
			} catch {
				// pruned or damaged
			}
		}
		return stored;
	}

	/** Records versions from another toolbox's history (a tool moved between toolboxes), in their order and times. */
	async append(name: string, versions: readonly StoredVersion[]): Promise<void> {
		for (const { entry, source, metaText } of versions)
			await this.record(name, entry.event, entry.version, source, metaText, new Date(entry.at), entry.from, []);
		await this.prune(name);
	}

	/** Forgets a tool's history (it moved to another toolbox, which has it now). */
	async drop(name: string): Promise<void> {
		await this.writing.get(name);
		const dir = this.dirOf(name);
		this.made.delete(dir);
		await rm(dir, { recursive: true, force: true });
	}

	/** Keeps the newest `limit` entries and deletes files no kept entry refers to. */
	private async prune(name: string): Promise<void> {
		const entries = await this.readEntries(name);
		if (entries.length <= this.limit) return;
		const kept = entries.slice(-this.limit);
		const dir = this.dirOf(name);
		const temp = join(dir, `${INDEX}.tmp`);
		await writeFile(temp, kept.map((e) => `${JSON.stringify(e)}\n`).join(""));
		await rename(temp, join(dir, INDEX));
		const referenced = new Set(kept.flatMap((e) => [`${e.ts}.ts`, `${e.json}.json`]));
		for (const file of await readdir(dir)) {
			if (file !== INDEX && !referenced.has(file)) await rm(join(dir, file), { force: true });
		}
	}
}

async function writeOnce(path: string, text: string): Promise<void> {
	try {
		await writeFile(path, text, { flag: "wx" });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
	}
}
