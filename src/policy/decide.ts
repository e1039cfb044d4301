// The capability policy: whether a forged tool may have a capability now, may never have it, or must ask a person.
import { isAbsolute, sep } from "node:path";
import { type Capability, capabilityKey, digestKey, PATH_KEY_PREFIX, SAFE_ENV } from "./capability.ts";
import { isInside, sameLocation } from "./paths.ts";
import { type ProtectedLocation, protectedTarget } from "./protected.ts";
import { shellQuote } from "./terminal-text.ts";

export { isInside } from "./paths.ts";

/** Capability keys remembered for one tool; a key ending in "/" (e.g. "read:/data/") covers every path under it. */
export interface ToolGrants {
	allow: string[];
	deny: string[];
}

export interface PolicyContext {
	policy: "strict" | "prompt" | "permissive";
	/** Realpath of pi's cwd. */
	projectDir: string;
	/** Real path of the tool's private temp dir (its os.tmpdir()). */
	tempDir: string;
	/** Locations no tool may write, and folders above them (see protected.ts). */
	protected: readonly ProtectedLocation[];
	/** Remembered for this tool. */
	grants: ToolGrants;
}

export type Decision = { verdict: "allow"; reason: string } | { verdict: "deny"; reason: string } | { verdict: "ask" };

/** The reasons decide() gives, so callers and tests can tell them apart without parsing prose. */
export const REASONS = {
	/** The end of every protected-location refusal: "<what> is never writable by a forged tool". */
	protected: "is never writable by a forged tool",
	notAbsolute: "the path is not absolute",
	insideProject: "inside the project",
	insideTemp: "inside the tool's private temp dir",
	safeEnv: "a safe environment variable",
	rememberedDeny: "remembered: always denied for this tool",
	/** A person was asked just now and said no. */
	deniedByUser: "denied by the user",
	/** The call ended before a person answered: nothing is done, nothing remembered. */
	callOver: "the call is over (it ended before anyone answered)",
	/** A call that asked too often: refused unasked; a grant given ahead (the command) still holds. */
	tooManyDialogs: (max: number) =>
		`not asked: this call already opened ${max} permission dialogs, the most one call may (grant it ahead with the command below, then call again)`,
	/** A command line a dialog cannot show whole: nobody is asked to approve what they cannot see. */
	tooLongToShow: (length: number) =>
		`not asked: the command line is too long to show a person whole (${length} characters); read it, and grant it with the command below if it is what should run`,
	rememberedAllow: "remembered: always allowed for this tool",
	permissive: "permissive policy grants everything",
	strict: "strict policy never grants",
} as const;

/** The refusal of a write to a protected location. */
export const protectedReason = (what: string) => `${what} ${REASONS.protected}`;

/** Denials no grant and no policy can lift. */
const isFinalDenial = (reason: string) => reason === REASONS.notAbsolute || reason.endsWith(REASONS.protected);

export function decide(capability: Capability, context: PolicyContext): Decision {
	if (capability.kind === "fs-read" || capability.kind === "fs-write") {
		const { path } = capability;
		// A relative path cannot be placed against the project or the toolbox, so it is refused rather than guessed.
		if (!isAbsolute(path)) return deny(REASONS.notAbsolute);
		// Inside a protected location, or above one (removing or renaming `.pi` would take the toolbox with it).
		const target =
			capability.kind === "fs-write"
				? protectedTarget(path, context.protected, [context.projectDir, context.tempDir])
				: undefined;
		if (target) return deny(protectedReason(target));
		if (isInside(path, context.projectDir)) return allow(REASONS.insideProject);
		if (isInside(path, context.tempDir)) return allow(REASONS.insideTemp);
	}
	if (capability.kind === "env" && SAFE_ENV.has(capability.name)) return allow(REASONS.safeEnv);

	const key = capabilityKey(capability);
	if (context.grants.deny.some((grant) => grantCovers(grant, key))) return deny(REASONS.rememberedDeny);
	if (context.policy === "strict") return deny(REASONS.strict);
	// A shell line not bound to the files it runs is never allowed for good: a grant would cover whatever it reaches.
	const grantable = !(capability.kind === "exec" && capability.unbound);
	if (grantable && context.grants.allow.some((grant) => grantCovers(grant, key)))
		return allow(REASONS.rememberedAllow);
	// Running inside pi's process gives up the isolation itself: a person decides, even under permissive.
	if (context.policy === "permissive" && capability.kind !== "inline") return allow(REASONS.permissive);
	return { verdict: "ask" };
}

const allow = (reason: string): Decision => ({ verdict: "allow", reason });
const deny = (reason: string): Decision => ({ verdict: "deny", reason });

/**
 * Whether a remembered key covers a capability key: the same key, its digest ("sha256:…", for a key that holds a
 * secret), or a directory key ("read:/data/") above a path.
 */
export function grantCovers(grant: string, key: string): boolean {
	if (grant === key) return true;
	if (grant.startsWith("sha256:")) return grant === digestKey(key);
	for (const prefix of Object.values(PATH_KEY_PREFIX)) {
		if (!grant.startsWith(prefix) || !key.startsWith(prefix)) continue;
		const grantPath = grant.slice(prefix.length);
		const path = key.slice(prefix.length);
		if (!isAbsolute(grantPath)) return false;
		return grantPath.endsWith("/") || grantPath.endsWith(sep)
			? isInside(path, grantPath)
			: sameLocation(path, grantPath);
	}
	return false;
}

/**
 * The commands that grant `key` to `tool` (for its current version), as they are typed: the capability quoted for a
 * POSIX shell on the command line, as it is after `/forge grant <tool>` in pi's TUI.
 */
export function grantCommands(
	tool: string,
	key: string,
	runCli?: { node: string; bin: string },
): { cli: string; tui: string; direct?: string } {
	const args = `grant ${tool} ${shellQuote(key)}`;
	return {
		cli: `agent-forge ${args}`,
		tui: `/forge grant ${tool} ${key}`,
		// `agent-forge` is on the PATH only when the package was installed with npm: the same command, runnable anyway.
		...(runCli ? { direct: `${shellQuote(runCli.node)} ${shellQuote(runCli.bin)} ${args}` } : {}),
	};
}

/**
 * One actionable line for the model or the user when a capability is refused and no person could be asked. It names
 * no capability (that goes, exact, in the grant commands beside it); `decision` lets it say when no grant can help.
 */
export function refusalHint(
	tool: string,
	policy: PolicyContext["policy"],
	grantsFile: string,
	decision?: Decision,
	capability?: Capability,
): string {
	if (decision?.verdict === "deny" && isFinalDenial(decision.reason)) {
		return decision.reason.endsWith(REASONS.protected)
			? `No policy or grant lets a forged tool write there (the toolbox, the forge's and pi's own files, .pi/, .git/, agent instruction files, pi's and Node's caches); have '${tool}' write elsewhere in the project or in its private temp dir (os.tmpdir()).`
			: `'${tool}' must name files by absolute path; resolve a relative one against the project first.`;
	}
	// Most refusals are permissions to grant; an access the logic should never have made (a wrong path or address) is a bug.
	const notABug = `This is a permission to grant, not a fault in the code of '${tool}': do not re-forge it for this, unless '${tool}' should not reach this at all (a wrong path or address in the logic).`;
	const effect = `Grants are kept per version of a tool, in ${grantsFile}.`;
	const unasked =
		decision?.verdict === "deny" &&
		decision.reason !== REASONS.deniedByUser &&
		decision.reason !== REASONS.rememberedDeny;
	if (capability?.kind === "exec" && capability.unbound && unasked) {
		const who =
			policy === "strict"
				? "PI_FORGE_POLICY=strict never runs it; under PI_FORGE_POLICY=prompt only a person, asked in pi's TUI, can allow it once"
				: "only a person, asked in pi's TUI, can allow it once";
		return `${notABug} This shell line is not bound to the content of the files it runs (${capability.unbound}), so no grant covers it: ${who}. Or have '${tool}' name its script in the line (\`sh scripts/build.sh\`, or the folder as the command's \`cwd\` option instead of \`cd\`), with no \`$\` in it: such a line can be granted.`;
	}
	if (policy === "strict") {
		return `${notABug} PI_FORGE_POLICY=strict never grants: with PI_FORGE_POLICY=prompt, a person can grant it with the command below. ${effect}`;
	}
	if (decision?.verdict === "deny" && decision.reason === REASONS.deniedByUser) {
		return deniedHint(tool);
	}
	if (decision?.verdict === "deny" && decision.reason === REASONS.rememberedDeny) {
		return `${notABug} The user refused it for good: only with their say-so, the command below turns that refusal into a grant. ${effect}`;
	}
	return `${notABug} To allow it, run the command below (with the user's consent), then call '${tool}' again; or keep '${tool}' inside the project and its private temp dir (os.tmpdir()). ${effect}`;
}

const deniedHint = (tool: string) =>
	`The user was asked and refused to let '${tool}' do this: respect that, and do not look for another way to get it unless they ask you to. This is not a fault in the code of '${tool}'.`;
