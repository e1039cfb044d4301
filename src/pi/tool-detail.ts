// `list_forge` with a name: one tool in full for the model — state, description, schema, tests and its current source
// (with the logic to pass to forge_tool again), bounded in size. Pure: list-forge.ts reads the files and passes them in.

import { describeTest, type ToolTest } from "../contract/tool-tests.ts";
import { type ExtractedLogic, extractLogic } from "../forge/render.ts";
import type { ToolView } from "../toolbox/toolbox.ts";
import { relativeTime } from "../ui/relative-time.ts";

export interface ToolDetail extends ToolView {
	/** forge-<name>.ts as it is on disk now (undefined: the file is missing). */
	source?: string;
	tests: readonly ToolTest[];
	/** The file differs from the version the forge last checked (a hand edit not taken in yet). */
	edited: boolean;
	/** Where the file is, as the model may name it (relative to the project when inside it). */
	path: string;
	/** Which toolbox it is from, when there is a user toolbox beside the project's; `hides`: the user's namesake. */
	scope?: "project" | "user";
	hides?: { version: number };
	/** The tools whose source calls this one through `pi.useTool`. */
	calledBy?: readonly string[];
}

/** The whole answer stays within this, like an error text. */
export const MAX_DETAIL_CHARS = 12_000;
const MAX_SCHEMA_CHARS = 3_000;
const MAX_DESCRIPTION_CHARS = 2_000;
const MAX_TESTS_SHOWN = 20;
const MAX_TESTS_CHARS = 2_500;
const MAX_MESSAGE_CHARS = 300;

/** What the tool calls and what calls it through `pi.useTool`, when either is known. */
function compositionText(detail: ToolDetail): string[] {
	const lines: string[] = [];
	if (detail.entry.calls?.length) lines.push(`Calls: ${detail.entry.calls.join(", ")} (through pi.useTool)`);
	if (detail.calledBy?.length) lines.push(`Called by: ${detail.calledBy.join(", ")}`);
	return lines;
}

export function formatToolDetail(detail: ToolDetail, now: Date, maxChars = MAX_DETAIL_CHARS): string {
	const { entry } = detail;
	const file = `forge-${entry.name}.ts`;
	const extracted = detail.source === undefined ? undefined : extractLogic(detail.source);
	const head = [
		`${entry.name} v${entry.version} — ${stateText(detail)}`,
		usageText(detail, now),
		`Description: ${cut(entry.description, MAX_DESCRIPTION_CHARS)}`,
		...(detail.scope ? [scopeText(detail)] : []),
		...compositionText(detail),
		"",
		"Parameters schema:",
		schemaText(entry.parameters),
		"",
		...testsText(detail.tests),
		"",
	];
	const tail = ["", nextStep(detail, extracted)];
	const logicBlock = extracted?.restoredImports
		? [
				"",
				"The logic as forge_tool takes it (the imports the forge moved to the top put back):",
				fence(extracted.logic),
			]
		: [];
	if (detail.source === undefined)
		return bounded([...head, `Source: ${file} is missing.`, ...tail].join("\n"), maxChars);

	const lines = detail.source.replace(/\s+$/, "").split("\n");
	const where = extracted
		? `; the logic is lines ${extracted.startLine}-${extracted.endLine}, the body of execute`
		: "";
	const intro = `Source of ${file} (${detail.path}, ${lines.length} lines${where}):`;
	const fixed = [...head, intro, ...logicBlock, ...tail].join("\n").length + 16;
	// The source gets what the rest leaves; when it does not fit, its head is shown and the file named for the rest.
	let shown = lines;
	while (shown.length > 1 && shown.join("\n").length + fixed > maxChars)
		shown = shown.slice(0, Math.floor(shown.length * 0.8));
	const cutNote =
		shown.length < lines.length
			? [
					`… (lines ${shown.length + 1}-${lines.length} left out to keep this short: read ${detail.path} for the whole file)`,
				]
			: [];
	return bounded([...head, intro, fence(shown.join("\n")), ...cutNote, ...logicBlock, ...tail].join("\n"), maxChars);
}

function scopeText({ scope, hides, entry }: ToolDetail): string {
	if (scope === "user")
		return 'Scope: user (the user toolbox, seen from every project; to change it there, pass scope "user" to forge_tool)';
	return `Scope: project${hides ? ` (the user toolbox also has a '${entry.name}', v${hides.version}; this project's tool wins, so use_forge_tool runs this one here)` : ""}`;
}

function stateText({ entry, health, state, tests, edited }: ToolDetail): string {
	const base =
		state === "broken"
			? `broken (${entry.error?.phase ?? "?"}${entry.error?.location ? ` at ${entry.error.location.file}:${entry.error.location.line}:${entry.error.location.column}` : ""}): ${cut(entry.error?.message ?? "it cannot run", MAX_MESSAGE_CHARS)}`
			: state === "quarantined"
				? `quarantined: ${health?.consecutiveFailures ?? "?"} failed calls in a row${health?.lastError ? `; last error (${health.lastError.phase}): ${cut(health.lastError.message.split("\n")[0], MAX_MESSAGE_CHARS)}` : ""}`
				: entry.verified
					? `ok, verified: ${tests.length === 1 ? "its test passes" : `its ${tests.length} tests pass`} on this version`
					: tests.length
						? `ok, unverified: ${tests.length === 1 ? "its test has" : `its ${tests.length} tests have`} not passed on this version`
						: "ok, a draft (no tests)";
	return edited ? `${base}; the file was edited by hand since it was checked (it is re-checked in a moment)` : base;
}

function usageText({ health }: ToolDetail, now: Date): string {
	if (!health?.calls) return "Never used.";
	const last = health.lastUsedAt ? `, last used ${relativeTime(new Date(health.lastUsedAt), now)}` : "";
	return `${plural(health.calls, "call")}, ${plural(health.failures, "failure")}${last}.`;
}

function schemaText(schema: Record<string, unknown>): string {
	const pretty = JSON.stringify(schema, null, 2);
	if (pretty.length <= MAX_SCHEMA_CHARS) return pretty;
	const compact = JSON.stringify(schema);
	return compact.length <= MAX_SCHEMA_CHARS
		? compact
		: `${compact.slice(0, MAX_SCHEMA_CHARS)}… (${compact.length - MAX_SCHEMA_CHARS} more characters)`;
}

function testsText(tests: readonly ToolTest[]): string[] {
	if (tests.length === 0) return ["Tests: none. Pass tests to forge_tool to make it verified."];
	const shown: string[] = [];
	for (const [i, test] of tests.entries()) {
		const line = `  ${i + 1}. ${describeTest(test)}`;
		if (shown.length === MAX_TESTS_SHOWN || shown.join("\n").length + line.length > MAX_TESTS_CHARS) break;
		shown.push(line);
	}
	const more = tests.length > shown.length ? [`  … and ${tests.length - shown.length} more`] : [];
	return [
		`Tests (${tests.length}; re-run on every re-forge that gives no tests, replaced by one that does):`,
		...shown,
		...more,
	];
}

function nextStep({ entry, state, tests, scope }: ToolDetail, extracted: ExtractedLogic | undefined): string {
	const keep =
		tests.length === 1
			? "; omit tests to keep its test"
			: tests.length
				? `; omit tests to keep these ${tests.length}`
				: "";
	const logic = !extracted
		? "the body of execute as logic"
		: extracted.restoredImports
			? "the logic above"
			: `lines ${extracted.startLine}-${extracted.endLine} as logic`;
	// A user tool is changed where it lives: without scope "user" a forge makes a project copy that hides it.
	const where = scope === "user" ? ', scope "user"' : "";
	return state === "broken"
		? `To repair it: forge_tool with name "${entry.name}"${where}, its description and parametersSchema, and ${logic} corrected${keep}.`
		: `To change it: forge_tool with name "${entry.name}"${where}, the description, parametersSchema and ${logic}, changed as needed${keep}.`;
}

/** A fenced code block whose fence no line of the text can close. */
function fence(text: string): string {
	const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
	const marks = "`".repeat(longest + 1);
	return `${marks}ts\n${text}\n${marks}`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

function cut(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}

function bounded(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}\n… (cut at ${max} characters)` : text;
}
