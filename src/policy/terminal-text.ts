// Text from a forged tool made fit for a terminal and a shell: escape sequences, control, zero-width and
// direction-changing characters shown instead of acted on; lengths bounded; a word quoted for a POSIX shell.

/** C0 and C1 controls, DEL, zero-width and direction-changing characters, line and paragraph separators. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u001b": "\\e" };

/** `text` with every unsafe character shown as an escape (`\e`, `\n`, `\x07`, `\u202e`): visible, and inert in a terminal. */
export function sanitizeForDisplay(text: string): string {
	return text.replace(
		UNSAFE,
		(c) =>
			NAMED[c] ??
			(c.charCodeAt(0) < 0x100
				? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`
				: `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
	);
}

/** At most `max` characters, saying how many were left out. */
export function bounded(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters not shown)`;
}

export { shellQuote } from "../run/isolated/parent/capability.ts";
