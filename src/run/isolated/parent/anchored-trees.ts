// The walks over trees that brokered operations make (anchored-fs.ts): `rm -r`, `cp -r` and a recursive `readdir`, each
// through open folders, so a folder swapped for a link on the way is never followed.
import { constants as c } from "node:fs";
import * as fsp from "node:fs/promises";
import { join } from "node:path";
import { type Anchors, forgeError, type Handle, isLink, NOFOLLOW, notRegular, regular } from "./anchors.ts";

/** `rm -r` through open folders: a folder swapped for a link on the way is removed as a link, never followed. */
export async function removeTree(anchors: Anchors, parent: Handle, name: string): Promise<void> {
	let dir: Handle;
	try {
		dir = await anchors.track(await fsp.open(anchors.at(parent, name), c.O_RDONLY | c.O_DIRECTORY | NOFOLLOW), name);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOTDIR" || code === "ELOOP") return fsp.unlink(anchors.at(parent, name));
		throw error;
	}
	for (const entry of await fsp.readdir(anchors.at(dir))) await removeTree(anchors, dir, entry);
	await fsp.rmdir(anchors.at(parent, name));
}

export interface CopyOptions {
	recursive: boolean;
	force: boolean;
	errorOnExist: boolean;
	preserveTimestamps: boolean;
	unreadable: readonly string[];
}

/** `cp` through open folders: no link followed or copied, only folders and regular files, the unreadable left out. */
export async function copyTree(anchors: Anchors, from: string, real: string, to: string, options: CopyOptions) {
	if (options.unreadable.some((file) => real === file || real.startsWith(`${file}.`))) return;
	let source: Handle;
	try {
		source = await anchors.track(await fsp.open(from, c.O_RDONLY | NOFOLLOW), real);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ELOOP") throw isLink("cp", real);
		throw error;
	}
	const stats = await source.stat();
	if (stats.isDirectory()) {
		if (!options.recursive)
			throw forgeError(`fs.cp: ${real} is a folder: copy it with { recursive: true }.`, "ERR_FS_EISDIR");
		await fsp.mkdir(to, stats.mode & 0o777).catch((error: NodeJS.ErrnoException) => {
			if (error.code !== "EEXIST") throw error;
		});
		const target = await anchors.track(await fsp.open(to, c.O_RDONLY | c.O_DIRECTORY | NOFOLLOW), `${real} (copy)`);
		for (const entry of await fsp.readdir(anchors.at(source)))
			await copyTree(anchors, anchors.at(source, entry), join(real, entry), anchors.at(target, entry), options);
		return;
	}
	if (!stats.isFile()) throw notRegular(real, stats);
	let target: Handle;
	try {
		const flags = c.O_WRONLY | c.O_CREAT | NOFOLLOW | (options.force ? 0 : c.O_EXCL);
		target = await anchors.track(await fsp.open(to, flags, stats.mode & 0o777), `${real} (copy)`);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "EEXIST" && !options.errorOnExist) return;
		if (code === "ELOOP") throw isLink("cp", to);
		throw error;
	}
	await regular(target, to);
	await fsp.copyFile(anchors.at(source), anchors.at(target));
	if (options.preserveTimestamps) await target.utimes(stats.atime, stats.mtime);
}

/** A recursive `readdir` through open folders: names below the folder (or Dirents), a link never descended into. */
export async function listTree(anchors: Anchors, dir: Handle, withFileTypes: boolean, prefix = ""): Promise<unknown[]> {
	const listed: unknown[] = [];
	for (const entry of await fsp.readdir(anchors.at(dir), { withFileTypes: true })) {
		listed.push(withFileTypes ? entry : join(prefix, entry.name));
		if (!entry.isDirectory()) continue;
		let child: Handle;
		try {
			child = await anchors.track(
				await fsp.open(anchors.at(dir, entry.name), c.O_RDONLY | c.O_DIRECTORY | NOFOLLOW),
				entry.name,
			);
		} catch {
			continue; // gone, or swapped for a link or a file since it was listed
		}
		listed.push(...(await listTree(anchors, child, withFileTypes, join(prefix, entry.name))));
	}
	return listed;
}
