// What a person is shown when a forged tool asks for a capability: the whole of what would run, made safe for a
// terminal and bounded in length (see terminal-text.ts).
import { type Capability, describeCapability, type EnvChange } from "./capability.ts";
import { bounded, markWhitespace, sanitizeForDisplay } from "./terminal-text.ts";

/** `command`: the longest command line a dialog shows; a longer one is not put to a person at all (commandTooLong). */
export const MAX_SHOWN = { command: 2000, path: 300, value: 160, variables: 12, title: 6000 } as const;

export interface DialogContext {
	tool: string;
	/** The tool's version number, when known. */
	version?: number;
	/** Hides secret values (of pi's sensitive variables, credential formats) in what is shown. */
	redact?: (text: string) => string;
}

/** The title of the dialog that asks a person about `capability`: what runs, where, with what, and what "Always" covers. */
export function permissionTitle(capability: Capability, context: DialogContext): string {
	const show = (text: string, max: number) =>
		bounded(sanitizeForDisplay(context.redact ? context.redact(text) : text), max);
	const who = `Forged tool '${context.tool}'${context.version === undefined ? "" : ` (v${context.version})`}`;
	const thisVersion = `this version of '${context.tool}'`;
	if (capability.kind !== "exec") {
		const what = show(describeCapability(capability), MAX_SHOWN.path + 60);
		return `${who} wants to ${what}${capability.kind === "inline" ? " (no isolation)" : ""}.\n"Always" allows exactly this for ${thisVersion}.`;
	}
	const lines = [`${who} wants to run ${capability.shell ? "a shell command" : "a command"}:`];
	// Whole: what runs is never cut from view (a longer line is not asked about; see commandTooLong).
	lines.push(
		`  ${capability.shell ? "shell line" : "command"}: ${shownCommand(capability.commandLine, context.redact)}`,
	);
	lines.push(
		`  program: ${show(capability.program, MAX_SHOWN.path)}${capability.shell ? " -c <the line above>" : ""}`,
	);
	if (capability.cwd) lines.push(`  in: ${show(capability.cwd, MAX_SHOWN.path)}`);
	lines.push(...environmentLines(capability.env ?? [], (text) => show(text, MAX_SHOWN.value)));
	// A program (or the files a line names) that a tool can rewrite is allowed as it is now: changed, it asks again.
	const asNow = capability.content
		? capability.shell
			? " and the project files it names as they are now"
			: " as it is now"
		: "";
	const scope = capability.shell
		? `exactly this shell line${asNow}`
		: `${show(capability.program, MAX_SHOWN.path)}${asNow} with any arguments`;
	// The body is what may be cut; what "Always" means (or why it is not offered) is always shown.
	if (capability.unbound)
		return `${bounded(lines.join("\n"), MAX_SHOWN.title)}\nThis line is not bound to any file's content: ${show(capability.unbound, MAX_SHOWN.path)}. It can be allowed once only; each call asks again.`;
	return `${bounded(lines.join("\n"), MAX_SHOWN.title)}\n"Always" allows ${scope}${capability.env?.length ? ", with this environment," : ""} for ${thisVersion}.`;
}

/** The command line as a dialog shows it: secrets hidden, long whitespace runs marked, made inert. */
function shownCommand(commandLine: string, redact?: (text: string) => string): string {
	return sanitizeForDisplay(markWhitespace(redact ? redact(commandLine) : commandLine));
}

/**
 * The length of a command line too long to show a person whole (it is refused unasked, with the command that grants
 * it), or undefined when it fits a dialog.
 */
export function commandTooLong(capability: Capability, redact?: (text: string) => string): number | undefined {
	if (capability.kind !== "exec") return undefined;
	const shown = shownCommand(capability.commandLine, redact);
	return shown.length > MAX_SHOWN.command ? shown.length : undefined;
}

function environmentLines(env: readonly EnvChange[], show: (text: string) => string): string[] {
	if (env.length === 0) return ["  environment: pi's own (no changes)"];
	const sorted = [...env].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	const lines = ["  environment changes:"];
	for (const change of sorted.slice(0, MAX_SHOWN.variables)) {
		lines.push(
			`    ${show(change.name)}=${show(change.value)}${change.previous === undefined ? " (added)" : ` (was ${show(change.previous)})`}`,
		);
	}
	if (sorted.length > MAX_SHOWN.variables)
		lines.push(
			`    … and ${sorted.length - MAX_SHOWN.variables} more: ${show(
				sorted
					.slice(MAX_SHOWN.variables)
					.map((c) => c.name)
					.join(", "),
			)}`,
		);
	return lines;
}
