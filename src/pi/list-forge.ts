// `list_forge`: the toolbox for the model — name, description, version, status, last use; with a query, best matches first.
import { type Static, Type } from "typebox";
import type { ToolView } from "../toolbox/toolbox.ts";
import type { ForgeSession } from "./forge-session.ts";
import { defineTool } from "./pi-exports.ts";
import { relativeTime } from "../ui/relative-time.ts";

export const listForgeSchema = Type.Object({
	query: Type.Optional(Type.String({ description: "Words describing the tool you need; the best matches come first." })),
});

export type ListForgeInput = Static<typeof listForgeSchema>;

export const LIST_LIMIT = 20;
const MAX_DESCRIPTION = 240;

export function createListForge(session: ForgeSession) {
	return defineTool({
		name: "list_forge",
		label: "List forged tools",
		description: `List forged tools (name, description, version, status ok/broken, last use). With a query, the best matches first (at most ${LIST_LIMIT}).`,
		promptSnippet: "List or search your forged tools",
		parameters: listForgeSchema,
		async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
			const toolbox = await session.toolboxFor(ctx);
			const listing = toolbox.list(params.query, LIST_LIMIT);
			const text = formatListing(listing, params.query, new Date());
			return { content: [{ type: "text", text }], details: { total: listing.total, matched: listing.matched, names: listing.tools.map((t) => t.entry.name) } };
		},
	});
}

export function formatListing(listing: { total: number; matched: number; tools: ToolView[] }, query: string | undefined, now: Date): string {
	if (listing.total === 0) return "The toolbox is empty. Create a tool with forge_tool.";
	const head = query?.trim()
		? `${listing.matched} of ${listing.total} forged tools match "${query.trim()}"${listing.matched > listing.tools.length ? ` (best ${listing.tools.length} shown)` : ""}:`
		: `${listing.total} forged tools${listing.total > listing.tools.length ? ` (first ${listing.tools.length} shown; pass a query to search)` : ""}:`;
	if (listing.tools.length === 0) return `${head}\n(no match — try other words, or forge_tool to create it)`;
	return [head, ...listing.tools.map((tool) => formatTool(tool, now))].join("\n");
}

function formatTool({ entry, health, state }: ToolView, now: Date): string {
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
	const description = entry.description.length > MAX_DESCRIPTION ? `${entry.description.slice(0, MAX_DESCRIPTION)}…` : entry.description;
	return `- ${entry.name} v${entry.version} [${status}] ${description}${params.length ? ` (params: ${params.join(", ")})` : ""} — ${lastUse}`;
}
