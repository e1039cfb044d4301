// The registry model: `forge-registry.json`, a manifest derived from the per-tool files, and its freshness check.
import type { ForgeErrorData } from "../contract/forge-error.ts";
import type { ToolMeta } from "../contract/tool-files.ts";

export type ToolStatus = "ok" | "broken";

/** Size and modification time of a file: enough to notice that it changed since the registry was written. */
export interface FileStamp {
	size: number;
	mtimeMs: number;
}

export interface ToolStamps {
	ts?: FileStamp;
	json?: FileStamp;
}

export interface RegistryEntry {
	name: string;
	description: string;
	parameters: Record<string, unknown>;
	version: number;
	hash: string;
	updatedAt: string;
	status: ToolStatus;
	error?: ForgeErrorData;
	stamps: ToolStamps;
	/** How many tests the tool carries, and whether they passed on this very source. */
	tests?: number;
	verified?: boolean;
	/** The tests' arguments and expectations as text, for search. */
	examples?: string;
}

export interface Registry {
	format: 1;
	tools: Record<string, RegistryEntry>;
}

export const emptyRegistry = (): Registry => ({ format: 1, tools: {} });

export function entryFromMeta(
	meta: ToolMeta,
	stamps: ToolStamps,
	status: ToolStatus = "ok",
	error?: ForgeErrorData,
): RegistryEntry {
	const { name, description, parameters, version, hash, updatedAt, tests } = meta;
	const testing = tests?.length
		? {
				tests: tests.length,
				verified: meta.verifiedHash === hash,
				examples: tests
					.map(
						(t) =>
							`${JSON.stringify(t.args)} ${t.expect ?? t.matches ?? (t.equals !== undefined ? JSON.stringify(t.equals) : "")}`,
					)
					.join(" ")
					.slice(0, 500),
			}
		: {};
	return {
		name,
		description,
		parameters,
		version,
		hash,
		updatedAt,
		status,
		...(error ? { error } : {}),
		stamps,
		...testing,
	};
}

/** Parses the registry; anything unexpected means "rebuild it" (undefined), never an exception. */
export function parseRegistry(text: string | undefined): Registry | undefined {
	if (text === undefined) return undefined;
	try {
		const data = JSON.parse(text) as Registry;
		if (data?.format !== 1 || typeof data.tools !== "object" || data.tools === null) return undefined;
		for (const [name, entry] of Object.entries(data.tools)) {
			if (!isEntry(entry, name)) return undefined;
		}
		return data;
	} catch {
		return undefined;
	}
}

function isEntry(entry: Partial<RegistryEntry> | null | undefined, name: string): boolean {
	const isObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
	return (
		isObject(entry) &&
		entry!.name === name &&
		typeof entry!.hash === "string" &&
		typeof entry!.description === "string" &&
		typeof entry!.version === "number" &&
		(entry!.status === "ok" || entry!.status === "broken") &&
		isObject(entry!.parameters) &&
		isObject(entry!.stamps)
	);
}

/** One tool per line: quick to write for thousands of tools, and still readable and diffable. */
export function serializeRegistry(registry: Registry): string {
	const names = Object.keys(registry.tools).sort();
	const lines = names.map(
		(name, i) =>
			`\t${JSON.stringify(name)}: ${JSON.stringify(registry.tools[name])}${i < names.length - 1 ? "," : ""}`,
	);
	return `{"format": ${registry.format}, "tools": {\n${lines.join("\n")}\n}}\n`;
}

const sameStamp = (a?: FileStamp, b?: FileStamp) => a?.size === b?.size && a?.mtimeMs === b?.mtimeMs;

/** The same files as recorded: neither changed size nor modification time. */
export const sameStamps = (a: ToolStamps, b: ToolStamps) => sameStamp(a.ts, b.ts) && sameStamp(a.json, b.json);

/** Names whose files on disk differ from what the registry recorded (added, removed or changed). */
export function staleNames(registry: Registry, onDisk: ReadonlyMap<string, ToolStamps>): string[] {
	const stale = new Set<string>();
	for (const [name, stamps] of onDisk) {
		const entry = registry.tools[name];
		if (!entry || !sameStamps(entry.stamps, stamps)) stale.add(name);
	}
	for (const name of Object.keys(registry.tools)) if (!onDisk.has(name)) stale.add(name);
	return [...stale].sort();
}
