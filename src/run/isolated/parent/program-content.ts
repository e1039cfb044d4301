// The content a command's program had when it was approved. A program a tool can write (inside the project or the
// temp dir) is named by its content as well as its path: a grant of `build.sh` is a grant of what build.sh held
// then, and a tool that rewrites it is asked again. A shell line is bound to the files its words name there.
import { createHash, randomUUID } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { isInside } from "./paths.ts";

/** The most bytes of a program read to name it: a bigger one gets a name of its own at each check (asked each time). */
const MAX_HASHED_BYTES = 256 * 1024 * 1024;

/** sha256 (hex) of `bytes`. */
export function contentDigest(bytes: Uint8Array): string {
	return createHash("sha256").update(bytes).digest("hex");
}

/** The program's bytes and their digest, when it is a regular file inside one of `roots`; undefined otherwise. */
export async function programContent(
	path: string,
	roots: readonly string[],
): Promise<{ bytes: Buffer; digest: string } | undefined> {
	if (!roots.some((root) => isInside(path, root))) return undefined;
	try {
		const info = await stat(path);
		if (!info.isFile()) return undefined;
		if (info.size > MAX_HASHED_BYTES) return { bytes: Buffer.alloc(0), digest: `unread-${randomUUID()}` };
		const bytes = await readFile(path);
		return { bytes, digest: contentDigest(bytes) };
	} catch {
		return undefined;
	}
}

/**
 * One digest of the files a shell line's words name inside `roots` (`./scripts/build.sh`, `sh build.sh`), in order;
 * undefined when it names none. A file the line reaches another way (a Makefile, a script's own `source`) is not seen.
 */
export async function shellFilesDigest(
	line: string,
	cwd: string,
	roots: readonly string[],
	realpath: (path: string) => Promise<string>,
): Promise<string | undefined> {
	const hash = createHash("sha256");
	let named = 0;
	for (const word of new Set(line.split(/[\s;&|()<>`'"]+/).filter((w) => w && !w.startsWith("-")))) {
		const real = await realpath(resolve(cwd, word)).catch(() => undefined);
		const content = real ? await programContent(real, roots) : undefined;
		if (!content) continue;
		hash.update(`${real}\0${content.digest}\0`);
		named++;
	}
	return named ? hash.digest("hex") : undefined;
}
