// File operations on paths already checked, done on what was checked: each path's folder is opened once and must be
// the folder the check resolved (the kernel says where an open folder is), and the operation then goes through that
// open folder (`/proc/self/fd/<fd>/<name>`) without following a link in its last part. A folder or link swapped in
// by a command racing the broker therefore changes nothing: what is written is the file in the folder that was
// checked, or nothing. Only regular files are read or written (a FIFO or a device would block pi's process or fill
// its memory), opened without blocking; a read is capped. Linux only (it needs /proc); elsewhere the caller falls back.
import { constants as c } from "node:fs";
import * as fsp from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { copyTree, listTree, removeTree } from "./anchored-trees.ts";
import { Anchors, changed, forgeError, type Handle, isLink, NOFOLLOW, READ_CAP_BYTES, regular } from "./anchors.ts";

function encodingOf(options: unknown): BufferEncoding | undefined {
	if (typeof options === "string") return options as BufferEncoding;
	const encoding = options && typeof options === "object" ? (options as { encoding?: unknown }).encoding : undefined;
	return typeof encoding === "string" ? (encoding as BufferEncoding) : undefined;
}

function optionOf<T>(options: unknown, name: string): T | undefined {
	return options && typeof options === "object" ? ((options as Record<string, unknown>)[name] as T) : undefined;
}

/** Write flags as writeFile's `flag` option names them: "w" truncates, "a" appends, "x" refuses an existing file. */
function writeFlags(flag: unknown, append: boolean): number {
	const text = typeof flag === "string" ? flag : append ? "a" : "w";
	let flags = c.O_WRONLY | c.O_CREAT;
	flags |= text.includes("a") ? c.O_APPEND : c.O_TRUNC;
	if (text.includes("x")) flags |= c.O_EXCL;
	return flags;
}

async function readCapped(handle: Handle, path: string): Promise<Buffer> {
	await regular(handle, path);
	const chunks: Buffer[] = [];
	let total = 0;
	for (;;) {
		const chunk = Buffer.alloc(Math.min(1024 * 1024, READ_CAP_BYTES + 1 - total));
		const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
		if (bytesRead === 0) break;
		total += bytesRead;
		chunks.push(chunk.subarray(0, bytesRead));
		if (total > READ_CAP_BYTES)
			throw forgeError(
				`${path} is larger than ${READ_CAP_BYTES / 1024 / 1024} MB, the most a brokered read hands back; read it in parts with a command, or copy it into the project.`,
				"ERR_FORGE_UNSUPPORTED",
			);
	}
	return Buffer.concat(chunks);
}

/**
 * Runs fs/promises' `action` on `args`, whose paths are the real paths the check resolved. Returns what fs/promises
 * would (strings, Buffers, Stats, Dirents, undefined).
 */
export async function anchoredFs(action: string, args: unknown[], unreadable: readonly string[]): Promise<unknown> {
	const anchors = new Anchors(action);
	try {
		return await perform(anchors, action, args, unreadable);
	} catch (error) {
		throw anchors.restore(error);
	} finally {
		await anchors.close();
	}
}

async function perform(anchors: Anchors, action: string, args: unknown[], unreadable: readonly string[]) {
	const path = args[0] as string;
	switch (action) {
		case "readFile": {
			const data = await readCapped(await anchors.file(path, c.O_RDONLY), path);
			const encoding = encodingOf(args[1]);
			return encoding ? data.toString(encoding) : data;
		}
		case "writeFile":
		case "appendFile": {
			const options = args[2];
			const handle = await anchors.file(
				path,
				writeFlags(optionOf(options, "flag"), action === "appendFile"),
				optionOf<number>(options, "mode") ?? 0o666,
			);
			await regular(handle, path);
			const data = args[1];
			const encoding = encodingOf(options);
			await handle.writeFile(data as string | Uint8Array, encoding ? { encoding } : {});
			return undefined;
		}
		case "truncate": {
			const handle = await anchors.file(path, c.O_WRONLY);
			await regular(handle, path);
			await handle.truncate(args[1] as number | undefined);
			return undefined;
		}
		case "stat":
			return (await anchors.node(path)).handle.stat(args[1] as { bigint?: false });
		case "access": {
			const { handle } = await anchors.node(path);
			return fsp.access(anchors.at(handle), args[1] as number | undefined);
		}
		case "realpath": {
			const { handle } = await anchors.node(path);
			return fsp.realpath(anchors.at(handle), args[1] as { encoding?: BufferEncoding });
		}
		case "chmod": {
			const { handle } = await anchors.node(path);
			return fsp.chmod(anchors.at(handle), args[1] as number | string);
		}
		case "utimes": {
			const { handle } = await anchors.node(path);
			return fsp.utimes(anchors.at(handle), args[1] as number, args[2] as number);
		}
		case "readdir": {
			const dir = await anchors.file(path, c.O_RDONLY | c.O_DIRECTORY);
			if (optionOf<boolean>(args[1], "recursive") === true)
				return listTree(anchors, dir, optionOf<boolean>(args[1], "withFileTypes") === true);
			return fsp.readdir(anchors.at(dir), args[1] as { withFileTypes: true });
		}
		case "lstat":
		case "readlink":
		case "unlink": {
			const { dir, name } = await anchors.folder(path);
			return (fsp as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[action](
				anchors.at(dir, name),
				...args.slice(1),
			);
		}
		case "mkdir":
			return mkdir(anchors, path, args[1]);
		case "rm":
		case "rmdir": {
			const { dir, name } = await anchors.folder(path);
			const options = args[1];
			const recursive = optionOf<boolean>(options, "recursive") === true;
			const force = action === "rm" && optionOf<boolean>(options, "force") === true;
			try {
				if (recursive) await removeTree(anchors, dir, name);
				else if (action === "rmdir") await fsp.rmdir(anchors.at(dir, name));
				else await fsp.rm(anchors.at(dir, name));
			} catch (error) {
				if (!(force && (error as NodeJS.ErrnoException).code === "ENOENT")) throw error;
			}
			return undefined;
		}
		case "rename": {
			const from = await anchors.folder(path);
			const to = await anchors.folder(args[1] as string);
			// A link moved in is a link made: it would widen every later read and write through it.
			if ((await fsp.lstat(anchors.at(from.dir, from.name))).isSymbolicLink()) throw isLink(anchors.action, path);
			return fsp.rename(anchors.at(from.dir, from.name), anchors.at(to.dir, to.name));
		}
		case "copyFile": {
			const destination = args[1] as string;
			const source = await anchors.file(path, c.O_RDONLY);
			await regular(source, path);
			const exclusive = ((args[2] as number | undefined) ?? 0) & c.COPYFILE_EXCL;
			const target = await anchors.file(destination, c.O_WRONLY | c.O_CREAT | (exclusive ? c.O_EXCL : 0));
			await regular(target, destination);
			return fsp.copyFile(anchors.at(source), anchors.at(target));
		}
		case "cp": {
			const destination = args[1] as string;
			const options = args[2];
			const from = await anchors.folder(path);
			const to = await anchors.folder(destination);
			return copyTree(anchors, anchors.at(from.dir, from.name), path, anchors.at(to.dir, to.name), {
				recursive: optionOf<boolean>(options, "recursive") === true,
				force: optionOf<boolean>(options, "force") !== false,
				errorOnExist: optionOf<boolean>(options, "errorOnExist") === true,
				preserveTimestamps: optionOf<boolean>(options, "preserveTimestamps") === true,
				unreadable,
			});
		}
	}
	throw forgeError(`fs.${action} is not available to forged tools.`, "ERR_FORGE_UNSUPPORTED");
}

/** `mkdir`, `-p` included: each missing folder made in the one above it, opened without following a link. */
async function mkdir(anchors: Anchors, path: string, options: unknown): Promise<string | undefined> {
	const mode = (typeof options === "number" ? options : optionOf<number>(options, "mode")) ?? 0o777;
	if (optionOf<boolean>(options, "recursive") !== true) {
		const { dir, name } = await anchors.folder(path);
		await fsp.mkdir(anchors.at(dir, name), mode);
		return undefined;
	}
	// The nearest folder that exists (the check resolved it), then each missing one below it.
	const missing: string[] = [];
	let existing = path;
	for (;;) {
		const stats = await fsp.lstat(existing).catch(() => undefined);
		if (stats?.isDirectory()) break;
		if (stats) throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${existing}'`), { code: "EEXIST" });
		if (dirname(existing) === existing) break;
		missing.unshift(basename(existing));
		existing = dirname(existing);
	}
	let dir = await anchors.track(await fsp.open(existing, c.O_RDONLY | c.O_DIRECTORY), existing);
	if ((await fsp.readlink(anchors.at(dir))) !== existing) throw changed(path);
	let first: string | undefined;
	let at = existing;
	for (const name of missing) {
		at = join(at, name);
		try {
			await fsp.mkdir(anchors.at(dir, name), mode);
			first ??= at;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		}
		try {
			dir = await anchors.track(await fsp.open(anchors.at(dir, name), c.O_RDONLY | c.O_DIRECTORY | NOFOLLOW), at);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code === "ELOOP") throw isLink("mkdir", at);
			if (code === "ENOTDIR")
				throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${at}'`), { code: "EEXIST" });
			throw error;
		}
	}
	return first;
}
