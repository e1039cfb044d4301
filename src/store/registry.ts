// The registry model: `forge-registry.json`, a manifest derived from the per-tool files (a TypeBox schema, its types
// and its compiled validator), and its freshness check.
import { type Static, Type } from "typebox";
import { Compile } from "typebox/compile";
import type { ForgeErrorData } from "../contract/forge-error.ts";
import { isForgeableName } from "../contract/names.ts";
import { calledTools } from "../contract/tool-calls.ts";
import type { ToolMeta } from "../contract/tool-files.ts";

const ToolStatusSchema = Type.Union([Type.Literal("ok"), Type.Literal("broken")]);
export type ToolStatus = Static<typeof ToolStatusSchema>;

/** Size and modification time of a file: enough to notice that it changed since the registry was written. */
const FileStampSchema = Type.Object({ size: Type.Number(), mtimeMs: Type.Number() });
export type FileStamp = Static<typeof FileStampSchema>;

const ToolStampsSchema = Type.Object({ ts: Type.Optional(FileStampSchema), json: Type.Optional(FileStampSchema) });
export type ToolStamps = Static<typeof ToolStampsSchema>;

export const RegistryEntrySchema = Type.Object({
	name: Type.String(),
	description: Type.String(),
	parameters: Type.Record(Type.String(), Type.Unknown()),
	version: Type.Number(),
	hash: Type.String(),
	updatedAt: Type.String(),
	status: ToolStatusSchema,
	/** What made the tool broken (the stored part of the error: phase, message, location, hint). */
	error: Type.Optional(Type.Unsafe<ForgeErrorData>(Type.Object({ phase: Type.String(), message: Type.String() }))),
	stamps: ToolStampsSchema,
	/** How many tests the tool carries, and whether they passed on this very source. */
	tests: Type.Optional(Type.Number()),
	verified: Type.Optional(Type.Boolean()),
	/** The tests' arguments and expectations as text, for search. */
	examples: Type.Optional(Type.String()),
	/** The tools its source calls through `pi.useTool` (literal names; pi's built-ins included). */
	calls: Type.Optional(Type.Array(Type.String())),
});
export type RegistryEntry = Static<typeof RegistryEntrySchema>;

export const RegistrySchema = Type.Object({
	format: Type.Literal(1),
	tools: Type.Record(Type.String(), RegistryEntrySchema),
});
export type Registry = Static<typeof RegistrySchema>;

/**
 * What a registry file must hold to be trusted: the fields the toolbox reads before it compares stamps. Anything else
 * wrong is caught where the files are compared with it (a wrong stamp is a stale entry, re-derived).
 */
const TrustedRegistry = Compile(
	Type.Object({
		format: Type.Literal(1),
		tools: Type.Record(
			Type.String(),
			Type.Object({
				...Type.Pick(RegistryEntrySchema, ["name", "hash", "description", "version", "status"]).properties,
				// Objects (not arrays); their insides are read where they are used.
				parameters: Type.Object({}),
				stamps: Type.Object({}),
			}),
		),
	}),
);

export const emptyRegistry = (): Registry => ({ format: 1, tools: {} });

/** The entry with the tools `source` calls through `pi.useTool` (none: no field). */
export function withCalls(entry: RegistryEntry, source: string | undefined): RegistryEntry {
	const calls = source === undefined ? [] : calledTools(source);
	if (calls.length === 0) {
		const { calls: _none, ...rest } = entry;
		return rest;
	}
	return { ...entry, calls };
}

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
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch {
		return undefined;
	}
	if (!TrustedRegistry.Check(data)) return undefined;
	// Each entry is filed under its own name, one a forged tool could have (a name becomes a path in the toolbox).
	for (const [name, entry] of Object.entries(data.tools))
		if (entry.name !== name || !isForgeableName(name)) return undefined;
	return data as Registry;
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
