// Whether a toolbox was used by this agent dir's Agent Forge: its compile cache holds an entry whose MAC is made with
// this agent dir's own key (cache-key.ts), which nothing outside this agent dir can make. A toolbox a forge here wrote
// to has such entries (every change of a tool's code writes one); a repository cloned from elsewhere has none (`.state`
// is not committed, and an entry carried in without the key is not authentic). Read without following a link.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CACHE_KEY_FILE } from "./cache-key.ts";
import { authentic, CACHE_DIR } from "./compile-cache.ts";

/** Entries looked at, at most: one authentic entry is enough, and a folder of planted files costs no more than this. */
const ENTRIES_LOOKED_AT = 8;
/** Larger than any entry the forge writes (a tool's logic is at most 200,000 characters): a bigger file is not read. */
const MAX_ENTRY_BYTES = 8 * 1024 * 1024;
const KEY_BYTES = 32;

const realDirectory = (path: string): boolean => {
	try {
		return lstatSync(path).isDirectory();
	} catch {
		return false;
	}
};

/** Whether `toolboxDir`'s compile cache holds an entry authenticated by the key in `forgeHome`. */
export function signedHere(toolboxDir: string, forgeHome: string): boolean {
	try {
		const key = readFileSync(join(forgeHome, CACHE_KEY_FILE));
		if (key.length !== KEY_BYTES) return false;
		const dir = join(toolboxDir, CACHE_DIR);
		if (![toolboxDir, join(toolboxDir, ".state"), dir].every(realDirectory)) return false;
		const entries = readdirSync(dir, { withFileTypes: true })
			.filter((entry) => entry.isFile() && entry.name.endsWith(".json"))
			.slice(0, ENTRIES_LOOKED_AT);
		return entries.some((entry) => {
			try {
				const path = join(dir, entry.name);
				if (lstatSync(path).size > MAX_ENTRY_BYTES) return false;
				return authentic(key, readFileSync(path, "utf8")) !== undefined;
			} catch {
				return false;
			}
		});
	} catch {
		return false;
	}
}
