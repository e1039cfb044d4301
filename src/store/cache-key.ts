// The per-user secret that authenticates the compile cache's entries: 32 random bytes in `<agent dir>/forge/`,
// outside every project, mode 0600, made at the first write. An entry only counts when it was written with this key,
// so a file put into a project's `.state/compiled/` (a commit, an install script) is a miss, never code that runs.
import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, open, rename, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export const CACHE_KEY_FILE = "compile-cache.key";
const KEY_BYTES = 32;

export class CacheKey {
	private loaded: Promise<Buffer | undefined> | undefined;

	constructor(readonly file: string) {}

	/** The key; undefined while there is none (nothing is made: reading the cache writes nothing). */
	read(): Promise<Buffer | undefined> {
		this.loaded ??= load(this.file);
		return this.loaded;
	}

	/** The key, made when there is none yet or the file is not a key; undefined when it cannot be made. */
	async readOrCreate(): Promise<Buffer | undefined> {
		const known = await this.read();
		if (known) return known;
		this.loaded = create(this.file);
		return this.loaded;
	}
}

/** The key in `file`: a regular file of exactly 32 bytes; one others may read is made 0600 first. */
async function load(file: string): Promise<Buffer | undefined> {
	let handle: Awaited<ReturnType<typeof open>> | undefined;
	try {
		handle = await open(file, "r");
		const stats = await handle.stat();
		if (!stats.isFile() || stats.size !== KEY_BYTES) return undefined;
		if (process.platform !== "win32" && (stats.mode & 0o077) !== 0) await handle.chmod(0o600);
		const key = Buffer.alloc(KEY_BYTES);
		const { bytesRead } = await handle.read(key, 0, KEY_BYTES, 0);
		return bytesRead === KEY_BYTES ? key : undefined;
	} catch {
		return undefined;
	} finally {
		await handle?.close().catch(() => undefined);
	}
}

/**
 * Writes a new key beside `file` and links it into place, so a reader never sees half a key; when another process
 * made one first, that one is used. A file that is no key (another size, not a file) is replaced.
 */
async function create(file: string): Promise<Buffer | undefined> {
	const temp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
	try {
		await mkdir(dirname(file), { recursive: true, mode: 0o700 });
		const key = randomBytes(KEY_BYTES);
		await writeFile(temp, key, { mode: 0o600, flag: "wx" });
		await chmod(temp, 0o600);
		try {
			await link(temp, file);
			return key;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		}
		const theirs = await load(file);
		if (theirs) return theirs;
		await rename(temp, file);
		return key;
	} catch {
		return undefined;
	} finally {
		await unlink(temp).catch(() => undefined);
	}
}
