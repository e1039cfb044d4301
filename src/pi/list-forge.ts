// `list_forge`: the toolbox for the model — name, description, version, status, last use; with a query, best matches
// first; with a name, that tool in full (tool-detail.ts).

import { basename, isAbsolute, relative } from "node:path";
import { type Static, Type } from "typebox";
import { closeNames } from "../contract/did-you-mean.ts";
import { ForgeError } from "../contract/forge-error.ts";
import { hashSource, parseMeta } from "../contract/tool-files.ts";
import { redactSecrets } from "../security/redact.ts";
import type { Toolbox, ToolView } from "../toolbox/toolbox.ts";
import type { ScopedView, Toolboxes } from "../toolbox/toolboxes.ts";
import { relativeTime } from "../ui/relative-time.ts";
import type { ForgeSession } from "./forge-session.ts";
import { toPiError } from "./output.ts";
import { defineTool } from "./pi-exports.ts";
import { untrustedListingNote } from "./project-trust.ts";
import { formatToolDetail } from "./tool-detail.ts";

export const listForgeSchema = Type.Object({
	query: Type.Optional(
		Type.String({ description: "Words describing the tool you need; the best matches come first." }),
	),
	name: Type.Optional(
		Type.String({
			description:
				"A forged tool's exact name: that tool in full (description, parameters schema, tests, state, version and its current source), e.g. before changing it.",
		}),
	),
});

export type ListForgeInput = Static<typeof listForgeSchema>;

export const LIST_LIMIT = 20;

/** A listed tool; without a scope, the project's. */
type Listed = ToolView & Partial<Pick<ScopedView, "scope" | "hides">>;
const MAX_DESCRIPTION = 240;

export function createListForge(session: ForgeSession) {
	return defineTool({
		name: "list_forge",
		label: "List forged tools",
		description:
			`List forged tools (name, description, version, status ok/broken, last use). With a query, the best matches first (at most ${LIST_LIMIT}). ` +
			"With a name, that tool in full: description, parameters schema, tests, state and its current source (read it before re-forging the tool).",
		promptSnippet: "List or search your forged tools",
		parameters: listForgeSchema,
		async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
			const toolbox = await session.toolboxFor(ctx);
			if (params.name?.trim()) {
				session.refuseUntrusted(params.name.trim(), toolbox);
				return describeTool(toolbox, params.name.trim(), ctx.cwd);
			}
			const { listing, rechecking } = await currentListing(toolbox, params.query, LIST_LIMIT);
			const note = untrustedListingNote(toolbox.config);
			const text = [formatListing(listing, params.query, new Date(), rechecking), ...(note ? [note] : [])].join(
				"\n",
			);
			return {
				content: [{ type: "text", text }],
				details: { total: listing.total, matched: listing.matched, names: listing.tools.map((t) => t.entry.name) },
			};
		},
	});
}

/**
 * The listing as the files are now: what changed on disk is taken in first (for a few seconds at most), and the tools
 * shown are stamp-checked. `rechecking`: tools changed on disk whose re-check had not finished (0 when all are in).
 */
export async function currentListing(
	toolbox: Toolboxes,
	query: string | undefined,
	limit: number,
): Promise<{ listing: ReturnType<Toolboxes["list"]>; rechecking: number }> {
	const settled = await toolbox.settle();
	let listing = toolbox.list(query, limit);
	if (await toolbox.refresh(listing.tools.map((t) => t.entry.name))) listing = toolbox.list(query, limit);
	return { listing, rechecking: settled.done ? 0 : Math.max(1, settled.rechecking) };
}

/** One tool in full, redacted like everything the model reads; an unknown name is an error naming close matches. */
async function describeTool(toolbox: Toolboxes, name: string, cwd: string) {
	await toolbox.fresh(name);
	const view = toolbox.view(name);
	if (!view) throw toPiError(unknownToolError(name, toolbox), toolbox.config);
	const { source, metaText } = await toolbox.readTool(name);
	const meta = metaText === undefined ? undefined : parseMeta(metaText, name);
	const file = toolbox.toolPath(name);
	const fromProject = relative(cwd, file);
	const path =
		view.scope === "user" || toolbox.config.withheldToolboxDir
			? `${basename(file)} in the user toolbox (${toolbox.config.userToolboxDir ?? toolbox.config.toolboxDir})`
			: fromProject.startsWith("..") || isAbsolute(fromProject)
				? `${basename(file)} in the toolbox folder (PI_FORGE_DIR)`
				: fromProject;
	const detail = {
		...view,
		// In an untrusted project the one toolbox is the user toolbox.
		...(toolbox.config.withheldToolboxDir ? { scope: "user" as const } : {}),
		source,
		tests: meta?.ok ? (meta.value.tests ?? []) : [],
		edited: source !== undefined && view.entry.status === "ok" && hashSource(source) !== view.entry.hash,
		path,
		calledBy: toolbox.callersOf(name),
	};
	const text = redactSecrets(formatToolDetail(detail, new Date()), toolbox.config.secretValues);
	return {
		content: [{ type: "text" as const, text }],
		details: { name, version: view.entry.version, state: view.state, scope: view.scope },
	};
}

const CLOSE_MATCHES = 5;

/** Typos of the name first, then the tools a search for its words finds. */
export function unknownToolError(name: string, toolbox: Pick<Toolbox, "entries" | "list">): ForgeError {
	const entries = toolbox.entries();
	const byName = closeNames(
		name,
		entries.map((e) => e.name),
		CLOSE_MATCHES,
	);
	const bySearch = toolbox.list(name.replace(/[-_]/g, " "), CLOSE_MATCHES).tools.map((t) => t.entry.name);
	const names = [...new Set([...byName, ...bySearch])].slice(0, CLOSE_MATCHES);
	const described = names.map((n) => {
		const description = entries.find((e) => e.name === n)?.description ?? "";
		return `${n} (${description.length > 80 ? `${description.slice(0, 80)}…` : description})`;
	});
	return new ForgeError("not-found", `There is no forged tool named '${name}'.`, {
		notes: described.length ? [`Close matches: ${described.join("; ")}`] : [],
		hint: names.length
			? `Call list_forge with {"name":"${names[0]}"} for that tool in full, or with a query to search by what the tool does.`
			: entries.length
				? "Call list_forge without arguments to see every tool, or with a query to search by what the tool does."
				: "The toolbox is empty: create the tool with forge_tool.",
	});
}

export function formatListing(
	listing: { total: number; matched: number; tools: Listed[] },
	query: string | undefined,
	now: Date,
	rechecking = 0,
): string {
	const body = listingBody(listing, query, now);
	return rechecking > 0
		? `${body}\n(${rechecking} tool${rechecking === 1 ? "" : "s"} changed on disk still being re-checked: list again in a moment for their state.)`
		: body;
}

function listingBody(
	listing: { total: number; matched: number; tools: Listed[] },
	query: string | undefined,
	now: Date,
): string {
	if (listing.total === 0) return "The toolbox is empty. Create a tool with forge_tool.";
	const head = query?.trim()
		? `${listing.matched} of ${listing.total} forged tools match "${query.trim()}"${listing.matched > listing.tools.length ? ` (best ${listing.tools.length} shown)` : ""}:`
		: `${listing.total} forged tools${listing.total > listing.tools.length ? ` (first ${listing.tools.length} shown; pass a query to search)` : ""}:`;
	if (listing.tools.length === 0) return `${head}\n(no match — try other words, or forge_tool to create it)`;
	return [head, ...listing.tools.map((tool) => formatTool(tool, now))].join("\n");
}

function formatTool({ entry, health, state, scope, hides }: Listed, now: Date): string {
	const status =
		state === "broken"
			? `broken: ${entry.error?.phase ?? "?"}${entry.error?.location ? ` at ${entry.error.location.file}:${entry.error.location.line}` : ""}`
			: state === "quarantined"
				? `quarantined: ${health?.consecutiveFailures ?? "?"} failed calls in a row`
				: entry.verified
					? "ok, verified"
					: `ok, ${entry.tests ? "tests not passed on this version" : "draft"}`;
	const lastUse = health?.lastUsedAt ? `last used ${relativeTime(new Date(health.lastUsedAt), now)}` : "never used";
	const params = Object.keys((entry.parameters.properties ?? {}) as object);
	const description =
		entry.description.length > MAX_DESCRIPTION
			? `${entry.description.slice(0, MAX_DESCRIPTION)}…`
			: entry.description;
	const where = scope === "user" ? " (user)" : "";
	const hidden = hides ? `; hides the user toolbox's '${entry.name}' v${hides.version}` : "";
	return `- ${entry.name} v${entry.version}${where} [${status}] ${description}${params.length ? ` (params: ${params.join(", ")})` : ""} — ${lastUse}${hidden}`;
}
