// Derives a tool's registry entry from its files: trusts a pair the forge wrote, re-checks a hand edit, adopts a lone `forge-<name>.ts`.
import { ForgeError } from "../errors/forge-error.ts";
import { verifyToolFile } from "../forge/check-source.ts";
import type { PreflightLoader } from "../forge/preflight.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import { type RegistryEntry, type ToolStamps, entryFromMeta } from "../store/registry.ts";
import { type ToolMeta, hashSource, jsonFileOf, parseMeta, serializeMeta, tsFileOf } from "../store/tool-files.ts";
import type { ToolboxStore } from "../store/toolbox-store.ts";

export interface Derived {
	entry: RegistryEntry;
	/** Set when the derivation loaded and compiled the source (so the first call needs no compile). */
	source?: string;
	compiled?: CompiledCode;
	/** The metadata derived for a hand edit (written to `forge-<name>.json` unless `write: false`). */
	metaText?: string;
}

/** With `write: false` (a read-only open) a hand edit's new metadata is derived but not written. */
export async function deriveEntry(name: string, store: ToolboxStore, now: Date, preflight: PreflightLoader, options: { write?: boolean } = {}): Promise<Derived> {
	const [source, metaText] = await Promise.all([store.readSource(name), store.readMeta(name)]);
	const parsed = metaText === undefined ? undefined : parseMeta(metaText, name);
	const meta = parsed?.ok ? parsed.value : undefined;

	if (source === undefined) {
		const error = new ForgeError("load", `${tsFileOf(name)} is missing (only ${jsonFileOf(name)} is there).`, {
			tool: name,
			hint: `Re-forge '${name}' with forge_tool to write its code again.`,
		});
		return { entry: brokenEntry(name, meta, await store.stampsOf(name), error) };
	}

	const hash = hashSource(source);
	if (meta && meta.hash === hash) return { entry: entryFromMeta(meta, await store.stampsOf(name)) };

	// A hand edit, or a file without (valid) metadata: check it as the forge would, then record what it is now.
	const verified = await verifyToolFile(name, store.tsPath(name), source, preflight);
	if (!verified.ok) return { entry: brokenEntry(name, meta, await store.stampsOf(name), verified.error), source };

	const { shape, transpiled } = verified.value;
	const at = now.toISOString();
	const next: ToolMeta = {
		name,
		description: shape.description,
		parameters: JSON.parse(JSON.stringify(shape.parameters)) as Record<string, unknown>,
		version: (meta?.version ?? 0) + 1,
		hash,
		createdAt: meta?.createdAt || at,
		updatedAt: at,
		// The tests stay with the tool; they passed on the old source, so this one is unverified until they run again.
		...(meta?.tests ? { tests: meta.tests } : {}),
		...(meta?.verifiedHash ? { verifiedHash: meta.verifiedHash } : {}),
	};
	const nextText = serializeMeta(next);
	if (options.write !== false) await store.writeMeta(name, nextText);
	return { entry: entryFromMeta(next, await store.stampsOf(name)), source, compiled: transpiled.cjs, metaText: nextText };
}

function brokenEntry(name: string, meta: ToolMeta | undefined, stamps: ToolStamps, error: ForgeError): RegistryEntry {
	const base: ToolMeta = meta ?? { name, description: "", parameters: { type: "object", properties: {} }, version: 0, hash: "", createdAt: "", updatedAt: "" };
	return entryFromMeta(base, stamps, "broken", error.toData());
}
