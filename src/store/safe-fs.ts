// Filesystem steps for a toolbox folder, which a cloned repository fills with whatever it holds: no link in it is
// followed. A path is built from a name only as a direct child of its folder; a folder is used only when lstat finds
// a real directory; files are opened with O_NOFOLLOW (a link there fails to open instead of being followed); a
// replaced file is renamed over (which replaces a link, never its target); and a removal goes through lstat'ed real
// directories only.
import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, open, rename, rm } from "node:fs/promises";
import { join } from "node:path";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND } = constants;
// Absent where the platform has no such flag (Windows): the lstat checks still hold there.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** A link, or another kind of file, where the toolbox needs a real folder or a regular file: never followed. */
export class NotFollowed extends Error {
	readonly code = "ENOTFOLLOWED";

	constructor(
		readonly path: string,
		readonly kind: string,
	) {
		super(`${path} is ${kind}; Agent Forge follows no links in a toolbox folder, so it was not used`);
	}
}

/** What lstat finds at a path: the kind of entry, "missing" when there is none. */
export type EntryKind = "missing" | "directory" | "file" | "link" | "other";

export async function kindOf(path: string): Promise<EntryKind> {
	try {
		const info = await lstat(path);
		if (info.isSymbolicLink()) return "link";
		return info.isDirectory() ? "directory" : info.isFile() ? "file" : "other";
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
		throw error;
	}
}

const described = (kind: EntryKind) =>
	kind === "link" ? "a symbolic link" : kind === "file" ? "a file, not a folder" : "not a regular file or folder";

/** `file` as a direct child of `dir`: a name with a separator, a NUL, or that is `.`/`..`/empty is refused. */
export function childPath(dir: string, file: string): string {
	if (!file || file === "." || file === ".." || /[/\\\0]/.test(file))
		throw new Error(`${JSON.stringify(file).slice(0, 120)} is not a file name in ${dir}; it was not used`);
	return join(dir, file);
}

/** Whether `path` is a real directory (false when missing); anything else there (a link above all) is refused. */
export async function isRealDirectory(path: string): Promise<boolean> {
	const kind = await kindOf(path);
	if (kind === "missing") return false;
	if (kind !== "directory") throw new NotFollowed(path, described(kind));
	return true;
}

/** The folder `child` of the real directory `dir`, made when missing; refused unless it is a real directory. */
export async function realChildDir(dir: string, child: string): Promise<string> {
	const path = childPath(dir, child);
	if (await isRealDirectory(path)) return path;
	await mkdir(path).catch((error: NodeJS.ErrnoException) => {
		if (error.code !== "EEXIST") throw error;
	});
	if (!(await isRealDirectory(path))) throw new NotFollowed(path, "missing after it was made");
	return path;
}

/** Opens a file without following a link at its last component; a link (ELOOP) is reported as NotFollowed. */
export async function openNoFollow(path: string, flags: number, mode?: number): Promise<FileHandle> {
	try {
		return await open(path, flags | O_NOFOLLOW, mode);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new NotFollowed(path, "a symbolic link");
		throw error;
	}
}

/**
 * The text of a regular file, or undefined when there is none. A link is not followed (NotFollowed); a FIFO or a
 * device is not read either (opened without blocking, then refused).
 */
export async function readRegular(path: string): Promise<string | undefined> {
	let handle: FileHandle;
	try {
		handle = await openNoFollow(path, O_RDONLY | O_NONBLOCK);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw error;
	}
	try {
		if (!(await handle.stat()).isFile()) throw new NotFollowed(path, "not a regular file");
		return await handle.readFile("utf8");
	} finally {
		await handle.close();
	}
}

/** Appends to a regular file (made with `mode` when missing), never through a link; the mode is set on the handle. */
export async function appendNoFollow(path: string, text: string, mode: number): Promise<void> {
	const handle = await openNoFollow(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, mode);
	try {
		if (!(await handle.stat()).isFile()) throw new NotFollowed(path, "not a regular file");
		await handle.chmod(mode);
		await handle.writeFile(text);
	} finally {
		await handle.close();
	}
}

/** Writes a new file (it must not exist: a link there is not followed either), returning its open handle. */
export async function createNew(path: string, mode = 0o666): Promise<FileHandle> {
	return openNoFollow(path, O_WRONLY | O_CREAT | O_EXCL, mode);
}

let tempCount = 0;

/**
 * Replaces a file atomically: a new temporary `<file>.<digits>` (removed at recovery if a crash leaves it), fsynced
 * when `durable`, renamed over the file. A link at the file's place is replaced by the file, never written through.
 */
export async function writeAtomic(
	path: string,
	text: string,
	options: { durable?: boolean; mode?: number } = {},
): Promise<void> {
	const temp = `${path}.${process.pid}${String(++tempCount).padStart(6, "0")}`;
	try {
		const handle = await createNew(temp, options.mode);
		try {
			await handle.writeFile(text);
			if (options.durable) await handle.sync();
		} finally {
			await handle.close();
		}
		await rename(temp, path);
	} catch (error) {
		await rm(temp, { force: true });
		throw error;
	}
}

/**
 * Removes `name` from the real directory `dir` with everything under it. A link there is removed itself (its target
 * is left alone), and `rm` follows no link below a real directory; `dir` is checked first, so a removal never goes
 * through a link to reach its folder.
 */
export async function removeChild(dir: string, name: string): Promise<void> {
	if (!(await isRealDirectory(dir))) return;
	await rm(childPath(dir, name), { recursive: true, force: true });
}

/** Opens a file or folder to fsync it, refusing a link there. */
export async function fsyncPath(path: string): Promise<void> {
	const handle = await openNoFollow(path, O_RDONLY);
	try {
		await handle.sync();
	} finally {
		await handle.close();
	}
}
