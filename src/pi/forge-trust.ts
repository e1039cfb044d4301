// Whether Agent Forge opens a project's own toolbox (and reads its .pi/forge/config.json): only where the person's
// trust in the project is explicit. pi answers `isProjectTrusted()` with true, without asking, for a project that has
// no pi settings or extensions of its own; a toolbox counts as such a resource here, as `.pi/extensions` does for pi.
// So, where pi trusts the project, its toolbox is opened when one of these holds, in this order:
// - pi decided (the project has resources pi asks about: pi asked, or found a saved decision, or was given --approve);
// - --approve (-a) on pi's command line;
// - pi's saved decision for the folder or a parent (`<agentDir>/trust.json`; a saved "do not trust" withholds it);
// - the person's pi settings trust every project (`"defaultProjectTrust": "always"`);
// - this agent dir's Agent Forge made the toolbox (own-toolboxes.ts), or wrote to it before such records were kept (its
//   compile cache holds an entry signed with this agent dir's key: signed-here.ts; it is then recorded);
// - there is no toolbox yet: the one opened now is made here, and recorded as such.
// pi's legacy line has no trust: every project there counts as trusted, as before. Trusted or not, a project toolbox
// reached through a link (or in a folder pi loads code from) is left out too (loadTrusted).
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { type ConfigProblem, type ForgeConfig, loadConfig } from "../config.ts";
import type { UntrustedWhy } from "../contract/config.ts";
import { CACHE_DIR } from "../store/compile-cache.ts";
import { signedHere } from "../store/signed-here.ts";
import { unsafeToolboxFolder } from "../store/toolbox-folder.ts";
import { OwnToolboxes } from "./own-toolboxes.ts";
import { isTrusted } from "./project-trust.ts";
import { piTrustEvidence, type TrustEvidence } from "./trust-evidence.ts";

export interface TrustAnswer {
	trusted: boolean;
	/** Why the project's toolbox is left out (when it is). */
	why?: UntrustedWhy;
	/** The toolbox does not exist yet: once opened (made), it is recorded as this agent dir's own. */
	record?: boolean;
}

/** `<cwd>/.pi/forge/extensions`: the project's own toolbox (PI_FORGE_DIR names a folder the person chose). */
export const projectToolboxOf = (cwd: string): string => join(cwd, ".pi", "forge", "extensions");

const existsAt = (path: string): boolean => {
	try {
		lstatSync(path);
		return true;
	} catch {
		return false;
	}
};

/** When the toolbox's compile-cache folder last changed (an entry written or removed); undefined when it is not there. */
const cacheChanged = (toolbox: string): number | undefined => {
	try {
		return lstatSync(join(toolbox, CACHE_DIR)).mtimeMs;
	} catch {
		return undefined;
	}
};

export class ForgeTrust {
	/** Whether pi decided each project's trust itself, as it was at the first look (what pi saw at its start). */
	private readonly piDecided = new Map<string, boolean>();
	/** Projects found trusted: they stay so for the session unless pi withdraws its own trust. */
	private readonly trusted = new Set<string>();
	/**
	 * Toolboxes whose compile cache held no entry of this agent dir's, with the cache folder's modification time then:
	 * the check is asked at every call, and the entries are read again only once the folder has changed.
	 */
	private readonly unsigned = new Map<string, number | undefined>();

	constructor(private readonly evidence: TrustEvidence = piTrustEvidence) {}

	/** The answer for `ctx`'s project; undefined when pi's context no longer answers (the last answer stands). */
	check(ctx: object | undefined, cwd: string, agentDir: string): TrustAnswer | undefined {
		if (typeof (ctx as { isProjectTrusted?: unknown } | undefined)?.isProjectTrusted !== "function")
			return { trusted: true };
		let decided = this.piDecided.get(cwd);
		if (decided === undefined) {
			decided = this.evidence.piDecides(cwd);
			this.piDecided.set(cwd, decided);
		}
		const pi = isTrusted(ctx);
		if (pi === undefined) return undefined;
		if (!pi) return { trusted: false, why: "pi" };
		if (this.trusted.has(cwd)) return { trusted: true };
		const answer = decided ? { trusted: true } : this.explicit(cwd, agentDir);
		if (answer.trusted) this.trusted.add(cwd);
		return answer;
	}

	/** The answer for a project pi trusted without asking. */
	private explicit(cwd: string, agentDir: string): TrustAnswer {
		if (this.evidence.approve() === true) return { trusted: true };
		const saved = this.evidence.saved(agentDir, cwd);
		if (saved) return saved.trusted ? { trusted: true } : { trusted: false, why: "declined" };
		if (this.evidence.trustsAll(agentDir)) return { trusted: true };
		const toolbox = projectToolboxOf(cwd);
		const own = new OwnToolboxes(join(agentDir, "forge"));
		if (own.has(cwd, toolbox)) return { trusted: true };
		// A toolbox made before toolboxes were recorded: its compile cache shows this agent dir's forge wrote to it.
		const changed = cacheChanged(toolbox);
		if (!this.unsigned.has(toolbox) || this.unsigned.get(toolbox) !== changed) {
			if (signedHere(toolbox, join(agentDir, "forge"))) {
				own.add(cwd, toolbox);
				return { trusted: true };
			}
			this.unsigned.set(toolbox, changed);
		}
		if (!existsAt(toolbox)) return { trusted: true, record: true };
		return { trusted: false, why: "not-asked" };
	}
}

/**
 * The configuration of `cwd` for `trust`. A trusted project whose own toolbox is reached through a link, or lies in a
 * folder pi loads code from, is loaded as untrusted (`linked`, with the folder named): its toolbox and config are
 * left out, the user toolbox works, and the start report says which folder it is.
 */
export async function loadTrusted(
	cwd: string,
	trust: TrustAnswer,
): Promise<{ config: ForgeConfig; problems: ConfigProblem[] }> {
	const loaded = loadConfig(cwd, undefined, undefined, { projectTrusted: trust.trusted, untrustedWhy: trust.why });
	const { config } = loaded;
	if (!trust.trusted || config.toolboxDir !== projectToolboxOf(cwd)) return loaded;
	const unsafe = await unsafeToolboxFolder(config.toolboxDir, { project: cwd, agentDir: config.agentDir });
	if (!unsafe) return loaded;
	// The sentence's first clause names the folder: "<path> is a symbolic link", "<path> is inside <folder pi loads>".
	const untrustedDetail = unsafe.split(": ")[0];
	const withheld = loadConfig(cwd, undefined, undefined, {
		projectTrusted: false,
		untrustedWhy: "linked",
		untrustedDetail,
	});
	return withheld;
}
