// Renders a ForgeError: in full for the model (what, where, code frame, hint, source) and in one line for a person.
import { codeFrame, numberedListing } from "./code-frame.ts";
import type { ForgeError, ForgePhase } from "./forge-error.ts";

const PHASE_TITLES: Record<ForgePhase, string> = {
	name: "invalid name",
	description: "invalid description",
	schema: "invalid parameters schema",
	syntax: "syntax error",
	import: "disallowed import",
	load: "preflight load failed",
	shape: "wrong module shape",
	tests: "tests failed",
	arguments: "invalid arguments",
	"not-found": "unknown tool",
	broken: "tool is broken",
	runtime: "runtime error",
	timeout: "timeout",
	memory: "memory limit exceeded",
	secrets: "credentials in the logic",
	aborted: "aborted",
	permission: "permission denied",
	store: "toolbox storage error",
	runner: "its runner failed (not the tool)",
};

export interface ModelFormatOptions {
	/** Cap on the numbered source listing. */
	maxSourceLines?: number;
	/** Cap on any single JSON block (arguments, schema). */
	maxJsonChars?: number;
	/**
	 * Scrubbing for what reaches the model: `prose` for messages, stacks and arguments, `code` for frames and listings.
	 */
	redact?: { prose(text: string): string; code(text: string): string };
}

/** Upper bound on one error text: complete enough to repair from, never a flood in the model's context. */
export const MAX_ERROR_CHARS = 12_000;

/** The full repair signal for the model, bounded: a long source listing is narrowed around the location first. */
export function formatForModel(error: ForgeError, options: ModelFormatOptions = {}): string {
	let text = renderForModel(error, options);
	for (const maxSourceLines of [80, 30]) {
		if (text.length <= MAX_ERROR_CHARS) return text;
		text = renderForModel(error, { ...options, maxSourceLines, maxJsonChars: 800 });
	}
	return text.length <= MAX_ERROR_CHARS
		? text
		: `${text.slice(0, MAX_ERROR_CHARS)}\n… (error text cut at ${MAX_ERROR_CHARS} characters)`;
}

function renderForModel(error: ForgeError, options: ModelFormatOptions): string {
	const { tool, location, source, hint, stack, args, schema, notes, console: printed, origin, grants } = error.details;
	const maxJson = options.maxJsonChars ?? 2000;
	const prose = options.redact?.prose ?? ((text: string) => text);
	const code = options.redact?.code ?? ((text: string) => text);
	const out: string[] = [];

	out.push(`Agent Forge: ${titleOf(error)}${tool ? ` in tool '${tool}'` : ""} (phase: ${error.phase})`);
	out.push(prose(error.message));
	if (notes?.length) out.push(...notes.map((note) => `  - ${prose(note)}`));

	if (location) {
		const logicLine = source ? logicLineOf(source, location.line) : undefined;
		const where = `${location.file}:${location.line}:${location.column}`;
		out.push("", `at ${where}${logicLine ? ` (line ${logicLine} of the logic)` : ""}`);
		if (source) out.push(code(codeFrame(source, location.line, location.column)));
	}
	if (stack?.length) out.push("", "Stack (lines of the forged file):", ...stack.map((frame) => `  ${prose(frame)}`));
	if (args !== undefined) out.push("", `Arguments: ${prose(boundedJson(args, maxJson))}`);
	if (schema !== undefined) out.push("", `Parameters schema: ${boundedJson(schema, maxJson)}`);
	if (printed !== undefined) out.push("", "Console output of the call:", prose(boundedTail(printed, maxJson)));
	if (hint) out.push("", `Hint: ${prose(hint)}`);
	if (grants?.length)
		out.push("", "To grant it (holds from the next call, no restart):", ...grants.map((line) => `  ${code(line)}`));
	// A bad argument or a refused permission is not repaired in the code: the listing would only invite an edit.
	const logicAtFault = origin !== "input" && origin !== "permission" && error.phase !== "permission";
	if (source && logicAtFault) {
		const file = location?.file ?? (tool ? `forge-${tool}.ts` : "the forged file");
		out.push(
			"",
			`Source of ${file}:`,
			code(numberedListing(source, { maxLines: options.maxSourceLines, focusLine: location?.line })),
		);
	}
	return out.join("\n");
}

/** One line for a person: the widget, `/forge`, logs. */
export function formatForPerson(error: ForgeError): string {
	const { tool, location } = error.details;
	const where = location ? ` at ${location.file}:${location.line}:${location.column}` : "";
	const firstLine = error.message.split("\n")[0];
	return `${tool ? `${tool}: ` : ""}${titleOf(error)}${where}: ${firstLine}`;
}

const titleOf = (error: ForgeError) => error.details.title ?? PHASE_TITLES[error.phase];

/** `// ↑ import moved to the top of the file` (src/forge/render.ts): where a hoisted import stood in the logic. */
const HOISTED = "// ↑ import moved to the top of the file";

/**
 * Line within the logic (the body of `execute`) for a line of the rendered file, if it falls inside it — or, for an
 * import the forge moved to the top, the logic line it came from.
 */
export function logicLineOf(source: string, fileLine: number): number | undefined {
	const lines = source.split("\n");
	const executeLine = lines.findIndex((line) => /^export\s+async\s+function\s+execute\s*\(/.test(line)) + 1;
	const closingLine = lines.findLastIndex((line) => /^\}\s*$/.test(line)) + 1;
	if (executeLine <= 0) return undefined;
	if (fileLine < executeLine) {
		// The k-th hoisted import of the header stood where the k-th marker stands in the body.
		const markers = lines.flatMap((line, i) =>
			i >= executeLine && line.trim() === HOISTED ? [i + 1 - executeLine] : [],
		);
		const metadataLine = lines.findIndex((line) => line.startsWith("export const metadata")) + 1;
		// The template's own two imports come first; the hoisted ones follow them.
		const hoisted = lines
			.flatMap((line, i) => (i + 1 < metadataLine && /^import\s/.test(line) ? [i + 1] : []))
			.slice(2);
		const index = hoisted.indexOf(fileLine);
		return index >= 0 && hoisted.length === markers.length ? markers[index] : undefined;
	}
	if (fileLine === executeLine || (closingLine > executeLine && fileLine >= closingLine)) return undefined;
	return fileLine - executeLine;
}

/** The end of a long text: the last lines printed before a failure tell the most. */
function boundedTail(text: string, maxChars: number): string {
	return text.length > maxChars
		? `… (${text.length - maxChars} earlier characters left out)\n${text.slice(-maxChars)}`
		: text;
}

function boundedJson(value: unknown, maxChars: number): string {
	let text: string;
	try {
		text = JSON.stringify(value, null, 2) ?? String(value);
	} catch {
		text = String(value);
	}
	return text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters)` : text;
}
