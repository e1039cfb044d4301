// Numbered source listings: a code frame around one location, and a whole (bounded) file.

export interface CodeFrameOptions {
	/** Lines shown before and after the location. */
	context?: number;
}

export function codeFrame(source: string, line: number, column: number, options: CodeFrameOptions = {}): string {
	const context = options.context ?? 2;
	const lines = source.split("\n");
	const target = Math.min(Math.max(line, 1), lines.length);
	const first = Math.max(1, target - context);
	const last = Math.min(lines.length, target + context);
	const width = String(last).length;
	const out: string[] = [];
	for (let n = first; n <= last; n++) {
		const marker = n === target ? ">" : " ";
		out.push(`${marker} ${String(n).padStart(width)} | ${lines[n - 1]}`);
		if (n === target) {
			// Keep the line's own tabs so the caret lines up under tab-indented code.
			const caretPad = (lines[n - 1] ?? "").slice(0, Math.max(0, column - 1)).replace(/[^\t]/g, " ");
			out.push(`  ${" ".repeat(width)} | ${caretPad}^`);
		}
	}
	return out.join("\n");
}

export interface ListingOptions {
	/** At most this many lines; the rest is elided around `focusLine`. */
	maxLines?: number;
	focusLine?: number;
}

/** The source with line numbers, elided in the middle when too long (keeping the focus line in view). */
export function numberedListing(source: string, options: ListingOptions = {}): string {
	const maxLines = options.maxLines ?? 200;
	const lines = source.replace(/\n$/, "").split("\n");
	const width = String(lines.length).length;
	const render = (n: number) => `${String(n).padStart(width)} | ${lines[n - 1]}`;
	if (lines.length <= maxLines) return lines.map((_, i) => render(i + 1)).join("\n");

	const focus = options.focusLine ?? 1;
	const half = Math.floor(maxLines / 2);
	const start = Math.max(1, Math.min(focus - half, lines.length - maxLines + 1));
	const end = start + maxLines - 1;
	const out: string[] = [];
	if (start > 1) out.push(`${" ".repeat(width)} | … ${start - 1} line(s) above not shown`);
	for (let n = start; n <= end; n++) out.push(render(n));
	if (end < lines.length) out.push(`${" ".repeat(width)} | … ${lines.length - end} line(s) below not shown`);
	return out.join("\n");
}
