// Derives a tool's registry entry from its files: trusts a pair the forge wrote, re-checks a hand edit (unless the
// compile cache shows this very source passed the checks), adopts a lone `forge-<name>.ts`.
import { ForgeError } from "../contract/forge-error.ts";
import { hashSource, jsonFileOf, parseMeta, serializeMeta, type ToolMeta, tsFileOf } from "../contract/tool-files.ts";
import { verifyToolFile } from "../forge/check-source.ts";
import type { ModuleShape, PreflightLoader } from "../forge/preflight.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import type { CompileCache } from "../store/compile-cache.ts";
import { entryFromMeta, type RegistryEntry, type ToolStamps } from "../store/registry.ts";
import type { ToolboxStore } from "../store/toolbox-store.ts";

export interface Derived {
	entry: RegistryEntry;
	/** Set when the derivation loaded and compiled the source (so the first call needs no compile). */
	source?: string;
	compiled?: CompiledCode;
	/** The metadata derived for a hand edit (written to `forge-<name>.json` unless `write: false`). */
	metaText?: string;
	/** What the preflight load found, when it ran (for the compile cache). */
	shape?: ModuleShape;
}

export interface DeriveOptions {
	/** `false` (a read-only open): a hand edit's new metadata is derived but not written. */
	write?: boolean;
	/** Sources it knows passed the checks, with their shape: such a hand edit needs no new check. */
	cache?: CompileCache;
	/** The files' stamps, taken just before (by a caller that compared them). */
	stamps?: ToolStamps;
}

export async function deriveEntry(
	name: string,
	store: ToolboxStore,
	now: Date,
	preflight: PreflightLoader,
	options: DeriveOptions = {},
): Promise<Derived> {
	// Stamped before reading: a change made while this runs leaves the entry stale, so it is checked again.
	const stamps = options.stamps ?? (await store.stampsOf(name));
	const [source, metaText] = await Promise.all([store.readSource(name), store.readMeta(name)]);
	const parsed = metaText === undefined ? undefined : parseMeta(metaText, name);
	const meta = parsed?.ok ? parsed.value : undefined;

	if (source === undefined) {
		const error = new ForgeError("load", `${tsFileOf(name)} is missing (only ${jsonFileOf(name)} is there).`, {
			tool: name,
			hint: `Re-forge '${name}' with forge_tool to write its code again.`,
		});
		return { entry: brokenEntry(name, meta, stamps, error) };
	}

	const hash = hashSource(source);
	if (meta && meta.hash === hash) return { entry: entryFromMeta(meta, stamps) };

	// A hand edit, or a file without (valid) metadata: check it as the forge would, then record what it is now.
	const known = await options.cache?.getChecked(hash);
	let shape: ModuleShape;
	let compiled: CompiledCode;
	let checked: ModuleShape | undefined;
	if (known?.shape?.name === name) {
		shape = known.shape;
		compiled = known.code;
	} else {
		const verified = await verifyToolFile(name, store.tsPath(name), source, preflight);
		if (!verified.ok) return { entry: brokenEntry(name, meta, stamps, verified.error), source };
		shape = checked = verified.value.shape;
		compiled = verified.value.transpiled.cjs;
	}
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
	if (options.write === false)
		return { entry: entryFromMeta(next, stamps), source, compiled, metaText: nextText, shape: checked };
	// Not fsynced: lost in a crash, this metadata is derived again from the same file at the next start.
	await store.writeMeta(name, nextText, false);
	const json = await store.stampOf(name, "json");
	return {
		entry: entryFromMeta(next, { ...(stamps.ts ? { ts: stamps.ts } : {}), ...(json ? { json } : {}) }),
		source,
		compiled,
		metaText: nextText,
		shape: checked,
	};
}

function brokenEntry(name: string, meta: ToolMeta | undefined, stamps: ToolStamps, error: ForgeError): RegistryEntry {
	const base: ToolMeta = meta ?? {
		name,
		description: "",
		parameters: { type: "object", properties: {} },
		version: 0,
		hash: "",
		createdAt: "",
		updatedAt: "",
	};
	return entryFromMeta(base, stamps, "broken", error.toData());
}
