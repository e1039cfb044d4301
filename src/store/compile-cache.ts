// Compiled code by the content hash of its source, so a start with a warm cache compiles nothing: a tool's first
// call after a restart reads its esbuild output instead of transpiling and checking it again. Only code that passed
// the checks is ever written here, and tools cannot write the toolbox. An entry that also holds the module's shape (what
// its preflight load found) proves a re-check of that very source needless: a re-check after a `git pull` skips it.
// The folder is in the project, where anyone who can commit can put a file: each entry carries an HMAC-SHA256, under
// the user's own key (cache-key.ts), of all it asserts, and one without a valid MAC is a miss (compiled afresh). No
// link in the way is followed: `.state` and `.state/compiled` must be real folders, and an entry a regular file.
import { createHmac, timingSafeEqual } from "node:crypto";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { version as esbuildVersion } from "esbuild";
import type { ModuleShape } from "../contract/module-shape.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import type { CacheKey } from "./cache-key.ts";
import { childPath, createNew, isRealDirectory, readRegular, realChildDir } from "./safe-fs.ts";

const STATE_DIR = ".state";
export const CACHE_DIR = join(STATE_DIR, "compiled");
/** A source's hash as the forge makes it: an entry's file is named after nothing else. */
const HASH = /^(sha256-)?[0-9a-f]{64}$/;
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
	private made: string | undefined;

	/** `key` is the user's (never from the project): without it nothing is read or written. */
	constructor(
		private readonly toolboxDir: string,
		private readonly key: Pick<CacheKey, "read" | "readOrCreate">,
	) {}

	/** An entry's file name; undefined for a hash the forge does not make. */
	private fileOf(hash: string): string | undefined {
		return HASH.test(hash) ? `${hash.replace(/^sha256-/, "")}-${SALT}.json` : undefined;
	}

	/** The cache folder when `.state` and it are real folders (a link there is not followed: no entry is read). */
	private async existingDir(): Promise<string | undefined> {
		const state = join(this.toolboxDir, STATE_DIR);
		const dir = join(this.toolboxDir, CACHE_DIR);
		return (await isRealDirectory(this.toolboxDir)) && (await isRealDirectory(state)) && (await isRealDirectory(dir))
			? dir
			: undefined;
	}

	async get(hash: string): Promise<CompiledCode | undefined> {
		return (await this.getChecked(hash))?.code;
	}

	/** The compiled code of a source, and the shape its preflight load found when that was recorded with it. */
	async getChecked(hash: string): Promise<{ code: CompiledCode; shape?: ModuleShape } | undefined> {
		try {
			const file = this.fileOf(hash);
			const dir = file && (await this.existingDir());
			if (!file || !dir) return undefined;
			const [key, text] = await Promise.all([this.key.read(), readRegular(childPath(dir, file))]);
			if (!key || text === undefined) return undefined;
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
			const file = this.fileOf(hash);
			const key = file && (await this.key.readOrCreate());
			if (!file || !key) return;
			if (!(await isRealDirectory(this.toolboxDir))) return;
			this.made ??= await realChildDir(await realChildDir(this.toolboxDir, STATE_DIR), "compiled");
			const path = childPath(this.made, file);
			const body: EntryBody = {
				hash,
				salt: SALT,
				code: compiled.code,
				map: compiled.map,
				...(shape ? { shape } : {}),
			};
			const json = JSON.stringify(body);
			const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
			const handle = await createNew(temp);
			try {
				await handle.writeFile(`${macOf(key, json)}\n${json}`);
			} finally {
				await handle.close();
			}
			await rename(temp, path);
		} catch {
			// Ignored; the folder is made (and checked) again next time, should it have gone.
			this.made = undefined;
		}
	}
}

function macOf(key: Buffer, body: string): string {
	return createHmac("sha256", key).update(MAC_CONTEXT).update(body).digest("hex");
}

/** The body of an entry (`<mac>\n<json>`) whose MAC is the one `key` makes of it; undefined for any other text. */
export function authentic(key: Buffer, text: string): Partial<EntryBody> | undefined {
	if (text.charAt(MAC_HEX) !== "\n") return undefined;
	const given = Buffer.from(text.slice(0, MAC_HEX), "hex");
	const body = text.slice(MAC_HEX + 1);
	const expected = Buffer.from(macOf(key, body), "hex");
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
	const data: unknown = JSON.parse(body);
	return typeof data === "object" && data !== null ? (data as Partial<EntryBody>) : undefined;
}
