// pi's project trust, as Agent Forge honours it: in a project not trusted (pi's answer, or where pi did not ask, no
// explicit trust: forge-trust.ts), the project's toolbox and its .pi/forge/config.json are left alone (config.ts); this
// module says so, and why, to the model and the person, and knows which of the project's tools are left out. pi's
// legacy line has no trust: every project there counts as trusted.
import { existsSync, readdirSync } from "node:fs";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ConfigProblem, ForgeConfig, UntrustedWhy } from "../contract/config.ts";
import { ForgeError } from "../contract/forge-error.ts";
import { piNotFound } from "./offer-text.ts";

/** How a person makes pi trust the project. */
export const HOW_TO_TRUST =
	"To trust it: start pi with --approve (-a) for one session, or use /trust in pi (saved for later sessions) and restart pi.";

/** How a person trusts a project pi did not ask about: /trust is then taken up at the next call, without a restart. */
export const HOW_TO_TRUST_UNASKED =
	"To trust it: start pi with --approve (-a) for one session, or use /trust in pi (saved for later sessions; Agent Forge takes it up from the next call).";

type Why = Pick<ForgeConfig, "untrustedWhy" | "untrustedDetail">;

/** Why the project's toolbox is left out, as a clause: "pi does not trust this project". */
export function whyUntrusted(config: Why): string {
	const why: UntrustedWhy = config.untrustedWhy ?? "pi";
	if (why === "linked")
		return `${config.untrustedDetail ?? "this project's toolbox folder is reached through a symbolic link"} (Agent Forge follows no link to a project's toolbox and uses none in a folder pi loads code from)`;
	if (why === "declined") return "you told pi not to trust this project (a saved decision; pi did not ask this time)";
	if (why === "not-asked")
		return "you have not trusted this project and its toolbox was not made by your Agent Forge (pi did not ask: the project has no pi settings or extensions, only .pi/forge)";
	return "pi does not trust this project";
}

/** How to use a project toolbox reached through a link: trust does not change that. */
export const HOW_TO_UNLINK =
	"To use it: make .pi, .pi/forge and .pi/forge/extensions real folders of the project (not links), outside the folders pi loads code from, and restart pi.";

/** How to trust the project (or use its toolbox), for the reason it is left out. */
export function howToTrust(config: Why): string {
	const why = config.untrustedWhy ?? "pi";
	return why === "pi" ? HOW_TO_TRUST : why === "linked" ? HOW_TO_UNLINK : HOW_TO_TRUST_UNASKED;
}

/** What the model asks the person for, for the reason the toolbox is left out. */
const askUser = (config: Why): string =>
	config.untrustedWhy === "linked"
		? "ask the user to make the project's toolbox a real folder"
		: "ask the user to trust the project";

/** A clause as the start of a sentence ("pi" keeps its small letter). */
const capital = (text: string) => (text.startsWith("pi ") ? text : text[0].toUpperCase() + text.slice(1));

/**
 * Whether pi trusts `ctx`'s project: its `isProjectTrusted()`; a pi without it (the legacy line) trusts every one.
 * Undefined when the context no longer answers (after /new or /reload): the last answer stands.
 */
export function isTrusted(ctx: object | undefined): boolean | undefined {
	const check = (ctx as { isProjectTrusted?: unknown } | undefined)?.isProjectTrusted;
	if (typeof check !== "function") return true;
	try {
		return check.call(ctx) === true;
	} catch {
		return undefined;
	}
}

/** Names of the tools in the left-out project toolbox (from their file names only: nothing of them is read or run). */
export function withheldTools(config: Pick<ForgeConfig, "withheldToolboxDir">): string[] {
	const dir = config.withheldToolboxDir;
	if (!dir) return [];
	try {
		return readdirSync(dir)
			.flatMap((file) => /^forge-(.+)\.ts$/.exec(file)?.[1] ?? [])
			.sort();
	} catch {
		return [];
	}
}

/** What the person reads in /forge and at the start: which toolbox is left out, what still works, how to trust. */
export function untrustedNote(
	config: Pick<ForgeConfig, "withheldToolboxDir" | "projectConfigFile" | "untrustedWhy" | "untrustedDetail">,
): string | undefined {
	const dir = config.withheldToolboxDir;
	if (!dir) return undefined;
	const tools = withheldTools(config);
	const held = tools.length ? ` (${tools.length} tool${tools.length === 1 ? "" : "s"}: ${listed(tools)})` : "";
	return `${whyUntrusted(config)}: Agent Forge leaves its toolbox ${dir}${held} alone — its tools are neither offered nor run — and does not read ${config.projectConfigFile}. The user toolbox works as usual. ${howToTrust(config)}`;
}

/**
 * The start report's note in an untrusted project that has a forge folder of its own, or a toolbox reached through a
 * link; none in any other project.
 */
export function startNote(
	config: Pick<ForgeConfig, "withheldToolboxDir" | "projectConfigFile" | "untrustedWhy" | "untrustedDetail">,
): ConfigProblem | undefined {
	const note = untrustedNote(config);
	const dir = config.withheldToolboxDir;
	const linked = config.untrustedWhy === "linked";
	if (!note || !dir || !(linked || existsSync(dir) || existsSync(config.projectConfigFile))) return undefined;
	return { origin: { file: dir }, message: note };
}

/** Where forge_tool says a tool went in an untrusted project: the user toolbox, the only one there. */
export function untrustedForgeScope(
	config: Pick<ForgeConfig, "withheldToolboxDir" | "toolboxDir" | "untrustedWhy" | "untrustedDetail">,
): string | undefined {
	if (!config.withheldToolboxDir) return undefined;
	return `Scope: the user toolbox (${config.toolboxDir}): every project sees it. ${capital(whyUntrusted(config))}, so its own toolbox is left out.`;
}

/** What list_forge adds for the model in an untrusted project: only the user toolbox is listed, and why. */
export function untrustedListingNote(
	config: Pick<ForgeConfig, "withheldToolboxDir" | "untrustedWhy" | "untrustedDetail">,
): string | undefined {
	if (!config.withheldToolboxDir) return undefined;
	const tools = withheldTools(config);
	const held = tools.length
		? ` Its ${tools.length} tool${tools.length === 1 ? "" : "s"} (${listed(tools)}) cannot be run here.`
		: "";
	return `Note: ${whyUntrusted(config)}, so these are the user toolbox's tools only; the project's own toolbox is left out.${held} forge_tool works here with scope "user" only. To use the project's tools, ${askUser(config)}. ${howToTrust(config)}`;
}

/** The model called a tool of the left-out project toolbox (and the user toolbox has none of that name). */
export function untrustedToolError(
	name: string,
	config: Pick<ForgeConfig, "withheldToolboxDir" | "untrustedWhy" | "untrustedDetail">,
): ForgeError | undefined {
	if (!withheldTools(config).includes(name)) return undefined;
	return new ForgeError(
		"permission",
		`'${name}' is a tool of this project's toolbox (${config.withheldToolboxDir}), and ${whyUntrusted(config)}: Agent Forge does not run its tools.`,
		{
			hint: `Do not retry: ${askUser(config)}. ${howToTrust(config)} Tools forged with scope "user" (the user toolbox) work here.`,
		},
	);
}

/**
 * `messages` with pi's bare "Tool X not found" for a tool of the left-out project toolbox replaced by why it is not
 * there and how to trust the project (the model may have read of it in the project's files).
 */
export function answerUntrusted<M>(
	messages: M[],
	config: Pick<ForgeConfig, "withheldToolboxDir" | "untrustedWhy" | "untrustedDetail">,
	format: (error: ForgeError) => string,
): M[] {
	if (!config.withheldToolboxDir) return messages;
	let tools: string[] | undefined;
	return messages.map((message) => {
		const result = message as { role?: string; toolName?: unknown; isError?: boolean; content?: unknown };
		if (result.role !== "toolResult" || !result.isError || typeof result.toolName !== "string") return message;
		const content = result.content as Array<{ type: string; text?: string }> | undefined;
		if (content?.length !== 1 || content[0].text !== piNotFound(result.toolName)) return message;
		tools ??= withheldTools(config);
		const error = tools.includes(result.toolName) ? untrustedToolError(result.toolName, config) : undefined;
		return error
			? { ...message, content: [{ type: "text", text: `${piNotFound(result.toolName)}: ${format(error)}` }] }
			: message;
	});
}

/**
 * The scope a forge_tool call goes into. In an untrusted project only the user toolbox can be forged into (it is then
 * the one toolbox, scope "project" to the toolboxes); a forge for the project is refused saying how to proceed.
 */
export function forgeScope(
	requested: unknown,
	config: Pick<ForgeConfig, "withheldToolboxDir" | "untrustedWhy" | "untrustedDetail">,
): { ok: true; scope: unknown } | { ok: false; error: ForgeError } {
	if (!config.withheldToolboxDir) return { ok: true, scope: requested ?? "project" };
	if (requested === "user") return { ok: true, scope: "project" };
	return {
		ok: false,
		error: new ForgeError(
			"permission",
			`${capital(whyUntrusted(config))}, so Agent Forge does not forge into its toolbox (${config.withheldToolboxDir}): nothing was forged.`,
			{
				hint: `To forge into the user toolbox instead (every project sees it), call forge_tool again with the same arguments and scope "user". To forge into the project's toolbox, ${askUser(config)}. ${howToTrust(config)}`,
			},
		),
	};
}

const listed = (names: string[]) => (names.length > 8 ? `${names.slice(0, 8).join(", ")}, …` : names.join(", "));

/** The status-bar key of the trust note (beside the toolbox's own status). */
export const TRUST_STATUS_KEY = "agent-forge-trust";

/** Shows or clears the status-bar note that the project's toolbox is left out. */
export function showTrustStatus(
	ctx: Pick<ExtensionContext, "hasUI" | "ui"> | undefined,
	config: Pick<ForgeConfig, "withheldToolboxDir">,
): void {
	if (!ctx?.hasUI) return;
	try {
		ctx.ui.setStatus(
			TRUST_STATUS_KEY,
			config.withheldToolboxDir ? "project not trusted: its forged tools are off" : undefined,
		);
	} catch {
		// A stale context: the next session_start shows it again.
	}
}
