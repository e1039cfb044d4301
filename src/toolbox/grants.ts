// Granting, revoking and listing a tool's capabilities by hand, for `agent-forge grant|revoke|grants` and `/forge`.
// A grant is for the tool's version as it is now (its hash); pi reads it at the tool's next call, without a restart.
import { GRANT_FORMS, parseGrantKey } from "../policy/grant-key.ts";
import { ANY_VERSION } from "../policy/grants-store.ts";
import { sanitizeForDisplay as shown } from "../policy/terminal-text.ts";
import { resolveProgram } from "../run/isolated/resolve-program.ts";
import type { OpenedToolbox } from "./open-toolbox.ts";

export type GrantOutcome = { ok: true; message: string } | { ok: false; message: string };

/** Grants `capability` to the current version of `tool`. */
export async function grantCapability(opened: OpenedToolbox, tool: string, capability: string): Promise<GrantOutcome> {
	const { toolboxes: toolbox, grants, config } = opened;
	const entry = toolbox.get(tool);
	if (!entry)
		return {
			ok: false,
			message: noSuchTool(
				tool,
				toolbox.entries().map((e) => e.name),
			),
		};
	const parsed = parseGrantKey(unquote(capability));
	if (!parsed.ok) return { ok: false, message: shown(parsed.error) };
	let key: string;
	let found = "";
	if ("lookup" in parsed) {
		const project = projectOf(opened);
		const path = resolveProgram(parsed.lookup, { cwd: project, path: opened.config.safeEnv.PATH });
		if (!path)
			return {
				ok: false,
				message: `'${parsed.lookup}' is not found on PATH: grant the program by its path (exec:/usr/bin/${parsed.lookup}).`,
			};
		key = `exec:${path}${parsed.env}`;
		found = ` ('${parsed.lookup}' is ${path} on PATH)`;
	} else {
		key = parsed.key;
	}
	await grants.remember(projectOf(opened), tool, key, "allow", entry.hash);
	const strict =
		config.policy === "strict"
			? ` Note: the policy here is strict, which never grants; it applies once PI_FORGE_POLICY is prompt.`
			: "";
	return {
		ok: true,
		message: `Granted ${shown(key)} to '${tool}' v${entry.version}${found}: it holds from the tool's next call, until its code changes.${strict}`,
	};
}

/** Forgets one capability of `tool` (allowed or denied), or with none every grant it has. */
export async function revokeCapability(
	opened: OpenedToolbox,
	tool: string,
	capability?: string,
): Promise<GrantOutcome> {
	const key = capability === undefined ? undefined : unquote(capability).trim();
	const removed = await opened.grants.revoke(projectOf(opened), tool, key);
	if (!removed)
		return {
			ok: false,
			message:
				key === undefined
					? `'${tool}' has no grants in this project.`
					: `'${tool}' has no grant ${shown(key)} in this project (see its grants: agent-forge grants ${tool}).`,
		};
	return {
		ok: true,
		message:
			key === undefined
				? `Revoked every grant of '${tool}': it asks again from its next call.`
				: `Revoked ${shown(key)} from '${tool}': it asks again from its next call.`,
	};
}

/** The grants of this project's tools (or one tool), one line each, with the version each list holds for. */
export async function listGrants(opened: OpenedToolbox, tool?: string): Promise<string> {
	const { grants, toolboxes: toolbox } = opened;
	await grants.refresh();
	const project = projectOf(opened);
	const names = tool
		? [tool]
		: [...new Set([...toolbox.entries().map((e) => e.name), ...grants.tools(project)])].sort();
	const lines = names.flatMap((name) => {
		const entry = grants.entry(project, name);
		if (!entry.allow.length && !entry.deny.length) return [];
		const current = toolbox.get(name);
		const holds =
			entry.hash === undefined || entry.hash === ANY_VERSION
				? "every version"
				: current?.hash === entry.hash
					? `v${current.version}, the current version`
					: "an earlier version (not the current one: it asks again)";
		// Keys are shown inert: a shell line may hold terminal escapes.
		const keys = (list: string[]) => list.map((key) => `${shown(key)}${matchesNothing(key)}`).join(", ") || "—";
		return [`${shown(name)} (allow holds for ${holds}): allow ${keys(entry.allow)}; deny ${keys(entry.deny)}`];
	});
	return [
		`Grants file: ${grants.file}`,
		...(lines.length ? lines : ["No remembered grants."]),
		`Capabilities: ${GRANT_FORMS}.`,
	].join("\n");
}

/** A hand-written key no capability will ever have (a typo, a program by name only), said so where it is listed. */
function matchesNothing(key: string): string {
	const parsed = parseGrantKey(key);
	if (!parsed.ok) return " (matches nothing: not a capability)";
	return "lookup" in parsed
		? ` (matches nothing: a program is kept by its path, e.g. exec:/usr/bin/${parsed.lookup})`
		: "";
}

/** The project by its real path (the cwd itself when it cannot be resolved), as grants are kept. */
function projectOf(opened: OpenedToolbox): string {
	return opened.config.realCwd;
}

/** One pair of quotes around the whole capability (as typed after /forge grant, where no shell removes them). */
function unquote(text: string): string {
	const trimmed = text.trim();
	const quoted = /^'(.*)'$/s.exec(trimmed) ?? /^"(.*)"$/s.exec(trimmed);
	return quoted ? quoted[1].replace(/'\\''/g, "'") : trimmed;
}

function noSuchTool(name: string, known: string[]): string {
	return `There is no forged tool named '${shown(name)}'.${known.length ? ` Tools: ${known.join(", ")}` : ""}`;
}
