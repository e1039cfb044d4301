// Compiled code by the content hash of its source, so a start with a warm cache compiles nothing: a tool's first
// call after a restart reads its esbuild output instead of transpiling and checking it again. Only code that passed
// the checks is ever written here, and tools cannot write the toolbox. An entry that also holds the module's shape (what
// its preflight load found) proves a re-check of that very source needless: a re-check after a `git pull` skips it.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { version as esbuildVersion } from "esbuild";
import type { ModuleShape } from "../contract/module-shape.ts";
import type { CompiledCode } from "../forge/transpile.ts";

export const CACHE_DIR = join(".state", "compiled");
/** Bumped when the checks or the compile options change: an entry written under older rules must not skip the new ones. */
const RULES_VERSION = 2;
const SALT = `r${RULES_VERSION}-esbuild${esbuildVersion}`;

export class CompileCache {
	private made = false;

	constructor(private readonly toolboxDir: string) {}

	private pathOf(hash: string): string {
		return join(this.toolboxDir, CACHE_DIR, `${hash.replace(/^sha256-/, "")}-${SALT}.json`);
	}

	async get(hash: string): Promise<CompiledCode | undefined> {
		return (await this.getChecked(hash))?.code;
	}

	/** The compiled code of a source, and the shape its preflight load found when that was recorded with it. */
	async getChecked(hash: string): Promise<{ code: CompiledCode; shape?: ModuleShape } | undefined> {
		try {
			const data = JSON.parse(await readFile(this.pathOf(hash), "utf8")) as Partial<CompiledCode> & {
				shape?: ModuleShape;
			};
			if (typeof data.code !== "string" || typeof data.map !== "string") return undefined;
			const shape = data.shape;
			const sound =
				typeof shape === "object" &&
				shape !== null &&
				typeof shape.name === "string" &&
				typeof shape.description === "string" &&
				typeof shape.parameters === "object" &&
				shape.parameters !== null;
			return { code: { code: data.code, map: data.map }, ...(sound ? { shape } : {}) };
		} catch {
			return undefined;
		}
	}

	/** Best effort: a cache that cannot be written only costs a compile next time. */
	async put(hash: string, compiled: CompiledCode, shape?: ModuleShape): Promise<void> {
		try {
			const path = this.pathOf(hash);
			if (!this.made) {
				await mkdir(join(this.toolboxDir, CACHE_DIR), { recursive: true });
				this.made = true;
			}
			const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
			await writeFile(temp, JSON.stringify({ code: compiled.code, map: compiled.map, ...(shape ? { shape } : {}) }));
			await rename(temp, path);
		} catch {
			// Ignored; the folder is made again next time, should it have gone.
			this.made = false;
		}
	}
}
