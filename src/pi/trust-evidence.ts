// What says that the person trusts a project, beyond pi's own `isProjectTrusted()` (which pi answers `true`
// without asking for a project with no pi settings or extensions of its own): pi's saved trust decisions, the
// --approve flag, pi's default for projects, and whether pi asked at all. Read only: nothing here writes, and pi's
// trust store is read without its lock (pi's exported ProjectTrustStore takes a write lock even to read).
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as piModule from "@mariozechner/pi-coding-agent";

/** pi's helpers, where this pi exports them (the legacy line has neither, and no trust). */
const piTrust = piModule as {
	hasTrustRequiringProjectResources?: (cwd: string) => boolean;
	parseArgs?: (args: string[]) => { projectTrustOverride?: boolean };
};

/** The nearest saved decision for `cwd` in pi's trust store, as pi looks it up: the folder itself, then each parent. */
export interface SavedTrust {
	path: string;
	trusted: boolean;
}

/** The facts the forge's trust rests on; tests give their own. */
export interface TrustEvidence {
	/** Whether pi decided this project's trust itself (it has resources pi asks about: settings, extensions…). */
	piDecides(cwd: string): boolean;
	/** `--approve` (true) or `--no-approve` (false) on pi's command line; undefined without either. */
	approve(): boolean | undefined;
	/** pi's saved decision for `cwd` (`<agentDir>/trust.json`); undefined when there is none or it cannot be read. */
	saved(agentDir: string, cwd: string): SavedTrust | undefined;
	/** Whether the person's pi settings trust every project (`"defaultProjectTrust": "always"`). */
	trustsAll(agentDir: string): boolean;
}

/** A path as pi keys its trust store: resolved, then through symlinks where it exists. */
export function trustKey(cwd: string): string {
	const path = resolve(cwd);
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** The JSON object in `file`; undefined when it is missing or is not one. */
function readObject(file: string): Record<string, unknown> | undefined {
	try {
		const data: unknown = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""));
		return typeof data === "object" && data !== null && !Array.isArray(data)
			? (data as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}

/** pi's nearest trust entry for `cwd` in `store` (entries other than true or false are passed over, as pi does). */
export function nearestSaved(store: Record<string, unknown>, cwd: string): SavedTrust | undefined {
	let dir = trustKey(cwd);
	for (;;) {
		const value = Object.hasOwn(store, dir) ? store[dir] : undefined;
		if (value === true || value === false) return { path: dir, trusted: value };
		const parent = dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
}

export const piTrustEvidence: TrustEvidence = {
	piDecides(cwd) {
		try {
			return piTrust.hasTrustRequiringProjectResources?.(cwd) === true;
		} catch {
			return false;
		}
	},
	approve() {
		try {
			return piTrust.parseArgs?.(process.argv.slice(2)).projectTrustOverride;
		} catch {
			return undefined;
		}
	},
	saved(agentDir, cwd) {
		const store = readObject(join(agentDir, "trust.json"));
		// pi refuses a store with any other value in it: so does the forge.
		if (!store || Object.values(store).some((value) => value !== true && value !== false && value !== null))
			return undefined;
		return nearestSaved(store, cwd);
	},
	trustsAll(agentDir) {
		return readObject(join(agentDir, "settings.json"))?.defaultProjectTrust === "always";
	},
};
