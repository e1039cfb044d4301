// What a person is shown when a forged tool asks for a capability: the text made safe for a terminal (no escape
// sequences, no control or direction-changing characters), bounded in length, and the whole of what would run.
import type { Capability, EnvChange } from "./capability.ts";

/** C0 and C1 controls, DEL, zero-width and direction-changing characters, line and paragraph separators. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u001b": "\\e" };

/** `text` with every unsafe character shown as an escape (`\e`, `\n`, `\x07`, `\u202e`): visible, and inert in a terminal. */
export function sanitizeForDisplay(text: string): string {
	return text.replace(UNSAFE, (c) => NAMED[c] ?? (c.charCodeAt(0) < 0x100 ? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/** At most `max` characters, saying how many were left out. */
export function bounded(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters not shown)`;
}

/** `text` as one word for a POSIX shell: as it is when that is safe, else in single quotes. */
export function shellQuote(text: string): string {
	return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

export const MAX_SHOWN = { command: 600, path: 300, value: 160, variables: 12, title: 4000 } as const;

export interface DialogContext {
	tool: string;
	/** The tool's version number, when known. */
	version?: number;
	/** Hides secret values (of pi's sensitive variables, credential formats) in what is shown. */
	redact?: (text: string) => string;
}

/** The title of the dialog that asks a person about `capability`: what runs, where, with what, and what "Always" covers. */
export function permissionTitle(capability: Capability, context: DialogContext): string {
	const show = (text: string, max: number) => bounded(sanitizeForDisplay(context.redact ? context.redact(text) : text), max);
	const who = `Forged tool '${context.tool}'${context.version === undefined ? "" : ` (v${context.version})`}`;
	const thisVersion = `this version of '${context.tool}'`;
	if (capability.kind !== "exec") {
		const what = capability.kind === "fs-read" ? `read ${show(capability.path, MAX_SHOWN.path)}` : capability.kind === "fs-write" ? `write ${show(capability.path, MAX_SHOWN.path)}` : capability.kind === "env" ? `see the environment variable ${show(capability.name, MAX_SHOWN.path)}` : "run inside pi's process with the full extension API (no isolation)";
		return `${who} wants to ${what}.\n"Always" allows exactly this for ${thisVersion}.`;
	}
	const lines = [`${who} wants to run ${capability.shell ? "a shell command" : "a command"}:`];
	lines.push(`  ${capability.shell ? "shell line" : "command"}: ${show(capability.commandLine, MAX_SHOWN.command)}`);
	lines.push(`  program: ${show(capability.program, MAX_SHOWN.path)}${capability.shell ? " -c <the line above>" : ""}`);
	if (capability.cwd) lines.push(`  in: ${show(capability.cwd, MAX_SHOWN.path)}`);
	lines.push(...environmentLines(capability.env ?? [], (text) => show(text, MAX_SHOWN.value)));
	const scope = capability.shell ? "exactly this shell line" : `${show(capability.program, MAX_SHOWN.path)} with any arguments`;
	// The body is what may be cut; what "Always" means is always shown.
	return `${bounded(lines.join("\n"), MAX_SHOWN.title)}\n"Always" allows ${scope}${capability.env?.length ? ", with this environment," : ""} for ${thisVersion}.`;
}

function environmentLines(env: readonly EnvChange[], show: (text: string) => string): string[] {
	if (env.length === 0) return ["  environment: pi's own (no changes)"];
	const sorted = [...env].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	const lines = ["  environment changes:"];
	for (const change of sorted.slice(0, MAX_SHOWN.variables)) {
		lines.push(`    ${show(change.name)}=${show(change.value)}${change.previous === undefined ? " (added)" : ` (was ${show(change.previous)})`}`);
	}
	if (sorted.length > MAX_SHOWN.variables) lines.push(`    … and ${sorted.length - MAX_SHOWN.variables} more: ${show(sorted.slice(MAX_SHOWN.variables).map((c) => c.name).join(", "))}`);
	return lines;
}
