// The metadata of a tool's next version, built in one place for a forge, a roll-back, an import and a hand edit taken
// in: the version number continues the live one, `createdAt` stays the first version's, `updatedAt` is now.
import type { ToolMeta } from "../contract/tool-files.ts";

/** What a version says about itself; the numbering and the dates come from `nextVersion`. */
export type ToolContent = Pick<ToolMeta, "name" | "description" | "parameters" | "tests" | "verifiedHash">;

export interface NextVersionOf {
	/** The live version of the name, if any: its number is continued and its `createdAt` kept. */
	previous?: { version: number; createdAt?: string };
	/** Hash of the new source. */
	hash: string;
	/** When the new version is made (ISO text). */
	at: string;
	/** `createdAt` when the live version has none: by default `at`. */
	createdAt?: string;
}

/** The next version's metadata; fields in the order `forge-<name>.json` has always written them. */
export function nextVersion(content: ToolContent, of: NextVersionOf): ToolMeta {
	return {
		name: content.name,
		description: content.description,
		parameters: content.parameters,
		version: (of.previous?.version ?? 0) + 1,
		hash: of.hash,
		createdAt: of.previous?.createdAt || (of.createdAt ?? of.at),
		updatedAt: of.at,
		...(content.tests?.length ? { tests: content.tests } : {}),
		...(content.verifiedHash ? { verifiedHash: content.verifiedHash } : {}),
	};
}
