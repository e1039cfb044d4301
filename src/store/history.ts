// Every version of every tool, beside the contract's `.bak`: content-addressed files per tool in `.history/<name>/`
// and an append-only index of events, pruned to a retention bound. History is a safety net: a failure to write it
// never fails a forge. The folders are in the toolbox, which a cloned repository fills: a link there is not followed,
// a tool's folder is named only after a forgeable name, and a record names its files only by hex digests.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "../contract/hash.ts";
import { isForgeableName } from "../contract/names.ts";
import {
	appendNoFollow,
	childPath,
	createNew,
	isRealDirectory,
	readRegular,
	realChildDir,
	removeChild,
	writeAtomic,
} from "./safe-fs.ts";

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

/** A record: the tool, what happened, its version and files, when, the version a roll-back restored, known entries. */
type RecordArgs = [
	name: string,
	event: HistoryEvent,
	version: number,
	source: string,
	metaText: string,
	at: Date,
	from?: number,
	known?: HistoryEntry[],
];
const DIGEST = /^[0-9a-f]{64}$/;
const EVENTS: readonly string[] = ["forged", "edited", "rolled-back", "removed", "recovered", "imported"];

/** Whether a line of an index is a record the forge could have written (its file names digests, nothing else). */
function isEntry(value: unknown): value is HistoryEntry {
	const entry = value as Partial<HistoryEntry> | null;
	return (
		typeof entry === "object" &&
		entry !== null &&
		typeof entry.version === "number" &&
		typeof entry.at === "string" &&
		typeof entry.event === "string" &&
		EVENTS.includes(entry.event) &&
		typeof entry.ts === "string" &&
		DIGEST.test(entry.ts) &&
		typeof entry.json === "string" &&
		DIGEST.test(entry.json) &&
		(entry.from === undefined || typeof entry.from === "number")
	);
}

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
		if (!isForgeableName(name)) throw new Error(`'${name.slice(0, 60)}' is not a tool name: it has no history`);
		return join(this.toolboxDir, HISTORY_DIR, name);
	}

	/** A tool's history folder when it is there as a real folder (undefined when missing); a link there is refused. */
	private async existingDir(name: string): Promise<string | undefined> {
		const dir = this.dirOf(name);
		const root = join(this.toolboxDir, HISTORY_DIR);
		return (await isRealDirectory(this.toolboxDir)) && (await isRealDirectory(root)) && (await isRealDirectory(dir))
			? dir
			: undefined;
	}

	/** A tool's history folder, made when missing: `.history` and it are real folders, never links. */
	private async madeDir(name: string): Promise<string> {
		const dir = this.dirOf(name);
		if (this.made.has(dir)) return dir;
		if (!(await isRealDirectory(this.toolboxDir))) throw new Error(`${this.toolboxDir} is missing`);
		await realChildDir(await realChildDir(this.toolboxDir, HISTORY_DIR), name);
		this.made.add(dir);
		return dir;
	}

	/**
	 * Records a version (its files are written once; an identical version costs only the index line). `known`: the
	 * entries the caller has just read, so the index need not be read again to know whether to prune.
	 */
	record(...args: RecordArgs): Promise<void> {
		const [name] = args;
		const before = this.writing.get(name) ?? Promise.resolve();
		const recorded = before.then(() => this.write(...args));
		const settled = recorded.catch(() => undefined);
		this.writing.set(name, settled);
		void settled.then(() => {
			if (this.writing.get(name) === settled) this.writing.delete(name);
		});
		return recorded;
	}

	private async write(...[name, event, version, source, metaText, at, from, known]: RecordArgs): Promise<void> {
		const dir = await this.madeDir(name);
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
				writeOnce(childPath(dir, `${entry.ts}.ts`), source),
				writeOnce(childPath(dir, `${entry.json}.json`), metaText),
			]);
			await appendNoFollow(childPath(dir, INDEX), `${JSON.stringify(entry)}\n`, 0o644);
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

	/** The index's records; a line that is not one the forge could have written (a digest for each file) is skipped. */
	private async readEntries(name: string): Promise<HistoryEntry[]> {
		const dir = await this.existingDir(name).catch(() => undefined);
		const text = dir ? await readRegular(join(dir, INDEX)).catch(() => undefined) : undefined;
		return (text ?? "")
			.split("\n")
			.filter(Boolean)
			.flatMap((line) => {
				try {
					const entry: unknown = JSON.parse(line);
					return isEntry(entry) ? [entry] : [];
				} catch {
					return [];
				}
			});
	}

	/** The two files of a record, when both are there as regular files. */
	private async filesOf(name: string, entry: HistoryEntry): Promise<StoredVersion | undefined> {
		const dir = this.dirOf(name);
		const [source, metaText] = await Promise.all([
			readRegular(childPath(dir, `${entry.ts}.ts`)),
			readRegular(childPath(dir, `${entry.json}.json`)),
		]);
		return source === undefined || metaText === undefined ? undefined : { entry, source, metaText };
	}

	/** The newest stored event for `version` that still has its files. */
	async read(name: string, version: number): Promise<StoredVersion | undefined> {
		const candidates = (await this.entries(name))
			.filter((e) => e.version === version && e.event !== "removed")
			.reverse();
		for (const entry of candidates) {
			// Pruned or damaged: an older record of the same version is tried.
			const stored = await this.filesOf(name, entry).catch(() => undefined);
			if (stored) return stored;
		}
		return undefined;
	}

	/** Every stored version of a tool, oldest first, with its files; a record whose files are gone is left out. */
	async all(name: string): Promise<StoredVersion[]> {
		const stored: StoredVersion[] = [];
		for (const entry of await this.entries(name)) {
			// A record whose files are pruned or damaged is left out.
			const version = await this.filesOf(name, entry).catch(() => undefined);
			if (version) stored.push(version);
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
		this.made.delete(this.dirOf(name));
		// Removed through the real `.history` folder only: a link there (or at the tool's folder) is never followed.
		if (await isRealDirectory(this.toolboxDir)) await removeChild(join(this.toolboxDir, HISTORY_DIR), name);
	}

	/** Keeps the newest `limit` entries and deletes files no kept entry refers to. */
	private async prune(name: string): Promise<void> {
		const entries = await this.readEntries(name);
		if (entries.length <= this.limit) return;
		const kept = entries.slice(-this.limit);
		const dir = await this.madeDir(name);
		await writeAtomic(join(dir, INDEX), kept.map((e) => `${JSON.stringify(e)}\n`).join(""));
		const referenced = new Set(kept.flatMap((e) => [`${e.ts}.ts`, `${e.json}.json`]));
		for (const file of await readdir(dir)) {
			if (file !== INDEX && !referenced.has(file)) await rm(join(dir, file), { force: true });
		}
	}
}

/** Writes a file that must not exist yet (content-addressed: one that does holds the same text); no link is followed. */
async function writeOnce(path: string, text: string): Promise<void> {
	try {
		const handle = await createNew(path);
		try {
			await handle.writeFile(text);
		} finally {
			await handle.close();
		}
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
	}
}
