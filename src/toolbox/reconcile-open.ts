// Opening a toolbox: finishing interrupted changes, reading the registry, and re-deriving what is missing, corrupt or
// stale in it. The hand edits a re-derivation loads are loaded before the lock; under it, one changed again since (its
// load not made) is left out and handed back for a re-check, so no tool code runs while the lock is held.
import { emptyRegistry, parseRegistry, type Registry, type RegistryEntry, staleNames } from "../store/registry.ts";
import type { OpenReport, ToolboxContext } from "./context.ts";
import { asLockHolder, NotRunBeforeLock } from "./lock-guard.ts";
import { type FailedLoads, precheckStale } from "./precheck-edit.ts";
import type { CompiledTool } from "./tool-cache.ts";

/** A tool's entry from its files; under the lock a load not made before is refused (NotRunBeforeLock). */
export type DeriveFn = (name: string) => Promise<{ entry: RegistryEntry; compiled?: CompiledTool }>;

export interface OpenedFiles {
	report: OpenReport;
	/** Hand edits that changed again after their load before the lock: not in the registry yet, to be re-checked. */
	deferred: string[];
}

/**
 * The open of a toolbox that may be written. `background` (pi's start) trusts a sound registry at once; a registry
 * missing or corrupt is rebuilt either way. The hand edits an open re-derives are loaded first (unlocked), except at
 * pi's start, whose re-derivation leaves them all for the re-check after the lock.
 */
export async function openWritable(
	box: ToolboxContext,
	background: boolean,
	concurrency: number,
	failed: FailedLoads,
	derive: DeriveFn,
): Promise<OpenedFiles> {
	await box.store.ensure();
	await box.store.ensureGitignore();
	await box.health.load();
	// pi's start prechecks nothing: the hand edits a rebuild finds are left out under the lock and re-checked after it.
	if (!background) await precheckStale(box, concurrency, failed);
	return box.store.locked(() =>
		asLockHolder(async (): Promise<OpenedFiles> => {
			// pi's start leaves the temporary files of interrupted writes (a read of the whole folder) to the comparison after it.
			const recovered = await box.store.recover({ sweep: !background });
			const text = await box.store.readRegistry();
			const parsed = parseRegistry(text);
			const rebuilt: OpenReport["rebuilt"] =
				text === undefined ? "missing" : parsed === undefined ? "corrupt" : undefined;
			// A sound registry is trusted at once when asked (pi's start); the files are compared with it right after.
			if (parsed && background) {
				box.registry.replaceAll(parsed);
				return { report: { tools: box.registry.size, broken: [], rederived: [], recovered }, deferred: [] };
			}
			const registry = parsed ?? emptyRegistry();
			const { stale, deferred } = await rederiveStale(box, registry, !parsed, concurrency, derive);
			box.registry.replaceAll(registry);
			if (rebuilt || stale.length > 0) await box.registry.writeAll();
			const report: OpenReport = {
				tools: box.registry.size,
				broken: [],
				rebuilt: rebuilt ?? (stale.length > 0 ? "stale" : undefined),
				rederived: stale,
				recovered,
			};
			return { report, deferred };
		}),
	);
}

/** The toolbox as the files say it is now, with no folder, lock, recovery, registry, history or metadata written. */
export async function openReadOnly(box: ToolboxContext, concurrency: number, derive: DeriveFn): Promise<OpenReport> {
	box.readOnly = true;
	await box.health.load();
	const text = await box.store.readRegistry();
	const parsed = parseRegistry(text);
	const registry = parsed ?? emptyRegistry();
	const { stale } = await rederiveStale(box, registry, !parsed, concurrency, derive);
	box.registry.replaceAll(registry);
	const rebuilt: OpenReport["rebuilt"] =
		text === undefined ? "missing" : parsed === undefined ? "corrupt" : stale.length > 0 ? "stale" : undefined;
	return {
		tools: box.registry.size,
		broken: brokenNames(box),
		rebuilt,
		rederived: stale,
		recovered: { rolledForward: [], discarded: [], leftovers: [] },
	};
}

export function brokenNames(box: ToolboxContext): string[] {
	return box.registry.entries().flatMap((e) => (e.status === "broken" ? [e.name] : []));
}

/**
 * Re-derives, in `registry`, every tool whose files differ from it (all of them when `all`), `concurrency` at once;
 * returns their names, and those left as they were because their load was not made before the lock.
 */
async function rederiveStale(
	box: ToolboxContext,
	registry: Registry,
	all: boolean,
	concurrency: number,
	derive: DeriveFn,
): Promise<{ stale: string[]; deferred: string[] }> {
	const onDisk = await box.store.listStamps();
	const stale = all ? [...onDisk.keys()].sort() : staleNames(registry, onDisk);
	const deferred: string[] = [];
	const queue = [...stale];
	const worker = async () => {
		for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
			if (!onDisk.has(name)) {
				delete registry.tools[name];
				continue;
			}
			try {
				const derived = await derive(name);
				if (derived.compiled) box.cache.keep(name, derived.compiled);
				registry.tools[name] = derived.entry;
			} catch (error) {
				if (!(error instanceof NotRunBeforeLock)) throw error;
				deferred.push(name);
			}
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	return { stale, deferred: deferred.sort() };
}
