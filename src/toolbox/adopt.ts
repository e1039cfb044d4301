// After a change of a tool's code is promoted (a forge, a roll-back, an import), one step records it: registry, caches,
// health and listeners at once; history, the compile cache and the commit's last steps after. Called with the lock held.
import { serializeMeta } from "../contract/tool-files.ts";
import { entryFromMeta, withCalls } from "../store/registry.ts";
import type { ToolboxContext } from "./context.ts";
import type { Forged } from "./forge-pipeline.ts";

/** What a successful change of a tool's code is recorded as (with the version a roll-back restored). */
export interface Adoption {
	event: "forged" | "rolled-back" | "imported";
	from?: number;
}

/**
 * Takes the change in (registry, caches, health) and tells the listeners, then returns what is left to write: the
 * commit's last steps, the history's record and the compile cache's entry, all at once. The change's caller keeps the
 * lock until that settles; none of it can fail the change, which is committed already.
 */
export function adopt(box: ToolboxContext, forged: Forged, { event, from }: Adoption): Promise<void> {
	const entry = withCalls(entryFromMeta(forged.meta, forged.stamps), forged.source);
	const recorded = box.history.record(
		entry.name,
		event,
		entry.version,
		forged.source,
		serializeMeta(forged.meta),
		box.now(),
		from,
	);
	box.registry.set(entry);
	box.cache.changed(entry.name, entry, { hash: entry.hash, source: forged.source, code: forged.compiled });
	box.health.reset(entry.name);
	box.emit({
		type: "forged",
		name: entry.name,
		version: entry.version,
		previousVersion: forged.previous?.version,
		rolledBackFrom: from,
	});
	return Promise.allSettled([forged.settled, recorded, box.cache.store(entry.hash, forged.compiled)]).then(
		() => undefined,
	);
}
