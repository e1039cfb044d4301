// Paths opened as what the broker checked (see anchored-fs.ts): a path's folder opened once and checked to be the
// folder the check resolved (the kernel says where an open folder is), the last part opened without following a link.
import { constants as c, type Stats } from "node:fs";
import * as fsp from "node:fs/promises";
import { basename, dirname } from "node:path";

/** The most a brokered read hands back: the file is read into pi's own memory first. */
export const READ_CAP_BYTES = 32 * 1024 * 1024;

/** Opens the file itself (no read, no write): enough to stat, chmod or time it through /proc. Linux's O_PATH. */
export const O_PATH = 0o10000000;
export const NOFOLLOW = c.O_NOFOLLOW | c.O_NONBLOCK;

export const anchoredFsAvailable = process.platform === "linux";

export type Handle = fsp.FileHandle;

/** Errors say the real paths, not the /proc ones the operation went through. */
export class Anchors {
	private readonly open: Array<{ handle: Handle; path: string }> = [];

	constructor(readonly action: string) {}

	async track(handle: Handle, path: string): Promise<Handle> {
		this.open.push({ handle, path });
		return handle;
	}

	at(handle: Handle, name?: string): string {
		return name === undefined ? `/proc/self/fd/${handle.fd}` : `/proc/self/fd/${handle.fd}/${name}`;
	}

	/** The folder of `path`, opened, and checked to be the folder the check resolved. */
	async folder(path: string): Promise<{ dir: Handle; name: string }> {
		const folder = dirname(path);
		const dir = await this.track(await fsp.open(folder, c.O_RDONLY | c.O_DIRECTORY), folder);
		if ((await fsp.readlink(this.at(dir))) !== folder) throw changed(path);
		return { dir, name: basename(path) || "." };
	}

	/** `path` itself, opened with `flags` without following a link in its last part. */
	async file(path: string, flags: number, mode?: number): Promise<Handle> {
		const { dir, name } = await this.folder(path);
		try {
			return await this.track(await fsp.open(this.at(dir, name), flags | NOFOLLOW, mode), path);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ELOOP") throw isLink(this.action, path);
			throw error;
		}
	}

	/** `path` itself as an O_PATH handle that is not a link (what stat, access, chmod and utimes act on). */
	async node(path: string): Promise<{ handle: Handle; stats: Stats }> {
		const handle = await this.file(path, O_PATH);
		const stats = await handle.stat();
		if (stats.isSymbolicLink()) throw changed(path);
		return { handle, stats };
	}

	/** The real path of an error's /proc path. */
	restore(error: unknown): unknown {
		if (!(error instanceof Error)) return error;
		const swap = (text: string) =>
			text.replace(/\/proc\/self\/fd\/(\d+)/g, (whole, fd: string) => {
				const found = this.open.find((entry) => entry.handle.fd === Number(fd));
				return found ? found.path : whole;
			});
		error.message = swap(error.message);
		const withPath = error as NodeJS.ErrnoException & { dest?: string };
		if (typeof withPath.path === "string") withPath.path = swap(withPath.path);
		if (typeof withPath.dest === "string") withPath.dest = swap(withPath.dest);
		return error;
	}

	async close(): Promise<void> {
		await Promise.all(this.open.map(({ handle }) => handle.close().catch(() => undefined)));
	}
}

export function forgeError(message: string, code: string): Error {
	return Object.assign(new Error(message), { code });
}

export const changed = (path: string) =>
	forgeError(
		`${path} changed while it was checked (a folder or link was swapped); nothing was done.`,
		"ERR_FORGE_PERMISSION",
	);
export const isLink = (action: string, path: string) =>
	forgeError(`fs.${action}: ${path} is a link; forged tools may not copy or make links.`, "ERR_FORGE_UNSUPPORTED");
export const notRegular = (path: string, stats: Stats) =>
	forgeError(
		`${path} is not a regular file (${kindOf(stats)}); forged tools read and write regular files only.`,
		"ERR_FORGE_UNSUPPORTED",
	);

function kindOf(stats: Stats): string {
	if (stats.isDirectory()) return "a folder";
	if (stats.isFIFO()) return "a FIFO";
	if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
	if (stats.isSocket()) return "a socket";
	return "not a file";
}

export async function regular(handle: Handle, path: string): Promise<Stats> {
	const stats = await handle.stat();
	if (!stats.isFile()) throw notRegular(path, stats);
	return stats;
}
