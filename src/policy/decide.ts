// The capability policy: whether a forged tool may have a capability now, may never have it, or must ask a person.
import { isAbsolute, normalize, parse, sep } from "node:path";
import { type Capability, PATH_KEY_PREFIX, SAFE_ENV, capabilityKey, describeCapability } from "./capability.ts";

/** Capability keys remembered for one tool; a key ending in "/" (e.g. "read:/data/") covers every path under it. */
export interface ToolGrants {
	allow: string[];
	deny: string[];
}

export interface PolicyContext {
	policy: "strict" | "prompt" | "permissive";
	/** Realpath of pi's cwd. */
	projectDir: string;
	/** Realpath of os.tmpdir(). */
	tempDir: string;
	/** Realpaths nobody may write: the toolbox, the forge's config and grants. */
	protectedDirs: string[];
	/** Remembered for this tool. */
	grants: ToolGrants;
}

export type Decision = { verdict: "allow"; reason: string } | { verdict: "deny"; reason: string } | { verdict: "ask" };

/** The reasons decide() gives, so callers and tests can tell them apart without parsing prose. */
export const REASONS = {
	protected: "the toolbox is never writable by a tool",
	notAbsolute: "the path is not absolute",
	insideProject: "inside the project",
	insideTemp: "inside the OS temp dir",
	safeEnv: "a safe environment variable",
	rememberedDeny: "remembered: always denied for this tool",
	rememberedAllow: "remembered: always allowed for this tool",
	permissive: "permissive policy grants everything",
	strict: "strict policy never grants",
} as const;

/** Denials no grant and no policy can lift. */
const FINAL_DENIALS: ReadonlySet<string> = new Set([REASONS.protected, REASONS.notAbsolute]);

export function decide(capability: Capability, context: PolicyContext): Decision {
	if (capability.kind === "fs-read" || capability.kind === "fs-write") {
		const { path } = capability;
		// A relative path cannot be placed against the project or the toolbox, so it is refused rather than guessed.
		if (!isAbsolute(path)) return deny(REASONS.notAbsolute);
		// Inside a protected folder, or above one (removing or renaming `.pi` would take the toolbox with it).
		if (capability.kind === "fs-write" && context.protectedDirs.some((dir) => isInside(path, dir) || isInside(dir, path))) {
			return deny(REASONS.protected);
		}
		if (isInside(path, context.projectDir)) return allow(REASONS.insideProject);
		if (isInside(path, context.tempDir)) return allow(REASONS.insideTemp);
	}
	if (capability.kind === "env" && SAFE_ENV.has(capability.name)) return allow(REASONS.safeEnv);

	const key = capabilityKey(capability);
	if (context.grants.deny.some((grant) => grantCovers(grant, key))) return deny(REASONS.rememberedDeny);
	if (context.policy === "strict") return deny(REASONS.strict);
	if (context.grants.allow.some((grant) => grantCovers(grant, key))) return allow(REASONS.rememberedAllow);
	// Running inside pi's process gives up the isolation itself: a person decides, even under permissive.
	if (context.policy === "permissive" && capability.kind !== "inline") return allow(REASONS.permissive);
	return { verdict: "ask" };
}

const allow = (reason: string): Decision => ({ verdict: "allow", reason });
const deny = (reason: string): Decision => ({ verdict: "deny", reason });

/** Whether a remembered key covers a capability key: the same key, or a directory key ("read:/data/") above a path. */
export function grantCovers(grant: string, key: string): boolean {
	if (grant === key) return true;
	for (const prefix of Object.values(PATH_KEY_PREFIX)) {
		if (!grant.startsWith(prefix) || !key.startsWith(prefix)) continue;
		const grantPath = grant.slice(prefix.length);
		const path = key.slice(prefix.length);
		if (!isAbsolute(grantPath)) return false;
		return grantPath.endsWith("/") || grantPath.endsWith(sep) ? isInside(path, grantPath) : sameLocation(path, grantPath);
	}
	return false;
}

/** `path` is `dir` or below it; "/a/bc" is not inside "/a/b"; trailing slashes and "." / ".." segments don't matter. */
export function isInside(path: string, dir: string): boolean {
	if (!path || !dir) return false;
	const p = trimSeparators(path);
	const d = trimSeparators(dir);
	if (p === d) return true;
	const prefix = d.endsWith("/") || d.endsWith(sep) ? d : d + sep;
	return p.startsWith(prefix);
}

function sameLocation(a: string, b: string): boolean {
	return trimSeparators(a) === trimSeparators(b);
}

/** Normalized, without trailing separators, except for a root ("/"), which is nothing but its separator. */
function trimSeparators(path: string): string {
	const normalized = normalize(path);
	if (parse(normalized).root === normalized) return normalized;
	return normalized.replace(/[\\/]+$/, "");
}

/**
 * One actionable line for the model or the user when a capability is refused and no person could be asked.
 * `project` (the realpath the grants are kept under) makes the JSON path exact; `decision` lets the hint say
 * when no grant can help.
 */
export function refusalHint(
	capability: Capability,
	tool: string,
	policy: PolicyContext["policy"],
	grantsFile: string,
	options: { project?: string; decision?: Decision } = {},
): string {
	const { decision } = options;
	if (decision?.verdict === "deny" && FINAL_DENIALS.has(decision.reason)) {
		return decision.reason === REASONS.protected
			? `No policy lets a forged tool write the toolbox or the forge's own files; have '${tool}' write inside the project or the OS temp dir instead.`
			: `'${tool}' must name files by absolute path; resolve a relative one against the project first.`;
	}
	const key = capabilityKey(capability);
	const entry = `projects[${JSON.stringify(options.project ?? "<project dir>")}][${JSON.stringify(tool)}]`;
	const wanted = describeCapability(capability);
	if (policy === "strict") {
		return `PI_FORGE_POLICY=strict never grants, so '${tool}' may not ${wanted}; set PI_FORGE_POLICY=prompt and allow it with ${JSON.stringify(key)} in the "allow" list at ${entry} in ${grantsFile}.`;
	}
	if (decision?.verdict === "deny" && decision.reason === REASONS.rememberedDeny) {
		return `'${tool}' was refused to ${wanted} for good: to allow it, move ${JSON.stringify(key)} from the "deny" to the "allow" list at ${entry} in ${grantsFile}.`;
	}
	return `To let '${tool}' ${wanted}, add ${JSON.stringify(key)} to the "allow" list at ${entry} in ${grantsFile} (a key ending in "/" covers a whole directory; drop it from "deny" if it is there), or set PI_FORGE_POLICY=permissive.`;
}
