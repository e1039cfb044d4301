// The toolbox's `.gitignore`: what a team commits is the tools (each `forge-<name>.ts` with its `forge-<name>.json`)
// and this file; everything else the toolbox writes is derived from them or private to one machine.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

export const GITIGNORE_FILE = ".gitignore";

export const TOOLBOX_GITIGNORE = `# Agent Forge toolbox. Commit the tools (forge-<name>.ts with its forge-<name>.json) and this file.
# Everything below is derived from them or private to one machine; Agent Forge rebuilds or recreates it.

# The registry: a manifest derived from the tools, rebuilt when missing.
/forge-registry.json
# The version the last re-forge replaced (every version is also in .history/).
/forge-*.bak
# Each person's own record of every version (git keeps the team's), usage and health, and audit log of decisions.
/.history/
/.forge-health.json
/.forge-audit.jsonl
/.forge-audit.jsonl.1
# Compiled code, changes in progress, locks, and temporary files of interrupted writes.
/.state/
/.staging/
/.forge.lock
/.forge-registry.lock
/forge-*.[0-9]*
/.forge-health.json.*
`;

/** Writes the `.gitignore` unless the toolbox has one (a person's own is never replaced). Best effort: never fails an open. */
export async function ensureGitignore(toolboxDir: string): Promise<void> {
	try {
		await writeFile(join(toolboxDir, GITIGNORE_FILE), TOOLBOX_GITIGNORE, { flag: "wx" });
	} catch {
		// There already is one, or the folder cannot be written (then the open reports what matters).
	}
}
