// Crash-consistent changes to a tool's files. Everything is written into a staging folder beside the live files
// (same filesystem), fsynced, then a COMMIT marker makes the change durable; applying it is a series of renames and
// a directory fsync. After a crash, a staging folder with a marker is rolled forward and one without is discarded,
// so every tool is wholly old or wholly new.
import { randomUUID } from "node:crypto";
import {
	copyFile,
	type FileHandle,
	lstat,
	mkdir,
	open,
	readdir,
	readFile,
	rename,
	rm,
	rmdir,
	unlink,
} from "node:fs/promises";
import { join } from "node:path";
import { jsonFileOf, tsFileOf } from "../contract/tool-files.ts";

export const STAGING_DIR = ".staging";
const COMMIT_FILE = "COMMIT";

/** Every point where a crash could interrupt a change, in order; tests inject faults here to prove recovery. */
export type TransactionStep = "staged" | "backed-up" | "committed" | "renamed-bak" | "renamed-live" | "applied";
export const faults: { at?: (step: TransactionStep, name: string) => void } = {};
const step = (label: TransactionStep, name: string) => faults.at?.(label, name);

export type Operation = { op: "promote"; name: string } | { op: "remove"; name: string };

export interface StagedTool {
	name: string;
	dir: string;
	tsPath: string;
	jsonPath: string;
	/** Settles when both files are on disk (fsynced); committing waits for it, checks need not. */
	synced: Promise<void>;
}

/** Writes a candidate pair to a fresh staging folder; resolves once written, while the fsync goes on. */
export async function stageTool(
	toolboxDir: string,
	name: string,
	source: string,
	metaText: string,
): Promise<StagedTool> {
	const staging = await stagingRoot(toolboxDir);
	const dir = join(staging, `${name}-${randomUUID().slice(0, 8)}`);
	await mkdir(dir);
	const tsPath = join(dir, tsFileOf(name));
	const jsonPath = join(dir, jsonFileOf(name));
	const files = await Promise.all([writeNew(tsPath, source), writeNew(jsonPath, metaText)]);
	const synced = Promise.all(files.map((handle) => handle.sync().finally(() => handle.close()))).then(() => undefined);
	synced.catch(() => undefined); // observed by commitPromote(); a discarded candidate may never be awaited
	step("staged", name);
	return { name, dir, tsPath, jsonPath, synced };
}

/** Whether a staged pair is still whole on disk (a recovery under another process's lock removes one not committed). */
export async function stagedIntact(staged: StagedTool): Promise<boolean> {
	try {
		const [ts, json] = await Promise.all([lstat(staged.tsPath), lstat(staged.jsonPath)]);
		return ts.isFile() && json.isFile() && !(await readOperation(staged.dir));
	} catch {
		return false;
	}
}

/**
 * Makes a staged pair live; the current pair (if any) becomes the `.bak` pair in the same commit. Resolves once the
 * change is committed (its marker durable) and renamed into place; `settled` is the rest, still to run under the lock:
 * the toolbox folder's fsync and the marker's removal. A crash before `settled` rolls the change forward at the next
 * start, as it would any committed change.
 */
export async function commitPromote(
	toolboxDir: string,
	staged: StagedTool,
): Promise<{ backedUp: boolean; settled: Promise<void> }> {
	const { name, dir } = staged;
	// The backups are copied while the candidate's own fsync may still be running: both must be durable before the marker.
	const [, ...copied] = await Promise.all([
		staged.synced,
		...[tsFileOf(name), jsonFileOf(name)].map((file) => backUp(join(toolboxDir, file), join(dir, `${file}.bak`))),
	]);
	const backedUp = copied.some(Boolean);
	step("backed-up", name);
	const operation: Operation = { op: "promote", name };
	await writeCommit(dir, operation);
	step("committed", name);
	await renameCommitted(toolboxDir, dir, operation);
	return { backedUp, settled: settleCommit(toolboxDir, dir, name) };
}

/** A durable copy of `from` at `to`; false when there is no `from` (a tool's first version has nothing to back up). */
async function backUp(from: string, to: string): Promise<boolean> {
	try {
		await copyFile(from, to);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
		throw error;
	}
	await fsyncFile(to);
	return true;
}

/** Removes a tool's live and backup files as one durable change. */
export async function commitRemove(toolboxDir: string, name: string): Promise<void> {
	const dir = join(await stagingRoot(toolboxDir), `${name}-remove-${randomUUID().slice(0, 8)}`);
	await mkdir(dir);
	await writeCommit(dir, { op: "remove", name });
	step("committed", name);
	await applyCommit(toolboxDir, dir);
}

/** Rolls every committed staging folder forward and discards the rest. Call with the toolbox locked. */
export async function recoverStaging(toolboxDir: string): Promise<{ rolledForward: string[]; discarded: string[] }> {
	const root = join(toolboxDir, STAGING_DIR);
	const entries = await readdir(root).catch(() => [] as string[]);
	const rolledForward: string[] = [];
	const discarded: string[] = [];
	for (const entry of entries) {
		const dir = join(root, entry);
		if (await readOperation(dir)) {
			await applyCommit(toolboxDir, dir);
			rolledForward.push(entry);
		} else {
			await rm(dir, { recursive: true, force: true });
			discarded.push(entry);
		}
	}
	await rmdir(root).catch(() => undefined);
	return { rolledForward, discarded };
}

/** Drops a candidate that was not committed. One that was committed is finished instead: a commit is never undone. */
export async function discardStaged(toolboxDir: string, staged: StagedTool): Promise<void> {
	if (await readOperation(staged.dir)) return applyCommit(toolboxDir, staged.dir);
	await rm(staged.dir, { recursive: true, force: true });
	// Leave no empty staging folder among the user's files; another forge may still be using it.
	await rmdir(join(toolboxDir, STAGING_DIR)).catch(() => undefined);
}

/** Idempotent: renames what is still staged, removes what the operation removes, then the staging folder. */
async function applyCommit(toolboxDir: string, dir: string): Promise<void> {
	const operation = await readOperation(dir);
	if (!operation) return;
	await renameCommitted(toolboxDir, dir, operation);
	await settleCommit(toolboxDir, dir, operation.name);
}

/** A committed operation's renames (or removals) in the toolbox folder; what is already done is skipped. */
async function renameCommitted(toolboxDir: string, dir: string, operation: Operation): Promise<void> {
	const { name } = operation;
	const files = [`${tsFileOf(name)}.bak`, `${jsonFileOf(name)}.bak`, tsFileOf(name), jsonFileOf(name)];
	for (const [index, file] of (operation.op === "promote" ? files : [...files].reverse()).entries()) {
		if (operation.op === "promote") await rename(join(dir, file), join(toolboxDir, file)).catch(ignoreMissing);
		else await unlink(join(toolboxDir, file)).catch(ignoreMissing);
		if (index === 1) step("renamed-bak", name);
		if (index === 2) step("renamed-live", name);
	}
}

/** After the renames: the toolbox folder's fsync makes them durable, and only then is the marker removed. */
async function settleCommit(toolboxDir: string, dir: string, name: string): Promise<void> {
	await fsyncFile(toolboxDir);
	step("applied", name);
	// All that is left is the marker (the fast way); anything else there (an interrupted earlier attempt) goes with rm.
	await unlink(join(dir, COMMIT_FILE))
		.then(() => rmdir(dir))
		.catch(() => rm(dir, { recursive: true, force: true }));
	await rmdir(join(toolboxDir, STAGING_DIR)).catch(() => undefined);
}

/** The staging folder, refusing one that is a planted symlink (writes would land wherever it points). */
async function stagingRoot(toolboxDir: string): Promise<string> {
	const root = join(toolboxDir, STAGING_DIR);
	await mkdir(root, { recursive: true });
	const info = await lstat(root);
	if (!info.isDirectory()) throw new Error(`${root} is not a directory (a symlink?); remove it and try again`);
	return root;
}

/**
 * The marker is written, fsynced, then its folder fsynced. A process killed half-way leaves no marker or a part of
 * one; no part of a JSON object parses, so a part means "not committed" (readOperation), as no marker does.
 */
async function writeCommit(dir: string, operation: Operation): Promise<void> {
	const handle = await open(join(dir, COMMIT_FILE), "wx");
	try {
		await handle.writeFile(JSON.stringify(operation));
		await handle.sync();
	} finally {
		await handle.close();
	}
	await fsyncFile(dir);
}

/** The committed operation of a staging folder, or undefined when there is none (or it cannot be read). */
async function readOperation(dir: string): Promise<Operation | undefined> {
	try {
		const operation = JSON.parse(await readFile(join(dir, COMMIT_FILE), "utf8")) as Operation;
		return (operation.op === "promote" || operation.op === "remove") && typeof operation.name === "string"
			? operation
			: undefined;
	} catch {
		return undefined;
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

async function fsyncFile(path: string): Promise<void> {
	const handle = await open(path, "r");
	try {
		await handle.sync();
	} finally {
		await handle.close();
	}
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
	if (error.code !== "ENOENT") throw error;
}
