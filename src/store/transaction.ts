// Crash-consistent changes to a tool's files. Everything is written into a staging folder beside the live files
// (same filesystem), fsynced, then a COMMIT marker makes the change durable; applying it is a series of renames and
// a directory fsync. After a crash, a staging folder with a marker is rolled forward and one without is discarded,
// so every tool is wholly old or wholly new. The staging folder is in the toolbox, which a cloned repository fills:
// no link in it is followed, and a marker is obeyed only when it names a tool the forge could have made.
import { randomUUID } from "node:crypto";
import { copyFile, type FileHandle, lstat, mkdir, readdir, rename, rmdir, unlink } from "node:fs/promises";
import { basename, join } from "node:path";
import { isForgeableName } from "../contract/names.ts";
import { jsonFileOf, tsFileOf } from "../contract/tool-files.ts";
import {
	childPath,
	createNew,
	fsyncPath,
	isRealDirectory,
	kindOf,
	readRegular,
	realChildDir,
	removeChild,
} from "./safe-fs.ts";

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
	const dir = childPath(staging, `${name}-${randomUUID().slice(0, 8)}`);
	await mkdir(dir);
	const tsPath = childPath(dir, tsFileOf(name));
	const jsonPath = childPath(dir, jsonFileOf(name));
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
		...[tsFileOf(name), jsonFileOf(name)].map((file) =>
			backUp(childPath(toolboxDir, file), childPath(dir, `${file}.bak`)),
		),
	]);
	const backedUp = copied.some(Boolean);
	step("backed-up", name);
	const operation: Operation = { op: "promote", name };
	await writeCommit(dir, operation);
	step("committed", name);
	await renameCommitted(toolboxDir, dir, operation);
	return { backedUp, settled: settleCommit(toolboxDir, dir, name) };
}

/**
 * A durable copy of `from` at `to`; false when there is no `from` (a tool's first version has nothing to back up) or
 * it is not a regular file (a link is not followed: what it points to never becomes a backup).
 */
async function backUp(from: string, to: string): Promise<boolean> {
	if ((await kindOf(from)) !== "file") return false;
	try {
		await copyFile(from, to);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
		throw error;
	}
	await fsyncPath(to);
	return true;
}

/** Removes a tool's live and backup files as one durable change. */
export async function commitRemove(toolboxDir: string, name: string): Promise<void> {
	const dir = childPath(await stagingRoot(toolboxDir), `${name}-remove-${randomUUID().slice(0, 8)}`);
	await mkdir(dir);
	await writeCommit(dir, { op: "remove", name });
	step("committed", name);
	await applyCommit(toolboxDir, dir);
}

/**
 * Rolls every committed staging folder forward and discards the rest. Call with the toolbox locked. Nothing that is
 * not a real folder is followed: a `.staging` or an entry in it that is a link (or a file) is removed itself, and so
 * is a folder whose marker names no tool the forge could have made.
 */
export async function recoverStaging(toolboxDir: string): Promise<{ rolledForward: string[]; discarded: string[] }> {
	const rolledForward: string[] = [];
	const discarded: string[] = [];
	if (!(await isRealDirectory(toolboxDir))) return { rolledForward, discarded };
	const root = join(toolboxDir, STAGING_DIR);
	const kind = await kindOf(root);
	if (kind === "missing") return { rolledForward, discarded };
	if (kind !== "directory") {
		await unlink(root);
		return { rolledForward, discarded: [STAGING_DIR] };
	}
	for (const entry of await readdir(root)) {
		const dir = join(root, entry);
		const operation = (await kindOf(dir)) === "directory" ? await readOperation(dir) : undefined;
		if (operation) {
			await applyCommit(toolboxDir, dir);
			rolledForward.push(entry);
		} else {
			await removeChild(root, entry);
			discarded.push(entry);
		}
	}
	await rmdir(root).catch(() => undefined);
	return { rolledForward, discarded };
}

/**
 * Rolls forward the committed staging folders a dead lock holder left (it committed, then died before applying);
 * discards nothing (other processes stage without the lock). Call as the lock is taken: no holder that is alive has a
 * commit unapplied then, so what is rolled forward is older than any change made from now on.
 */
export async function rollForwardCommitted(toolboxDir: string): Promise<string[]> {
	const root = join(toolboxDir, STAGING_DIR);
	if ((await kindOf(root)) !== "directory") return [];
	const rolledForward: string[] = [];
	for (const entry of await readdir(root).catch(() => [] as string[])) {
		const dir = join(root, entry);
		if ((await kindOf(dir)) !== "directory" || !(await readOperation(dir))) continue;
		await applyCommit(toolboxDir, dir);
		rolledForward.push(entry);
	}
	return rolledForward;
}

/** Drops a candidate that was not committed. One that was committed is finished instead: a commit is never undone. */
export async function discardStaged(toolboxDir: string, staged: StagedTool): Promise<void> {
	const root = join(toolboxDir, STAGING_DIR);
	if ((await kindOf(root)) !== "directory") return;
	if ((await kindOf(staged.dir)) === "directory" && (await readOperation(staged.dir)))
		return applyCommit(toolboxDir, staged.dir);
	await removeChild(root, basename(staged.dir));
	// Leave no empty staging folder among the user's files; another forge may still be using it.
	await rmdir(root).catch(() => undefined);
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
		if (operation.op === "promote")
			await rename(childPath(dir, file), childPath(toolboxDir, file)).catch(ignoreMissing);
		else await unlink(childPath(toolboxDir, file)).catch(ignoreMissing);
		if (index === 1) step("renamed-bak", name);
		if (index === 2) step("renamed-live", name);
	}
}

/** After the renames: the toolbox folder's fsync makes them durable, and only then is the marker removed. */
async function settleCommit(toolboxDir: string, dir: string, name: string): Promise<void> {
	await fsyncPath(toolboxDir);
	step("applied", name);
	// All that is left is the marker (the fast way); anything else there (an interrupted earlier attempt) goes with rm.
	const root = join(toolboxDir, STAGING_DIR);
	await unlink(join(dir, COMMIT_FILE))
		.then(() => rmdir(dir))
		.catch(() => removeChild(root, basename(dir)));
	await rmdir(root).catch(() => undefined);
}

/** The staging folder, refusing one that is a planted link (writes would land wherever it points). */
async function stagingRoot(toolboxDir: string): Promise<string> {
	if (!(await isRealDirectory(toolboxDir))) await mkdir(toolboxDir, { recursive: true });
	return realChildDir(toolboxDir, STAGING_DIR);
}

/**
 * The marker is written, fsynced, then its folder fsynced. A process killed half-way leaves no marker or a part of
 * one; no part of a JSON object parses, so a part means "not committed" (readOperation), as no marker does.
 */
async function writeCommit(dir: string, operation: Operation): Promise<void> {
	const handle = await createNew(join(dir, COMMIT_FILE));
	try {
		await handle.writeFile(JSON.stringify(operation));
		await handle.sync();
	} finally {
		await handle.close();
	}
	await fsyncPath(dir);
}

/**
 * The committed operation of a staging folder, or undefined when there is none, it cannot be read, or it is not one
 * the forge could have written: its name must be a forgeable tool name (a name is made a path in the toolbox) and a
 * promote's staged files regular files, not links.
 */
async function readOperation(dir: string): Promise<Operation | undefined> {
	try {
		const operation = JSON.parse((await readRegular(join(dir, COMMIT_FILE))) ?? "") as Operation;
		if (operation.op !== "promote" && operation.op !== "remove") return undefined;
		if (typeof operation.name !== "string" || !isForgeableName(operation.name)) return undefined;
		if (operation.op === "promote") {
			const { name } = operation;
			const files = [tsFileOf(name), jsonFileOf(name)].flatMap((file) => [file, `${file}.bak`]);
			for (const file of files) if (!["file", "missing"].includes(await kindOf(join(dir, file)))) return undefined;
		}
		return { op: operation.op, name: operation.name };
	} catch {
		return undefined;
	}
}

/** Writes a new file and returns its open handle, for the caller to fsync and close. */
async function writeNew(path: string, data: string): Promise<FileHandle> {
	const handle = await createNew(path);
	try {
		await handle.writeFile(data);
		return handle;
	} catch (error) {
		await handle.close();
		throw error;
	}
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
	if (error.code !== "ENOENT") throw error;
}
