// After a change of a tool's code is promoted (a forge, a roll-back, an import), one step records it: history,
// registry, caches, health, listeners. Called with the toolbox lock held.
import { serializeMeta } from "../contract/tool-files.ts";
import { entryFromMeta, withCalls } from "../store/registry.ts";
import type { ToolboxContext } from "./context.ts";
import type { Forged } from "./forge-pipeline.ts";

/** What a successful change of a tool's code is recorded as (with the version a roll-back restored). */
export interface Adoption {
	event: "forged" | "rolled-back" | "imported";
	from?: number;
}

export async function adopt(box: ToolboxContext, forged: Forged, { event, from }: Adoption): Promise<void> {
	const entry = withCalls(entryFromMeta(forged.meta, forged.stamps), forged.source);
	// The history's record and the compile cache's entry are written at once.
	const recorded = box.history
		.record(entry.name, event, entry.version, forged.source, serializeMeta(forged.meta), box.now(), from)
		.catch(() => undefined);
	box.registry.set(entry);
	box.cache.changed(entry.name, entry, { hash: entry.hash, source: forged.source, code: forged.compiled });
	box.health.reset(entry.name);
	await Promise.all([recorded, box.cache.store(entry.hash, forged.compiled)]);
	box.emit({
		type: "forged",
		name: entry.name,
		version: entry.version,
		previousVersion: forged.previous?.version,
		rolledBackFrom: from,
	});
}
