// The on-disk format of one forged tool: file names, the `forge-<name>.json` metadata, and content hashes.
import { ForgeError, fail, ok, type Result } from "./forge-error.ts";
import { isForgeableName } from "./names.ts";
import { parseTests, type ToolTest } from "./tool-tests.ts";

export interface ToolMeta {
	name: string;
	description: string;
	/** JSON Schema of the tool's arguments (an object schema). */
	parameters: Record<string, unknown>;
	/** Starts at 1, +1 on every successful forge of this name. */
	version: number;
	/** Hash of `forge-<name>.ts` as written by the forge: a different file on disk means a hand edit. */
	hash: string;
	createdAt: string;
	updatedAt: string;
	/** Example calls checked before every promotion of this tool. */
	tests?: ToolTest[];
	/** The hash of the source the tests last passed on: equal to `hash` means verified. */
	verifiedHash?: string;
}

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

export { hashSource } from "./hash.ts";

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
	let data: Partial<ToolMeta>;
	try {
		data = JSON.parse(text) as Partial<ToolMeta>;
	} catch (error) {
		return broken(`is not valid JSON: ${(error as Error).message}`);
	}
	if (typeof data !== "object" || data === null) return broken("is not a JSON object.");
	if (data.name !== name) return broken(`names the tool ${JSON.stringify(data.name)}, expected "${name}".`);
	if (typeof data.description !== "string") return broken("has no description.");
	if (typeof data.parameters !== "object" || data.parameters === null) return broken("has no parameters schema.");
	if (!Number.isInteger(data.version) || (data.version as number) < 1) return broken("has no valid version.");
	if (typeof data.hash !== "string") return broken("has no hash.");
	const tests = parseTests(data.tests);
	if (!tests.ok) return broken(`has invalid tests: ${tests.error.message}`);
	return ok({
		name,
		description: data.description,
		parameters: data.parameters as Record<string, unknown>,
		version: data.version as number,
		hash: data.hash,
		createdAt: String(data.createdAt ?? ""),
		updatedAt: String(data.updatedAt ?? ""),
		...(tests.value.length ? { tests: tests.value } : {}),
		...(typeof data.verifiedHash === "string" ? { verifiedHash: data.verifiedHash } : {}),
	});
}
