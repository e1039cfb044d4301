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

/** Controls (but newline and tab) and direction-changing characters: what a tool's own texts may not hold. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The first control or direction-changing character of `text` (where, and as it is shown), if there is one. */
export function controlCharacter(text: string): { index: number; shown: string } | undefined {
	const found = CONTROL.exec(text);
	return found ? { index: found.index, shown: sanitizeForDisplay(found[0]) } : undefined;
}

/** Text for a terminal that keeps its lines and tabs: every other unsafe character shown as an escape. */
export function inertText(text: string): string {
	return text
		.split("\n")
		.map((line) => line.split("\t").map(sanitizeForDisplay).join("\t"))
		.join("\n");
}

/**
 * JSON text made inert for a terminal, meaning the same: JSON.stringify escapes C0 controls itself, and leaves the
 * rest (C1 controls, direction-changing and zero-width characters) raw in strings, where `\uXXXX` is their escape.
 */
export function inertJson(json: string): string {
	return json.replace(UNSAFE, (c) =>
		c === "\n" || c === "\t" ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
	);
}

/** A run of more than three whitespace characters: spaces that would push what follows out of sight. */
const LONG_WHITESPACE = /\s{4,}/g;

/**
 * `text` with each long run of whitespace shown as what it is ("⟨3000 spaces⟩", "⟨5 newlines⟩", "⟨9 whitespace
 * characters⟩"), so what follows it stays in view. Then make it inert with sanitizeForDisplay.
 */
export function markWhitespace(text: string): string {
	return text.replace(LONG_WHITESPACE, (run) => {
		const kind = /^ +$/.test(run)
			? "spaces"
			: /^\t+$/.test(run)
				? "tabs"
				: /^\n+$/.test(run)
					? "newlines"
					: "whitespace characters";
		return `⟨${run.length} ${kind}⟩`;
	});
}

/** At most `max` characters, saying how many were left out. */
export function bounded(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters not shown)`;
}

export { shellQuote } from "../run/isolated/parent/capability.ts";
