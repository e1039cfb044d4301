// The grants a person remembered ("always allow" / "always deny"), per project and tool, in one private JSON file.
import { mkdir, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";
import type { ToolGrants } from "./decide.ts";

/** `{ "projects": { "<project realpath>": { "<tool>": { "allow": [...], "deny": [...] } } } }` */
export interface GrantsFile {
	projects: Record<string, Record<string, ToolGrants>>;
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export class GrantsStore {
	readonly file: string;
	private data: GrantsFile = emptyGrants();
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

	get(project: string, tool: string): ToolGrants {
		const grants = this.data.projects[project]?.[tool];
		return { allow: [...(grants?.allow ?? [])], deny: [...(grants?.deny ?? [])] };
	}

	/** Remembers a verdict at once: re-reads the file (a person may have edited it), moves the key, writes it back. */
	remember(project: string, tool: string, key: string, verdict: "allow" | "deny"): Promise<void> {
		return this.enqueue(async () => {
			const data = await this.read();
			const tools = (data.projects[project] ??= record());
			const grants = (tools[tool] ??= { allow: [], deny: [] });
			const other = verdict === "allow" ? "deny" : "allow";
			grants[other] = grants[other].filter((k) => k !== key);
			if (!grants[verdict].includes(key)) grants[verdict].push(key);
			// Kept in memory first: a grant a person just gave holds for this session even if the disk refuses it.
			this.data = data;
			await mkdir(dirname(this.file), { recursive: true, mode: DIR_MODE });
			await writeFileAtomic(this.file, serializeGrants(data), { mode: FILE_MODE });
		});
	}

	private enqueue(job: () => Promise<void>): Promise<void> {
		const run = this.queue.then(job);
		this.queue = run.catch(() => undefined);
		return run;
	}

	private async read(): Promise<GrantsFile> {
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
	if (!isRecord(raw) || !isRecord(raw.projects)) return undefined;
	const data = emptyGrants();
	for (const [project, tools] of Object.entries(raw.projects)) {
		if (!isRecord(tools)) return undefined;
		const kept = record<ToolGrants>();
		for (const [tool, grants] of Object.entries(tools)) {
			if (!isRecord(grants)) return undefined;
			kept[tool] = { allow: keys(grants.allow), deny: keys(grants.deny) };
		}
		data.projects[project] = kept;
	}
	return data;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === "object" && value !== null && !Array.isArray(value);

const keys = (list: unknown): string[] =>
	Array.isArray(list) ? [...new Set(list.filter((k): k is string => typeof k === "string" && k.length > 0))] : [];
