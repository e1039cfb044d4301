// What an import brings, checked before anything runs: metadata that is JSON and names an allowed tool, and a source
// with no credentials written into it. The candidate's code is checked, loaded and tested afterwards, as a forge's.
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { type TakenNames, validateName } from "../contract/names.ts";
import { hashSource, parseMeta, type ToolMeta, tsFileOf } from "../contract/tool-files.ts";
import { findSecrets, secretRefusal } from "../security/secrets.ts";

export interface ImportedTool {
	name: string;
	/** Its metadata as it came, `verifiedHash` set to the source's when it has tests (they must pass to import it). */
	meta: ToolMeta;
	hash: string;
}

export function readImportedTool(source: string, metaText: string, takenNames: TakenNames): Result<ImportedTool> {
	let declared: unknown;
	try {
		declared = (JSON.parse(metaText) as { name?: unknown } | null)?.name;
	} catch (error) {
		return fail(new ForgeError("load", `The tool's metadata is not valid JSON: ${(error as Error).message}`));
	}
	const named = validateName(declared, takenNames);
	if (!named.ok) return named;
	const name = named.value;
	const meta = parseMeta(metaText, name);
	if (!meta.ok) return meta;
	const secrets = findSecrets(source);
	if (secrets.length)
		return fail(new ForgeError("secrets", secretRefusal(secrets, tsFileOf(name)).message, { tool: name }));
	const hash = hashSource(source);
	const verifiedHash = meta.value.tests?.length ? hash : meta.value.verifiedHash;
	return ok({ name, meta: { ...meta.value, verifiedHash }, hash });
}
