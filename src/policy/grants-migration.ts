// Grants written before they were bound to what a person approved: "exec:git" (any file named git) becomes the program
// it meant, looked up as commands are; "exec:sh" (any shell line) is dropped, since shell lines are granted one by one
// now; and a tool's entry without a version is bound to the version the toolbox holds when it next opens.
import type { GrantsFile } from "./grants-store.ts";

export interface MigrationContext {
	project: string;
	/** The hash of each tool of the project now. */
	hashOf(tool: string): string | undefined;
	/** The path a program name is found at (as a command would find it), or undefined. */
	resolveProgram(name: string): string | undefined;
}

/** Changes `data` in place; true when it changed anything. */
export function migrateGrants(data: GrantsFile, context: MigrationContext): boolean {
	const tools = data.projects[context.project];
	if (!tools) return false;
	let changed = false;
	for (const [tool, grants] of Object.entries(tools)) {
		if (grants.hash !== undefined) continue;
		const hash = context.hashOf(tool);
		if (hash === undefined) continue;
		grants.hash = hash;
		grants.allow = migrateKeys(grants.allow, context);
		grants.deny = migrateKeys(grants.deny, context);
		changed = true;
	}
	return changed;
}

/** A program given by name only (`exec:git`) becomes `exec:<its path>`; `exec:sh` and names not found are dropped. */
export function migrateKeys(keys: readonly string[], context: Pick<MigrationContext, "resolveProgram">): string[] {
	const out: string[] = [];
	for (const key of keys) {
		const name = /^exec:([^/\s]+)$/.exec(key)?.[1];
		if (name === undefined) out.push(key);
		else if (name !== "sh") {
			const path = context.resolveProgram(name);
			if (path) out.push(`exec:${path}`);
		}
	}
	return [...new Set(out)];
}
