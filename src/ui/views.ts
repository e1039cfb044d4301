// Text views of the toolbox for people: the `/forge` table, one tool in detail, a tool's history.
// Pure; `/forge` and the command line print the same text.
import type { HistoryEntry } from "../store/history.ts";
import type { ToolView } from "../toolbox/toolbox.ts";
import { relativeTime } from "./relative-time.ts";

/** A tool as the views show it; `scope` when there is a user toolbox beside the project's (`hides`: its namesake). */
export type ListedView = ToolView & { scope?: "project" | "user"; hides?: { version: number } };

export function toolboxTable(views: ListedView[], now: Date, width = 120): string {
	if (views.length === 0) return "The toolbox is empty. Ask the agent to forge a tool (forge_tool).";
	// A column only when the user toolbox takes part: a project that never uses it sees the table it always had.
	const scoped = views.some((view) => view.scope === "user" || view.hides);
	const rows = views.map(({ entry, health, state, scope, hides }) => [
		entry.name,
		`v${entry.version}`,
		state === "ok" ? (entry.verified ? "verified" : entry.tests ? "unverified" : "draft") : state,
		...(scoped ? [`${scope ?? "project"}${hides ? "*" : ""}`] : []),
		String(health?.calls ?? 0),
		String(health?.failures ?? 0),
		health?.lastUsedAt ? relativeTime(new Date(health.lastUsedAt), now) : "never",
		entry.description,
	]);
	const header = ["TOOL", "VER", "STATE", ...(scoped ? ["SCOPE"] : []), "CALLS", "FAILS", "LAST USE", "DESCRIPTION"];
	const widths = header.map((title, i) =>
		i === header.length - 1 ? 0 : Math.max(title.length, ...rows.map((row) => row[i].length)),
	);
	const fixed = widths.reduce((sum, w) => sum + w + 2, 0);
	const describe = Math.max(20, width - fixed);
	const line = (cells: string[]) =>
		cells
			.map((cell, i) => (i === cells.length - 1 ? clip(cell, describe) : cell.padEnd(widths[i])))
			.join("  ")
			.trimEnd();
	const note = views.some((view) => view.hides)
		? ["* hides the user toolbox's tool of the same name in this project (the project's tool wins)."]
		: [];
	return [line(header), ...rows.map(line), ...note].join("\n");
}

export function toolDetails(view: ListedView, source: string | undefined, history: HistoryEntry[], now: Date): string {
	const { entry, health, state } = view;
	const properties = (entry.parameters.properties ?? {}) as Record<string, { type?: unknown; description?: unknown }>;
	const required = new Set(Array.isArray(entry.parameters.required) ? (entry.parameters.required as string[]) : []);
	const lines = [
		`${entry.name} v${entry.version} — ${state}${state === "ok" ? (entry.verified ? `, verified (${entry.tests} tests)` : entry.tests ? ", tests not passed on this version" : ", draft (no tests)") : ""}`,
		entry.description,
		...(view.scope ? [scopeLine(view.scope, entry.name, view.hides)] : []),
		"",
		"Parameters:",
		...(Object.keys(properties).length
			? Object.entries(properties).map(
					([key, schema]) =>
						`  ${key}${required.has(key) ? "" : "?"}: ${String(schema?.type ?? "any")}${schema?.description ? ` — ${String(schema.description)}` : ""}`,
				)
			: ["  (none)"]),
		"",
		`Health: ${health?.calls ?? 0} calls, ${health?.failures ?? 0} failures${health?.consecutiveFailures ? ` (${health.consecutiveFailures} in a row)` : ""}${health?.lastUsedAt ? `, last used ${relativeTime(new Date(health.lastUsedAt), now)}` : ""}${health?.lastDurationMs !== undefined ? `, last took ${health.lastDurationMs} ms` : ""}`,
	];
	if (entry.error)
		lines.push(
			`Error: ${entry.error.phase}${entry.error.location ? ` at ${entry.error.location.file}:${entry.error.location.line}:${entry.error.location.column}` : ""} — ${entry.error.message}`,
		);
	else if (health?.lastError && health.consecutiveFailures)
		lines.push(`Last error: ${health.lastError.phase} — ${health.lastError.message.split("\n")[0]}`);
	if (history.length) lines.push(`History: ${history.map((h) => `v${h.version} ${h.event}`).join(", ")}`);
	if (source !== undefined) lines.push("", `forge-${entry.name}.ts:`, source.trimEnd());
	return lines.join("\n");
}

export function historyTable(name: string, entries: HistoryEntry[], now: Date): string {
	if (entries.length === 0) return `No history for '${name}'.`;
	return [
		`History of '${name}' (newest last):`,
		...entries.map(
			(e) =>
				`  v${e.version}  ${e.event.padEnd(11)} ${relativeTime(new Date(e.at), now).padEnd(9)} ${e.at}${e.from ? `  (from v${e.from})` : ""}`,
		),
	].join("\n");
}

function scopeLine(scope: "project" | "user", name: string, hides?: { version: number }): string {
	if (scope === "user") return "Scope: user (the user toolbox: every project sees it)";
	return `Scope: project${hides ? ` (the user toolbox also has a '${name}', v${hides.version}, which this one hides here)` : ""}`;
}

function clip(text: string, width: number): string {
	const single = text.replace(/\s+/g, " ");
	return single.length > width ? `${single.slice(0, Math.max(0, width - 1))}…` : single;
}
