// The on-disk format of one forged tool: file names, the `forge-<name>.json` metadata (a TypeBox schema, its type and
// its compiled validator), and content hashes.
import { type Static, Type } from "typebox";
import { Compile } from "typebox/compile";
import { ForgeError, fail, ok, type Result } from "./forge-error.ts";
import { isForgeableName } from "./names.ts";
import { parseTests, type ToolTest } from "./tool-tests.ts";

export { hashSource } from "./hash.ts";

/** `forge-<name>.json` as the forge writes it and reads it back. */
export const ToolMetaSchema = Type.Object({
	name: Type.String(),
	description: Type.String(),
	/** JSON Schema of the tool's arguments (an object schema). */
	parameters: Type.Record(Type.String(), Type.Unknown()),
	/** Starts at 1, +1 on every successful forge of this name. */
	version: Type.Integer({ minimum: 1 }),
	/** Hash of `forge-<name>.ts` as written by the forge: a different file on disk means a hand edit. */
	hash: Type.String(),
	createdAt: Type.String(),
	updatedAt: Type.String(),
	/** Example calls checked before every promotion of this tool (their cases are checked by `parseTests`). */
	tests: Type.Optional(Type.Unsafe<ToolTest[]>(Type.Array(Type.Unknown()))),
	/** The hash of the source the tests last passed on: equal to `hash` means verified. */
	verifiedHash: Type.Optional(Type.String()),
});

export type ToolMeta = Static<typeof ToolMetaSchema>;

/** What a metadata file must hold to be read (the dates are read leniently, the tests by `parseTests`). */
const MetaFileSchema = Type.Pick(ToolMetaSchema, ["description", "parameters", "version", "hash"]);
const metaFile = Compile(MetaFileSchema);

/** What each required field's absence or wrong type is called, in the order they are reported. */
const FIELD_PROBLEMS: ReadonlyArray<[keyof Static<typeof MetaFileSchema>, string]> = [
	["description", "has no description."],
	["parameters", "has no parameters schema."],
	["version", "has no valid version."],
	["hash", "has no hash."],
];

export const REGISTRY_FILE = "forge-registry.json";

export const tsFileOf = (name: string) => `forge-${name}.ts`;
export const jsonFileOf = (name: string) => `forge-${name}.json`;

/** The tool a toolbox file belongs to, or undefined for every other file (registry, backups, temp files). */
export function parseToolFileName(file: string): { name: string; kind: "ts" | "json" } | undefined {
	const match = /^forge-(.+)\.(ts|json)$/.exec(file);
	if (!match || file === REGISTRY_FILE) return undefined;
	const [, name, kind] = match;
	return isForgeableName(name) ? { name, kind: kind as "ts" | "json" } : undefined;
}

export function serializeMeta(meta: ToolMeta): string {
	return `${JSON.stringify(meta, null, "\t")}\n`;
}

/** Parses `forge-<name>.json`, checking every field the forge relies on. */
export function parseMeta(text: string, name: string): Result<ToolMeta> {
	const broken = (message: string) =>
		fail(
			new ForgeError("load", `${jsonFileOf(name)} ${message}`, {
				tool: name,
				hint: `Re-forge '${name}' with forge_tool to rewrite its files.`,
			}),
		);
	let data: Record<string, unknown>;
	try {
		data = JSON.parse(text) as Record<string, unknown>;
	} catch (error) {
		return broken(`is not valid JSON: ${(error as Error).message}`);
	}
	if (typeof data !== "object" || data === null) return broken("is not a JSON object.");
	if (data.name !== name) return broken(`names the tool ${JSON.stringify(data.name)}, expected "${name}".`);
	const fields = data;
	if (!metaFile.Check(fields)) return broken(metaFileProblem(data));
	const tests = parseTests(data.tests);
	if (!tests.ok) return broken(`has invalid tests: ${tests.error.message}`);
	return ok({
		name,
		description: fields.description,
		parameters: fields.parameters,
		version: fields.version,
		hash: fields.hash,
		createdAt: String(data.createdAt ?? ""),
		updatedAt: String(data.updatedAt ?? ""),
		...(tests.value.length ? { tests: tests.value } : {}),
		...(typeof data.verifiedHash === "string" ? { verifiedHash: data.verifiedHash } : {}),
	});
}

/** The validator's first complaint, in the words the metadata's reader has always used. */
function metaFileProblem(data: unknown): string {
	const failed = new Set<string>();
	for (const error of metaFile.Errors(data)) {
		if (error.keyword === "required")
			for (const field of (error.params as { requiredProperties?: string[] }).requiredProperties ?? [])
				failed.add(field);
		else failed.add(error.instancePath.split("/")[1] ?? "");
	}
	return (FIELD_PROBLEMS.find(([field]) => failed.has(field)) ?? FIELD_PROBLEMS[0])[1];
}
