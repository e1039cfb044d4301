// How the forge's tools look in pi's TUI, in pi's theme: what was forged (version, preflight verdict, the change
// against the previous version as a diff), what was run (tool, arguments, outcome, time), and /forge's messages.
import type { AgentToolResult, MessageRenderer, Theme, ToolRenderResultOptions } from "@earendil-works/pi-coding-agent";
import type { Component } from "@earendil-works/pi-tui";
import { inertJson, inertText, sanitizeForDisplay } from "../policy/terminal-text.ts";
import type { NestedCall } from "./compose.ts";
import { Box, Text } from "./pi-exports.ts";

const COLLAPSED_LINES = 12;
const EXPANDED_LINES = 200;

export interface ForgeDetails {
	name: string;
	version: number;
	previousVersion?: number;
	checks: string[];
	diff?: string;
}

export interface UseDetails {
	tool: string;
	version: number;
	durationMs: number;
	truncated: boolean;
	/** What the tool called through pi.useTool, in the order the calls ended: the latest ones, when there were many. */
	nested?: NestedCall[];
	/** How many calls it made through pi.useTool, when that is more than `nested` lists. */
	nestedCount?: number;
}

/** The calls a tool made through pi.useTool, indented by depth under it; a line for those not listed. */
function nestedLines(details: UseDetails | undefined, theme: Theme): string[] {
	const nested = details?.nested ?? [];
	const earlier = (details?.nestedCount ?? nested.length) - nested.length;
	const more = earlier > 0 ? [theme.fg("dim", `↳ … ${earlier} earlier call${earlier === 1 ? "" : "s"}`)] : [];
	return [
		...more,
		...nested.map(
			(call) =>
				`${"  ".repeat(call.depth)}${theme.fg("dim", "↳")} ${call.ok ? theme.fg("success", "✓") : theme.fg("error", "✗")} ${sanitizeForDisplay(call.name)}${call.version ? ` v${call.version}` : ""} ${theme.fg("dim", `· ${Math.round(call.durationMs)} ms`)}`,
		),
	];
}

/** A result's text as the terminal shows it: what a tool returned or threw is shown, never acted on (escapes). */
const textOf = (result: AgentToolResult<unknown>) =>
	inertText(
		result.content
			.filter((block): block is { type: "text"; text: string } => block.type === "text")
			.map((block) => block.text)
			.join("\n"),
	);

/** A name the model sent, before anything checked it: shown, never acted on. */
const shown = (name: unknown) => (typeof name === "string" ? sanitizeForDisplay(name) : "…");

function reuse(last: Component | undefined): Text {
	return last instanceof Text ? last : new Text("", 0, 0);
}

function clip(lines: string[], expanded: boolean, theme: Theme): string[] {
	const max = expanded ? EXPANDED_LINES : COLLAPSED_LINES;
	return lines.length > max
		? [
				...lines.slice(0, max),
				theme.fg("dim", `… ${lines.length - max} more line(s)${expanded ? "" : " (expand to see more)"}`),
			]
		: lines;
}

/** The model's error text, shortened to what a person scans: the headline, the location, the hint. */
function errorLines(text: string, expanded: boolean, theme: Theme): string[] {
	const lines = text.split("\n");
	const shown = expanded
		? lines
		: lines.filter(
				(line, i) => i < 2 || line.startsWith("at ") || line.startsWith("Hint:") || line.startsWith("  - "),
			);
	return clip(shown, expanded, theme).map((line, i) => (i === 0 ? theme.fg("error", line) : theme.fg("muted", line)));
}

export function renderForgeCall(
	args: { name?: string; description?: string; logic?: string },
	theme: Theme,
	last: Component | undefined,
): Component {
	const text = reuse(last);
	const lines = typeof args.logic === "string" ? args.logic.split("\n").length : 0;
	const description =
		typeof args.description === "string" && args.description
			? ` ${theme.fg("muted", sanitizeForDisplay(args.description.length > 70 ? `${args.description.slice(0, 69)}…` : args.description))}`
			: "";
	text.setText(
		`${theme.fg("toolTitle", theme.bold("forge_tool "))}${theme.fg("accent", shown(args.name))}${description}${lines ? theme.fg("dim", ` (${lines} line${lines === 1 ? "" : "s"} of logic)`) : ""}`,
	);
	return text;
}

/** Shared by both result renderers: "working…" while partial, the shortened error on failure, else `success()`. */
function renderSettled(
	result: AgentToolResult<unknown>,
	options: ToolRenderResultOptions,
	theme: Theme,
	last: Component | undefined,
	isError: boolean,
	working: string,
	success: () => string[],
): Component {
	const text = reuse(last);
	if (options.isPartial) text.setText(theme.fg("warning", working));
	else if (isError) text.setText(errorLines(textOf(result), options.expanded, theme).join("\n"));
	else text.setText(success().join("\n"));
	return text;
}

export function renderForgeResult(
	result: AgentToolResult<unknown>,
	options: ToolRenderResultOptions,
	theme: Theme,
	last: Component | undefined,
	isError: boolean,
): Component {
	return renderSettled(result, options, theme, last, isError, "forging… (checks and preflight)", () => {
		const details = result.details as ForgeDetails | undefined;
		if (!details) return [textOf(result)];
		const head = `${theme.fg("success", "✓")} ${theme.bold(details.name)} v${details.version}${details.previousVersion ? theme.fg("muted", ` (was v${details.previousVersion})`) : theme.fg("muted", " (new)")} ${theme.fg("dim", `· ${details.checks.join(" · ")} ✓`)}`;
		return [head, ...(details.diff ? clip(diffLines(details.diff, theme), options.expanded, theme) : [])];
	});
}

function diffLines(diff: string, theme: Theme): string[] {
	return inertText(diff)
		.split("\n")
		.filter(
			(line) => !line.startsWith("===") && !line.startsWith("Index:") && line !== "\\ No newline at end of file",
		)
		.map((line) =>
			line.startsWith("+") && !line.startsWith("+++")
				? theme.fg("toolDiffAdded", line)
				: line.startsWith("-") && !line.startsWith("---")
					? theme.fg("toolDiffRemoved", line)
					: theme.fg("toolDiffContext", line),
		);
}

export function renderUseCall(
	args: { name?: string; args?: unknown },
	theme: Theme,
	last: Component | undefined,
): Component {
	const text = reuse(last);
	const json = args.args === undefined ? "{}" : inertJson(JSON.stringify(args.args) ?? "{}");
	text.setText(
		`${theme.fg("toolTitle", theme.bold("use_forge_tool "))}${theme.fg("accent", shown(args.name))} ${theme.fg("muted", json.length > 80 ? `${json.slice(0, 79)}…` : json)}`,
	);
	return text;
}

export function renderUseResult(
	result: AgentToolResult<unknown>,
	options: ToolRenderResultOptions,
	theme: Theme,
	last: Component | undefined,
	isError: boolean,
): Component {
	const running = result.details as UseDetails | undefined;
	const working = ["running…", ...nestedLines(options.isPartial ? running : undefined, theme)].join("\n");
	return renderSettled(result, options, theme, last, isError, working, () => {
		const details = result.details as UseDetails | undefined;
		const head = details
			? `${theme.fg("success", "✓")} ${theme.bold(details.tool)} v${details.version} ${theme.fg("dim", `· ${Math.round(details.durationMs)} ms${details.truncated ? " · output truncated" : ""}`)}`
			: theme.fg("success", "✓");
		return [
			head,
			...nestedLines(details, theme),
			...clip(textOf(result).split("\n"), options.expanded, theme).map((line) => theme.fg("toolOutput", line)),
		];
	});
}

/** `/forge` output: monospace text on the custom-message background. */
export const renderForgeMessage: MessageRenderer = (message, _options, theme) => {
	const content =
		typeof message.content === "string"
			? message.content
			: message.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
	const box = new Box(1, 0, (t) => theme.bg("customMessageBg", t));
	box.addChild(new Text(`${theme.fg("customMessageLabel", theme.bold("⚒ Agent Forge"))}\n${content}`, 0, 0));
	return box;
};
