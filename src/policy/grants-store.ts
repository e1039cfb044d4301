// The grants a person remembered ("always allow" / "always deny"), per project and tool, in one private JSON file that
// people can read and edit. An allow holds for the version of the tool it was given to (its hash); a deny for every
// version. The file is read again whenever it changed on disk, so a grant given elsewhere holds from the next decision.
import { mkdir, readFile, rename, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { type Static, Type } from "typebox";
import { Compile } from "typebox/compile";
import writeFileAtomic from "write-file-atomic";
import type { ToolGrants } from "./decide.ts";

/**
 * One tool's grants. `hash`: the version its "allow" list was given to ("*", written by a person, means every version;
 * absent, as in files from before versions were bound, it holds until the toolbox next opens and binds it).
 */
export const ToolGrantsEntrySchema = Type.Object({
	hash: Type.Optional(Type.String()),
	allow: Type.Array(Type.String()),
	deny: Type.Array(Type.String()),
});
export type ToolGrantsEntry = Static<typeof ToolGrantsEntrySchema>;

/** `{ "projects": { "<project realpath>": { "<tool>": { "hash": "…", "allow": [...], "deny": [...] } } } }` */
export const GrantsFileSchema = Type.Object({
	projects: Type.Record(Type.String(), Type.Record(Type.String(), ToolGrantsEntrySchema)),
});
export type GrantsFile = Static<typeof GrantsFileSchema>;

/**
 * What a file must be to be read as grants at all: projects of tools of objects. Within a tool's entry a person's
 * slip (a number in a list, an empty hash) is dropped, not fatal (see `parseGrants`).
 */
const ReadableGrants = Type.Object({
	projects: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
});
let readable: ReturnType<typeof Compile<typeof ReadableGrants>> | undefined;

/** Every version of the tool: what a person writes as "hash" for a grant that survives re-forges. */
export const ANY_VERSION = "*";

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export class GrantsStore {
	readonly file: string;
	private data: GrantsFile = emptyGrants();
	/** What the file was when last read or written ("" for missing); a change means it is read again. */
	private stamp: string | undefined;
	/** Every read and write of the file runs in this queue, so concurrent remember() calls never lose one another. */
	private queue: Promise<unknown> = Promise.resolve();

	constructor(file: string) {
		this.file = file;
	}

	/** Reads the file; a missing one means no grants, a corrupt one is kept aside as `<file>.corrupt-<ts>`. Never throws. */
	load(): Promise<void> {
		return this.enqueue(async () => {
			this.data = await this.read();
		});
	}

	/** Reads the file again if it changed since it was last read or written (one stat when it did not). Never throws. */
	refresh(): Promise<void> {
		return this.enqueue(async () => {
			if ((await this.stampOf()) !== this.stamp) this.data = await this.read();
		});
	}

	/**
	 * What holds for a version of a tool (`hash`): its "allow" list only when given to that version (or to every
	 * version), its "deny" list always. Without `hash`, both lists as they are.
	 */
	get(project: string, tool: string, hash?: string): ToolGrants {
		const grants = this.entry(project, tool);
		const current =
			hash === undefined || grants.hash === undefined || grants.hash === ANY_VERSION || grants.hash === hash;
		return { allow: current ? grants.allow : [], deny: grants.deny };
	}

	/** The tool's entry as the file has it (copies). */
	entry(project: string, tool: string): ToolGrantsEntry {
		const grants = this.data.projects[project]?.[tool];
		return {
			...(grants?.hash === undefined ? {} : { hash: grants.hash }),
			allow: [...(grants?.allow ?? [])],
			deny: [...(grants?.deny ?? [])],
		};
	}

	/** The tools of a project that have an entry. */
	tools(project: string): string[] {
		return Object.keys(this.data.projects[project] ?? {});
	}

	/**
	 * Remembers a verdict at once: re-reads the file (a person may have edited it), moves the key, writes it back.
	 * An allow for another version than the one the list was given to starts the list afresh for this one.
	 */
	remember(project: string, tool: string, key: string, verdict: "allow" | "deny", hash?: string): Promise<void> {
		return this.update((data) => {
			data.projects[project] ??= record();
			const tools = data.projects[project];
			tools[tool] ??= { allow: [], deny: [] };
			const grants = tools[tool];
			if (verdict === "allow" && hash !== undefined && grants.hash !== ANY_VERSION && grants.hash !== hash) {
				if (grants.hash !== undefined) grants.allow = [];
				grants.hash = hash;
			}
			const other = verdict === "allow" ? "deny" : "allow";
			grants[other] = grants[other].filter((k) => k !== key);
			if (!grants[verdict].includes(key)) grants[verdict].push(key);
			return true;
		});
	}

	/** Forgets `key` (from both lists), or with no key the tool's whole entry; resolves to whether anything was there. */
	revoke(project: string, tool: string, key?: string): Promise<boolean> {
		let removed = false;
		return this.update((data) => {
			const grants = data.projects[project]?.[tool];
			if (!grants) return false;
			if (key === undefined) {
				delete data.projects[project][tool];
				removed = true;
			} else {
				removed = grants.allow.includes(key) || grants.deny.includes(key);
				grants.allow = grants.allow.filter((k) => k !== key);
				grants.deny = grants.deny.filter((k) => k !== key);
			}
			if (Object.keys(data.projects[project]).length === 0) delete data.projects[project];
			return removed;
		}).then(() => removed);
	}

	/** Applies `change` to the file as it is on disk now; writes it back when `change` says it changed something. */
	update(change: (data: GrantsFile) => boolean): Promise<void> {
		return this.enqueue(async () => {
			const data = await this.read();
			// Kept in memory first: a grant a person just gave holds for this session even if the disk refuses it.
			this.data = data;
			if (!change(data)) return;
			await mkdir(dirname(this.file), { recursive: true, mode: DIR_MODE });
			await writeFileAtomic(this.file, serializeGrants(data), { mode: FILE_MODE });
			this.stamp = await this.stampOf();
		});
	}

	private enqueue(job: () => Promise<void>): Promise<void> {
		const run = this.queue.then(job);
		this.queue = run.catch(() => undefined);
		return run;
	}

	private async stampOf(): Promise<string> {
		try {
			const stats = await stat(this.file);
			return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
		} catch {
			return "";
		}
	}

	private async read(): Promise<GrantsFile> {
		this.stamp = await this.stampOf();
		let text: string;
		try {
			text = await readFile(this.file, "utf8");
		} catch {
			return emptyGrants();
		}
		const data = parseGrants(text);
		if (data) return data;
		const stamp = new Date().toISOString().replace(/[:.]/g, "-");
		await rename(this.file, `${this.file}.corrupt-${stamp}`).catch(() => undefined);
		this.stamp = "";
		return emptyGrants();
	}
}

export const emptyGrants = (): GrantsFile => ({ projects: record() });

/** A map without a prototype: project paths and tool names are data, and "__proto__" must stay just a key. */
const record = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

export function serializeGrants(data: GrantsFile): string {
	return `${JSON.stringify(data, null, "\t")}\n`;
}

/** The grants in `text`, or undefined when it is not a grants file. Stray non-string keys are dropped, not fatal. */
export function parseGrants(text: string): GrantsFile | undefined {
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch {
		return undefined;
	}
	readable ??= Compile(ReadableGrants);
	if (!readable.Check(raw)) return undefined;
	const data = emptyGrants();
	for (const [project, tools] of Object.entries(raw.projects)) {
		const kept = record<ToolGrantsEntry>();
		for (const [tool, grants] of Object.entries(tools)) {
			const hash = typeof grants.hash === "string" && grants.hash.length > 0 ? { hash: grants.hash } : {};
			kept[tool] = { ...hash, allow: keys(grants.allow), deny: keys(grants.deny) };
		}
		data.projects[project] = kept;
	}
	return data;
}

const keys = (list: unknown): string[] =>
	Array.isArray(list) ? [...new Set(list.filter((k): k is string => typeof k === "string" && k.length > 0))] : [];
