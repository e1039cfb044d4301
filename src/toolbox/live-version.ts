// The live version of a tool, which a change of its code continues: its number, `createdAt`, its tests (a forge that
// gives none keeps them), and whether its file was edited by hand since.
import { hashSource } from "../contract/tool-files.ts";
import type { ToolboxContext } from "./context.ts";
import type { PreviousVersion } from "./forge-pipeline.ts";

/** The live version of a name: its metadata file, else what the registry knows. */
export async function liveVersion(box: ToolboxContext, name: string): Promise<PreviousVersion | undefined> {
	const entry = box.registry.get(name);
	const { source, meta } = await box.store.readTool(name, { tolerant: true });
	if (meta?.ok) {
		// A live file that is not the one its metadata describes: a hand edit that did not pass the checks.
		const editedByHand = source !== undefined && hashSource(source) !== meta.value.hash;
		return {
			version: Math.max(meta.value.version, entry?.version ?? 0),
			createdAt: meta.value.createdAt,
			tests: meta.value.tests,
			...(editedByHand ? { editedByHand } : {}),
		};
	}
	return entry && entry.version > 0 ? { version: entry.version } : undefined;
}
