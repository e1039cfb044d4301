// Compiled code by the content hash of its source, so a start with a warm cache compiles nothing: a tool's first
// call after a restart reads its esbuild output instead of transpiling and checking it again. Only code that passed
// the checks is ever written here, and tools cannot write the toolbox. An entry that also holds the module's shape (what
// its preflight load found) proves a re-check of that very source needless: a re-check after a `git pull` skips it.
// The folder is in the project, where anyone who can commit can put a file: each entry carries an HMAC-SHA256, under
// the user's own key (cache-key.ts), of all it asserts, and one without a valid MAC is a miss (compiled afresh).
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { version as esbuildVersion } from "esbuild";
import type { ModuleShape } from "../contract/module-shape.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import type { CacheKey } from "./cache-key.ts";

export const CACHE_DIR = join(".state", "compiled");
/** Bumped when the checks or the compile options change: an entry written under older rules must not skip the new ones. */
const RULES_VERSION = 2;
const SALT = `r${RULES_VERSION}-esbuild${esbuildVersion}`;
/** What the MAC is of, so a MAC made for anything else never fits an entry. */
const MAC_CONTEXT = "agent-forge compile cache entry v1\n";
const MAC_HEX = 64;

/** An entry's body: the source's hash and the rules it was checked under, besides the code, its map and its shape. */
interface EntryBody {
	hash: string;
	salt: string;
	code: string;
	map: string;
	shape?: ModuleShape;
}

export class CompileCache {
	private made = false;

	/** `key` is the user's (never from the project): without it nothing is read or written. */
	constructor(
		private readonly toolboxDir: string,
		private readonly key: Pick<CacheKey, "read" | "readOrCreate">,
	) {}

	private pathOf(hash: string): string {
		return join(this.toolboxDir, CACHE_DIR, `${hash.replace(/^sha256-/, "")}-${SALT}.json`);
	}

	async get(hash: string): Promise<CompiledCode | undefined> {
		return (await this.getChecked(hash))?.code;
	}

	/** The compiled code of a source, and the shape its preflight load found when that was recorded with it. */
	async getChecked(hash: string): Promise<{ code: CompiledCode; shape?: ModuleShape } | undefined> {
		try {
			const [key, text] = await Promise.all([this.key.read(), readFile(this.pathOf(hash), "utf8")]);
			if (!key) return undefined;
			const data = authentic(key, text);
			if (data?.hash !== hash || data.salt !== SALT) return undefined;
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
			const key = await this.key.readOrCreate();
			if (!key) return;
			const path = this.pathOf(hash);
			if (!this.made) {
				await mkdir(join(this.toolboxDir, CACHE_DIR), { recursive: true });
				this.made = true;
			}
			const body: EntryBody = {
				hash,
				salt: SALT,
				code: compiled.code,
				map: compiled.map,
				...(shape ? { shape } : {}),
			};
			const json = JSON.stringify(body);
			const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
			await writeFile(temp, `${macOf(key, json)}\n${json}`);
			await rename(temp, path);
		} catch {
			// Ignored; the folder is made again next time, should it have gone.
			this.made = false;
		}
	}
}

function macOf(key: Buffer, body: string): string {
	return createHmac("sha256", key).update(MAC_CONTEXT).update(body).digest("hex");
}

/** The body of an entry (`<mac>\n<json>`) whose MAC is the one `key` makes of it; undefined for any other text. */
function authentic(key: Buffer, text: string): Partial<EntryBody> | undefined {
	if (text.charAt(MAC_HEX) !== "\n") return undefined;
	const given = Buffer.from(text.slice(0, MAC_HEX), "hex");
	const body = text.slice(MAC_HEX + 1);
	const expected = Buffer.from(macOf(key, body), "hex");
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
	const data: unknown = JSON.parse(body);
	return typeof data === "object" && data !== null ? (data as Partial<EntryBody>) : undefined;
}
