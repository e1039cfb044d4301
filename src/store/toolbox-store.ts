// The toolbox on disk: listing, reading, staging outside the live files, and atomic promotion with `.bak` copies.
import { randomUUID } from "node:crypto";
import { type FileHandle, copyFile, mkdir, open, readFile, readdir, rename, rm, rmdir, stat } from "node:fs/promises";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { REGISTRY_FILE, jsonFileOf, parseToolFileName, tsFileOf } from "./tool-files.ts";
import type { FileStamp, ToolStamps } from "./registry.ts";

/** Where a candidate version waits while it is checked: inside the toolbox folder (same filesystem, so promotion is a rename) but not among the live files. */
export const STAGING_DIR = ".staging";

export interface StagedTool {
	name: string;
	dir: string;
	tsPath: string;
	jsonPath: string;
	/** Settles when both files are on disk (fsynced); promotion waits for it, checks need not. */
	synced: Promise<void>;
}

export interface PromoteResult {
	/** A previous version existed and is now `forge-<name>.ts.bak` / `.json.bak`. */
	backedUp: boolean;
	stamps: ToolStamps;
}

export class ToolboxStore {
	constructor(readonly dir: string) {}

	tsPath(name: string): string {
		return join(this.dir, tsFileOf(name));
	}

	jsonPath(name: string): string {
		return join(this.dir, jsonFileOf(name));
	}

	async ensure(): Promise<void> {
		await mkdir(this.dir, { recursive: true });
	}

	/** Every tool with at least one of its two files, and their stamps. */
	async listStamps(): Promise<Map<string, ToolStamps>> {
		const tools = new Map<string, ToolStamps>();
		let files: string[];
		try {
			files = await readdir(this.dir);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return tools;
			throw error;
		}
		await Promise.all(
			files.map(async (file) => {
				const parsed = parseToolFileName(file);
				if (!parsed) return;
				const stamp = await this.stampOf(join(this.dir, file));
				if (!stamp) return;
				const stamps = tools.get(parsed.name) ?? {};
				stamps[parsed.kind] = stamp;
				tools.set(parsed.name, stamps);
			}),
		);
		return tools;
	}

	async stampsOf(name: string): Promise<ToolStamps> {
		const [ts, json] = await Promise.all([this.stampOf(this.tsPath(name)), this.stampOf(this.jsonPath(name))]);
		return { ...(ts ? { ts } : {}), ...(json ? { json } : {}) };
	}

	private async stampOf(path: string): Promise<FileStamp | undefined> {
		try {
			const info = await stat(path);
			return info.isFile() ? { size: info.size, mtimeMs: info.mtimeMs } : undefined;
		} catch {
			return undefined;
		}
	}

	async readSource(name: string): Promise<string | undefined> {
		return readOptional(this.tsPath(name));
	}

	async readMeta(name: string): Promise<string | undefined> {
		return readOptional(this.jsonPath(name));
	}

	async readRegistry(): Promise<string | undefined> {
		return readOptional(join(this.dir, REGISTRY_FILE));
	}

	async writeRegistry(text: string): Promise<void> {
		await this.ensure();
		// Derived and rebuilt when lost: atomic (rename) but not fsynced.
		await writeFileAtomic(join(this.dir, REGISTRY_FILE), text, { fsync: false });
	}

	/** Writes a candidate pair to a fresh staging folder; resolves once written, while the fsync goes on (see `synced`). */
	async stage(name: string, source: string, metaText: string): Promise<StagedTool> {
		const dir = join(this.dir, STAGING_DIR, `${name}-${randomUUID().slice(0, 8)}`);
		await mkdir(dir, { recursive: true });
		const tsPath = join(dir, tsFileOf(name));
		const jsonPath = join(dir, jsonFileOf(name));
		const files = await Promise.all([writeNew(tsPath, source), writeNew(jsonPath, metaText)]);
		const synced = Promise.all(files.map((handle) => handle.sync().finally(() => handle.close()))).then(() => undefined);
		synced.catch(() => undefined); // observed by promote(); a discarded candidate may never be awaited
		return { name, dir, tsPath, jsonPath, synced };
	}

	async discard(staged: StagedTool): Promise<void> {
		await rm(staged.dir, { recursive: true, force: true });
		// Leave no empty staging folder among the user's files; another forge may still be using it.
		await rmdir(join(this.dir, STAGING_DIR)).catch(() => undefined);
	}

	/** Makes the staged pair live: the previous pair becomes `.bak` (copied, so the old version stays live until the rename). */
	async promote(staged: StagedTool): Promise<PromoteResult> {
		const { name } = staged;
		const live = { ts: this.tsPath(name), json: this.jsonPath(name) };
		await staged.synced;
		const backedUp = (await this.stampOf(live.ts)) !== undefined;
		if (backedUp) {
			await Promise.all([backup(live.ts), backup(live.json)]);
		}
		await rename(staged.tsPath, live.ts);
		await rename(staged.jsonPath, live.json);
		return { backedUp, stamps: await this.stampsOf(name) };
	}

	/** Removes staging folders left behind by an interrupted forge. */
	async cleanStaging(): Promise<void> {
		await rm(join(this.dir, STAGING_DIR), { recursive: true, force: true });
	}
}

/** Writes a new file and returns its open handle, for the caller to fsync and close. */
async function writeNew(path: string, data: string): Promise<FileHandle> {
	const handle = await open(path, "wx");
	try {
		await handle.writeFile(data);
		return handle;
	} catch (error) {
		await handle.close();
		throw error;
	}
}

async function backup(path: string): Promise<void> {
	const temp = `${path}.bak.${randomUUID().slice(0, 8)}.tmp`;
	try {
		await copyFile(path, temp);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
		throw error;
	}
	await rename(temp, `${path}.bak`);
}

async function readOptional(path: string): Promise<string | undefined> {
	try {
		return await readFile(path, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw error;
	}
}
