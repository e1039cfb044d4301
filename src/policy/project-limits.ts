// What a project's own `.pi/forge/config.json` may do to the user's settings: tighten them, never loosen them. A cloned
// repository must not choose how much its own tools may do, how long or how big they may run, or how much room they
// take. Pure: config.ts reads the values and reports what this module says.
import type { ForgePolicy } from "../contract/config.ts";

/** How much each policy holds back: higher is stricter. */
const STRICTNESS: Record<ForgePolicy, number> = { permissive: 0, prompt: 1, strict: 2 };

/**
 * The numbers that bound a tool, which a project's file may only lower (for each of them lower is tighter):
 * - `timeoutMs`: how long one call may run;
 * - `maxMemoryMb`: the heap of the runner that runs the tools;
 * - `quarantineAfter`: how many failed calls in a row a tool gets before it is quarantined;
 * - `historyLimit`: how many versions of each tool are kept on disk;
 * - `activeLimit`, `activeChars`: how many forged tools, and how many characters of their schemas, every turn of the
 *   model carries.
 * Every numeric setting a config file may hold is one of these; `pinned` (names, not a bound) is taken as it is.
 */
export const PROJECT_LIMITS = [
	"timeoutMs",
	"maxMemoryMb",
	"quarantineAfter",
	"historyLimit",
	"activeLimit",
	"activeChars",
] as const;
export type ProjectLimit = (typeof PROJECT_LIMITS)[number];

export const isProjectLimit = (key: string): key is ProjectLimit => (PROJECT_LIMITS as readonly string[]).includes(key);

/** Whether the project's value tightens the user's, leaves it as it is, or would loosen it. */
export type Tightening = "tighter" | "same" | "looser";

export function comparePolicy(user: ForgePolicy, project: ForgePolicy): Tightening {
	const by = STRICTNESS[project] - STRICTNESS[user];
	return by > 0 ? "tighter" : by < 0 ? "looser" : "same";
}

export function compareLimit(user: number, project: number): Tightening {
	return project < user ? "tighter" : project > user ? "looser" : "same";
}

/** Where the user's own value was set, and how to set a value there (for the person who wants the project's). */
export interface UserSetting {
	/** The user's value in effect. */
	value: string | number;
	/** Where it was set: `PI_FORGE_TIMEOUT_MS=60000`, a file and key, or `the default`. */
	from: string;
	/** The environment variable of the setting. */
	variable: string;
	/** The user's global config file. */
	globalFile: string;
}

/** Why a looser project value is ignored and where the person sets it instead (after the value's own name). */
export function looserMessage(kind: "policy" | ProjectLimit, project: ForgePolicy | number, user: UserSetting): string {
	const what =
		kind === "policy"
			? `is looser than your policy (${user.value}, from ${user.from}); a project's config file may only tighten the policy`
			: `is higher than your limit (${user.value}, from ${user.from}); a project's config file may only lower a limit`;
	return `${what}, so it is ignored. To use ${project}, set ${user.variable}=${project} or "${kind}": ${JSON.stringify(project)} in ${user.globalFile}.`;
}
