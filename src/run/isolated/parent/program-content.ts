// The content a command's program had when it was approved. A program a tool can write (inside the project or the
// temp dir) is named by its content as well as its path: a grant of `build.sh` is a grant of what build.sh held
// then, and a tool that rewrites it is asked again. A shell line is bound to the files its words name there (see
// shell-line.ts for the lines that cannot be).
import { createHash, randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { readShellLine, UNBOUND } from "../shell-line.ts";
import { isInside } from "./paths.ts";

/** The most bytes of a program read to name it: a bigger one gets a name of its own at each check (asked each time). */
const MAX_HASHED_BYTES = 256 * 1024 * 1024;

function isExecutable(path: string): boolean {
	try {
		return (statSync(path).mode & 0o111) !== 0;
	} catch {
		return false;
	}
}

function isFile(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

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

/** What a shell line runs from files a tool can write: their one digest, the files, and why it is not bound, if not. */
export interface ShellBinding {
	/** Undefined when the line names no such file. */
	digest?: string;
	files: { path: string; bytes: Buffer }[];
	/** Why what the line runs cannot be told from it (shell-line.ts), or a script it runs is not a file now. */
	unbound?: string;
}

/**
 * The files a shell line's words name inside `roots` (`./scripts/build.sh`, `sh build.sh`, `sh < build.sh`), in
 * order, with their bytes and their one digest. A file the line reaches another way (a Makefile, a script's own
 * `source`) is not seen; a line that decides what it runs only when it runs (`cd`, `$PWD`, a pattern) is `unbound`.
 */
export async function shellFiles(
	line: string,
	cwd: string,
	roots: readonly string[],
	realpath: (path: string) => Promise<string>,
): Promise<ShellBinding> {
	const hash = createHash("sha256");
	const files: { path: string; bytes: Buffer }[] = [];
	const read = readShellLine(line);
	let unbound = read.unbound;
	for (const { text, role } of read.words) {
		if (!text || (role === "argument" && text.startsWith("-"))) continue;
		const real = await realpath(resolve(cwd, text)).catch(() => undefined);
		// A script or input that is not a file now could be made one later, and run under the same grant.
		const runs = role === "script" || role === "input" || (role === "command" && text.includes("/"));
		if (runs && (!real || !isFile(real))) unbound ??= UNBOUND.missing(text);
		// What runs: an executable file, or a script handed to an interpreter (data files a line names stay unbound).
		if (!real || !(isExecutable(real) || role === "script" || role === "input")) continue;
		const content = await programContent(real, roots);
		if (!content || files.some((file) => file.path === real)) continue;
		hash.update(`${real}\0${content.digest}\0`);
		files.push({ path: real, bytes: content.bytes });
	}
	return { ...(files.length ? { digest: hash.digest("hex") } : {}), files, ...(unbound ? { unbound } : {}) };
}

/** The one digest of the files a shell line runs (see shellFiles); undefined when it names none. */
export async function shellFilesDigest(
	line: string,
	cwd: string,
	roots: readonly string[],
	realpath: (path: string) => Promise<string>,
): Promise<string | undefined> {
	return (await shellFiles(line, cwd, roots, realpath)).digest;
}

/**
 * What a command must run with, checked against `digest` (what was approved): the program, or the files a shell line
 * names, with their bytes now; undefined when they changed since (the command is not run).
 */
export async function approvedFiles(
	command: { file: string; args: string[]; shell: boolean; cwd: string },
	digest: string,
	roots: readonly string[],
): Promise<{ path: string; bytes: Buffer }[] | undefined> {
	const real = (path: string) => realpath(path).catch(() => path);
	if (command.shell) {
		const line = [command.file, ...command.args].join(" ");
		const named = await shellFiles(line, await real(command.cwd), roots, realpath);
		return named.digest === digest ? named.files : undefined;
	}
	const path = await real(command.file);
	const program = await programContent(path, roots);
	return program?.digest === digest ? [{ path, bytes: program.bytes }] : undefined;
}
