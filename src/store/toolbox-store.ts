// The toolbox on disk: listing and reading the per-tool files, the registry, and — under the toolbox lock — the
// transactional changes of `transaction.ts`. The per-tool files are the truth; everything else is derived. The folder
// is a cloned repository's as much as the user's: no link in it is followed (safe-fs.ts).
import { lstatSync } from "node:fs";
import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Result } from "../contract/forge-error.ts";
import {
	jsonFileOf,
	parseMeta,
	parseToolFileName,
	REGISTRY_FILE,
	type ToolMeta,
	tsFileOf,
} from "../contract/tool-files.ts";
import { ensureGitignore } from "./gitignore.ts";
import { type LockOptions, withToolboxLock } from "./lock.ts";
import type { FileStamp, ToolStamps } from "./registry.ts";
import { childPath, isRealDirectory, NotFollowed, readRegular, writeAtomic } from "./safe-fs.ts";
import {
	commitPromote,
	commitRemove,
	discardStaged,
	recoverStaging,
	rollForwardCommitted,
	type StagedTool,
	stagedIntact,
	stageTool,
} from "./transaction.ts";

export type { StagedTool } from "./transaction.ts";

/** A tool's two files as they are now, and its metadata parsed (undefined where a file is missing). */
export interface ToolFiles {
	source?: string;
	metaText?: string;
	meta?: Result<ToolMeta>;
	/** Why a file was not read though it is there (a link, or not a regular file): the tool is broken, its text unread. */
	refused?: string;
}

export interface PromoteResult {
	/** A previous version existed and is now `forge-<name>.ts.bak` / `.json.bak`. */
	backedUp: boolean;
	stamps: ToolStamps;
	/** The commit's last steps, still running: the toolbox lock is held until they settle. */
	settled: Promise<void>;
}

/** Files stamped between two turns of the event loop when a whole toolbox is listed. */
const STAMP_SLICE = 256;

/** Temporary files of interrupted writes: `write-file-atomic`'s `<file>.<n>` and ours. */
const LEFTOVER = /^(forge-.+\.(ts|json)(\.bak)?\.\d+|forge-registry\.json\.\d+|\.forge-health\.json\.\d+)$/;

export class ToolboxStore {
	constructor(
		readonly dir: string,
		private readonly lockOptions: LockOptions = {},
	) {}

	tsPath(name: string): string {
		return childPath(this.dir, tsFileOf(name));
	}

	jsonPath(name: string): string {
		return childPath(this.dir, jsonFileOf(name));
	}

	/** Makes the toolbox folder if missing; one that is a link (or not a folder) is refused, never followed. */
	async ensure(): Promise<void> {
		if (await isRealDirectory(this.dir)) return;
		await mkdir(this.dir, { recursive: true });
		await isRealDirectory(this.dir);
	}

	/** Writes the toolbox's `.gitignore` unless it has one (best effort). */
	ensureGitignore(): Promise<void> {
		return ensureGitignore(this.dir);
	}

	/**
	 * Runs `fn` holding the toolbox lock (other pi processes wait; a dead holder's lock is taken over). What a dead
	 * holder committed and did not apply is rolled forward first, so no later recovery replays it over a newer change.
	 */
	locked<T>(fn: () => Promise<T>): Promise<T> {
		return withToolboxLock(
			this.dir,
			async () => {
				await rollForwardCommitted(this.dir);
				return fn();
			},
			this.lockOptions,
		);
	}

	/** Runs `fn` holding the registry's own lock (registry saves of every process, one at a time). */
	registryLocked<T>(fn: () => Promise<T>): Promise<T> {
		return withToolboxLock(this.dir, fn, { ...this.lockOptions, target: "registry" });
	}

	/**
	 * Every tool with at least one of its two files, and their stamps. Synchronous stats (a fraction of the cost of
	 * 20,000 promises at 10,000 tools) in slices, the event loop turning between them; `stop` ends the listing early.
	 */
	async listStamps(options: { stop?: () => boolean } = {}): Promise<Map<string, ToolStamps>> {
		const tools = new Map<string, ToolStamps>();
		let files: string[];
		try {
			if (!(await isRealDirectory(this.dir))) return tools;
			files = await readdir(this.dir);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return tools;
			throw error;
		}
		for (let i = 0; i < files.length; i++) {
			if (i > 0 && i % STAMP_SLICE === 0) {
				await new Promise((resolve) => setImmediate(resolve));
				if (options.stop?.()) return tools;
			}
			const parsed = parseToolFileName(files[i]);
			if (!parsed) continue;
			const stamp = stampOfSync(join(this.dir, files[i]));
			if (!stamp) continue;
			const stamps = tools.get(parsed.name) ?? {};
			stamps[parsed.kind] = stamp;
			tools.set(parsed.name, stamps);
		}
		return tools;
	}

	async stampsOf(name: string): Promise<ToolStamps> {
		const [ts, json] = await Promise.all([stampOf(this.tsPath(name)), stampOf(this.jsonPath(name))]);
		return { ...(ts ? { ts } : {}), ...(json ? { json } : {}) };
	}

	async stampOf(name: string, kind: "ts" | "json"): Promise<FileStamp | undefined> {
		return stampOf(kind === "ts" ? this.tsPath(name) : this.jsonPath(name));
	}

	/** A tool's source; a link there is not followed (NotFollowed: the error says why). */
	async readSource(name: string): Promise<string | undefined> {
		return readRegular(this.tsPath(name));
	}

	async readMeta(name: string): Promise<string | undefined> {
		return readRegular(this.jsonPath(name));
	}

	/**
	 * Both files of a tool, read together, with the metadata parsed: the one way a tool's files are read. `tolerant`:
	 * a file that cannot be read (not only a missing one) counts as missing instead of failing the read. A file that
	 * is a link is never read: it counts as missing, and `refused` says why.
	 */
	async readTool(name: string, options: { tolerant?: boolean } = {}): Promise<ToolFiles> {
		const refusals: string[] = [];
		const read = (file: Promise<string | undefined>) =>
			file.catch((error: unknown) => {
				if (error instanceof NotFollowed) refusals.push(error.message);
				else if (!options.tolerant) throw error;
				return undefined;
			});
		const [source, metaText] = await Promise.all([read(this.readSource(name)), read(this.readMeta(name))]);
		return {
			source,
			metaText,
			meta: metaText === undefined ? undefined : parseMeta(metaText, name),
			...(refusals.length > 0 ? { refused: refusals.join("; ") } : {}),
		};
	}

	async readBackup(name: string): Promise<string | undefined> {
		return readRegular(`${this.tsPath(name)}.bak`);
	}

	async readRegistry(): Promise<string | undefined> {
		if (!(await isRealDirectory(this.dir))) return undefined;
		return readRegular(join(this.dir, REGISTRY_FILE)).catch((error: unknown) => {
			// A registry that is a link is not read: it is rebuilt (the rename of the new one replaces the link).
			if (error instanceof NotFollowed) return "";
			throw error;
		});
	}

	/** Derived and rebuilt when lost: atomic (rename) but not fsynced. */
	async writeRegistry(text: string): Promise<void> {
		await this.ensure();
		await writeAtomic(join(this.dir, REGISTRY_FILE), text);
	}

	/** `durable: false` for metadata derived from the code, which a crash only makes the next start derive again. */
	async writeMeta(name: string, text: string, durable = true): Promise<void> {
		await writeAtomic(this.jsonPath(name), text, { durable });
	}

	stage(name: string, source: string, metaText: string): Promise<StagedTool> {
		return stageTool(this.dir, name, source, metaText);
	}

	/** Whether a pair staged earlier is still whole and uncommitted, to be promoted as it is. */
	intact(staged: StagedTool): Promise<boolean> {
		return stagedIntact(staged);
	}

	discard(staged: StagedTool): Promise<void> {
		return discardStaged(this.dir, staged);
	}

	/**
	 * Makes the staged pair live (the previous pair becomes `.bak`). Call with the lock held, and keep it until
	 * `settled`: the commit's last steps (the folder's fsync, the marker's removal) run after this resolves.
	 */
	async promote(staged: StagedTool): Promise<PromoteResult> {
		const { backedUp, settled } = await commitPromote(this.dir, staged);
		settled.catch(() => undefined); // a commit left unsettled is rolled forward at the next start
		return { backedUp, stamps: await this.stampsOf(staged.name), settled };
	}

	/** Removes a tool's files (live and `.bak`). Call with the lock held. */
	remove(name: string): Promise<void> {
		return commitRemove(this.dir, name);
	}

	/** Finishes or discards changes a crash interrupted, and (unless `sweep: false`) removes temporary files. Call with the lock held. */
	async recover(
		options: { sweep?: boolean } = {},
	): Promise<{ rolledForward: string[]; discarded: string[]; leftovers: string[] }> {
		const staging = await recoverStaging(this.dir);
		const leftovers = options.sweep === false ? [] : await this.sweep();
		return { ...staging, leftovers };
	}

	/** Removes the temporary files of interrupted writes (a read of the whole folder). Call with the lock held. */
	async sweep(): Promise<string[]> {
		if (!(await isRealDirectory(this.dir))) return [];
		const leftovers = (await readdir(this.dir).catch(() => [] as string[])).filter((file) => LEFTOVER.test(file));
		await Promise.all(leftovers.map((file) => rm(join(this.dir, file), { force: true })));
		return leftovers;
	}
}

/** A file's stamp, not following a link: a link is stamped too (its tool is then listed, and broken: never read). */
async function stampOf(path: string): Promise<FileStamp | undefined> {
	try {
		const info = await lstat(path);
		return info.isFile() || info.isSymbolicLink() ? { size: info.size, mtimeMs: info.mtimeMs } : undefined;
	} catch {
		return undefined;
	}
}

function stampOfSync(path: string): FileStamp | undefined {
	try {
		const info = lstatSync(path, { throwIfNoEntry: false });
		return info?.isFile() || info?.isSymbolicLink() ? { size: info.size, mtimeMs: info.mtimeMs } : undefined;
	} catch {
		return undefined;
	}
}
