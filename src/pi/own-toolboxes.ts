// The project toolboxes this agent dir's Agent Forge made: `<agentDir>/forge/own-toolboxes.json` (0600), keyed by
// the project's real path. A project whose toolbox is recorded here keeps its tools after a restart without asking;
// a repository cloned from elsewhere brings a toolbox that is not. The record holds the toolbox folder's real path and
// its identity (device and inode): the same path holding another folder (a project deleted, a repository cloned in
// its place) is not the toolbox that was made, and a project reached through a link is keyed by where it really is.
import { mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { trustKey } from "./trust-evidence.ts";

export const OWN_TOOLBOXES_FILE = "own-toolboxes.json";

interface OwnToolbox {
	/** The toolbox folder's real path when it was made. */
	toolbox: string;
	/** `<device>:<inode>` of that folder. */
	id: string;
	/** When it was made (ISO), for a person reading the file. */
	made: string;
}

/** The folder's real path and identity; undefined when it is not a folder that exists. */
function identify(dir: string): { toolbox: string; id: string } | undefined {
	try {
		const toolbox = realpathSync(dir);
		const stats = statSync(toolbox);
		return stats.isDirectory() ? { toolbox, id: `${stats.dev}:${stats.ino}` } : undefined;
	} catch {
		return undefined;
	}
}

export class OwnToolboxes {
	readonly file: string;

	constructor(forgeHome: string) {
		this.file = join(forgeHome, OWN_TOOLBOXES_FILE);
	}

	private read(): Record<string, OwnToolbox> {
		try {
			const data: unknown = JSON.parse(readFileSync(this.file, "utf8"));
			if (typeof data === "object" && data !== null && !Array.isArray(data))
				return data as Record<string, OwnToolbox>;
		} catch {
			// No record yet, or one that cannot be read: no toolbox counts as made here.
		}
		return {};
	}

	/** Whether `toolboxDir`, the toolbox of the project at `cwd`, is the very folder this agent dir made. */
	has(cwd: string, toolboxDir: string): boolean {
		const data = this.read();
		const key = trustKey(cwd);
		const entry = Object.hasOwn(data, key) ? data[key] : undefined;
		const now = identify(toolboxDir);
		return !!entry && !!now && entry.toolbox === now.toolbox && entry.id === now.id;
	}

	/** Records `toolboxDir` as made here for the project at `cwd` (best effort: a record that fails is not fatal). */
	add(cwd: string, toolboxDir: string, now = new Date()): boolean {
		const made = identify(toolboxDir);
		if (!made) return false;
		try {
			const data = this.read();
			data[trustKey(cwd)] = { ...made, made: now.toISOString() };
			mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
			writeFileAtomic.sync(this.file, `${JSON.stringify(data, null, "\t")}\n`, { mode: 0o600 });
			return true;
		} catch {
			return false;
		}
	}
}
