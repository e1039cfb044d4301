// Compiled code by the content hash of its source, so a start with a warm cache compiles nothing: a tool's first
// call after a restart reads its esbuild output instead of transpiling and checking it again. Only code that passed
// the checks is ever written here, and tools cannot write the toolbox.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { version as esbuildVersion } from "esbuild";
import type { CompiledCode } from "../forge/transpile.ts";

export const CACHE_DIR = join(".state", "compiled");
/** Bumped when the checks or the compile options change: an entry written under older rules must not skip the new ones. */
const RULES_VERSION = 2;
const SALT = `r${RULES_VERSION}-esbuild${esbuildVersion}`;

export class CompileCache {
	constructor(private readonly toolboxDir: string) {}

	private pathOf(hash: string): string {
		return join(this.toolboxDir, CACHE_DIR, `${hash.replace(/^sha256-/, "")}-${SALT}.json`);
	}

	async get(hash: string): Promise<CompiledCode | undefined> {
		try {
			const data = JSON.parse(await readFile(this.pathOf(hash), "utf8")) as Partial<CompiledCode>;
			return typeof data.code === "string" && typeof data.map === "string" ? { code: data.code, map: data.map } : undefined;
		} catch {
			return undefined;
		}
	}

	/** Best effort: a cache that cannot be written only costs a compile next time. */
	async put(hash: string, compiled: CompiledCode): Promise<void> {
		try {
			const path = this.pathOf(hash);
			await mkdir(join(this.toolboxDir, CACHE_DIR), { recursive: true });
			const temp = `${path}.${process.pid}.tmp`;
			await writeFile(temp, JSON.stringify(compiled));
			await rename(temp, path);
		} catch {
			// ignored
		}
	}
}
