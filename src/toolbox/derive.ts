// Derives a tool's registry entry from its files: trusts a pair the forge wrote, re-checks a hand edit (unless the
// compile cache shows this very source passed the checks), adopts a lone `forge-<name>.ts`; records the version it
// finds in the history.
import { ForgeError, storedData, toData } from "../contract/forge-error.ts";
import type { ModuleShape, PreflightLoader } from "../contract/module-shape.ts";
import { hashSource, jsonFileOf, parseMeta, serializeMeta, type ToolMeta, tsFileOf } from "../contract/tool-files.ts";
import { verifyToolFile } from "../forge/check-source.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import { entryFromMeta, type RegistryEntry, type ToolStamps, withCalls } from "../store/registry.ts";
import type { ToolboxStore } from "../store/toolbox-store.ts";
import type { ToolboxContext } from "./context.ts";
import { unlockedOnly } from "./lock-guard.ts";
import { nextVersion } from "./next-version.ts";
import type { CompiledTool } from "./tool-cache.ts";

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
	/** Sources known to have passed the checks, with their shape: such a hand edit needs no new check. */
	checked?: (hash: string) => Promise<{ code: CompiledCode; shape?: ModuleShape } | undefined>;
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
	const { source, meta: parsed, refused } = await store.readTool(name);
	const meta = parsed?.ok ? parsed.value : undefined;

	// A tool file that is a link is not read (`refused` says so): its source counts as missing, its metadata as absent.
	if (source === undefined && refused) {
		const error = new ForgeError("load", refused, {
			tool: name,
			hint: `Replace the link with the tool's own file (or remove it), or re-forge '${name}' with forge_tool.`,
		});
		return { entry: brokenEntry(name, meta, stamps, error) };
	}
	if (source === undefined) {
		const error = new ForgeError("load", `${tsFileOf(name)} is missing (only ${jsonFileOf(name)} is there).`, {
			tool: name,
			hint: `Re-forge '${name}' with forge_tool to write its code again.`,
		});
		return { entry: brokenEntry(name, meta, stamps, error) };
	}

	const hash = hashSource(source);
	if (meta && meta.hash === hash) return { entry: withCalls(entryFromMeta(meta, stamps), source) };

	// A hand edit, or a file without (valid) metadata: check it as the forge would, then record what it is now.
	const known = await options.checked?.(hash);
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
	// The tests stay with the tool; they passed on the old source, so this one is unverified until they run again.
	const next = nextVersion(
		{
			name,
			description: shape.description,
			parameters: JSON.parse(JSON.stringify(shape.parameters)) as Record<string, unknown>,
			tests: meta?.tests,
			verifiedHash: meta?.verifiedHash,
		},
		{ previous: meta, hash, at: now.toISOString() },
	);
	const nextText = serializeMeta(next);
	if (options.write === false)
		return {
			entry: withCalls(entryFromMeta(next, stamps), source),
			source,
			compiled,
			metaText: nextText,
			shape: checked,
		};
	// Not fsynced: lost in a crash, this metadata is derived again from the same file at the next start.
	await store.writeMeta(name, nextText, false);
	const json = await store.stampOf(name, "json");
	return {
		entry: withCalls(
			entryFromMeta(next, { ...(stamps.ts ? { ts: stamps.ts } : {}), ...(json ? { json } : {}) }),
			source,
		),
		source,
		compiled,
		metaText: nextText,
		shape: checked,
	};
}

/**
 * A tool's entry from its files, with the code when the check compiled it (and its shape put in the compile cache);
 * makes sure the version on disk is in the history (a hand edit, or a change finished after an interruption). With
 * the lock held, a hand edit's load not made before the lock is refused (NotRunBeforeLock).
 */
export async function deriveTool(
	box: ToolboxContext,
	name: string,
	stamps?: ToolStamps,
	/** The load of a hand edit (refused under the lock); a re-check passes one that knows what its precheck found. */
	preflight: PreflightLoader = unlockedOnly(box.runner.preflightBatch ?? box.runner.preflight),
): Promise<{ entry: RegistryEntry; compiled?: CompiledTool; metaText?: string }> {
	const derived = await deriveEntry(name, box.store, box.now(), preflight, {
		write: !box.readOnly,
		checked: (hash) => box.cache.checked(hash),
		stamps,
	});
	const compiled =
		derived.compiled && derived.source
			? { hash: derived.entry.hash, source: derived.source, code: derived.compiled }
			: undefined;
	if (derived.shape && derived.compiled) await box.cache.store(derived.entry.hash, derived.compiled, derived.shape);
	if (derived.entry.status === "ok" && !box.readOnly)
		await recordIfMissing(box, name, derived.compiled ? "edited" : "recovered", derived.source, derived.metaText);
	return { entry: derived.entry, compiled, metaText: derived.metaText };
}

/** Records the live version of a tool unless the history already ends with it. */
async function recordIfMissing(
	box: ToolboxContext,
	name: string,
	event: "edited" | "recovered",
	knownSource?: string,
	knownMeta?: string,
): Promise<void> {
	const { source, metaText } =
		knownSource !== undefined && knownMeta !== undefined
			? { source: knownSource, metaText: knownMeta }
			: await box.store.readTool(name);
	if (source === undefined || metaText === undefined) return;
	const meta = parseMeta(metaText, name);
	if (!meta.ok) return;
	const entries = await box.history.entries(name);
	const last = entries.at(-1);
	if (
		last &&
		last.event !== "removed" &&
		`sha256-${last.ts}` === hashSource(source) &&
		last.version === meta.value.version
	)
		return;
	await box.history
		.record(name, event, meta.value.version, source, metaText, box.now(), undefined, entries)
		.catch(() => undefined);
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
	return entryFromMeta(base, stamps, "broken", storedData(toData(error)));
}
