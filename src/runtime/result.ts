// Normalises what a forged tool's `execute` returned (string, JSON value, or a pi tool result) into pi's content blocks.

export type ContentBlock = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

export interface ToolOutput {
	content: ContentBlock[];
	details?: unknown;
}

export const NO_VALUE_TEXT = "(the tool returned no value)";

export function normaliseResult(value: unknown): ToolOutput {
	if (value === undefined || value === null) return { content: [{ type: "text", text: NO_VALUE_TEXT }] };
	if (typeof value === "string") return { content: [{ type: "text", text: value }] };
	if (isToolResult(value)) return { content: value.content, ...(value.details !== undefined ? { details: value.details } : {}) };
	return { content: [{ type: "text", text: stringify(value) }] };
}

function isToolResult(value: unknown): value is { content: ContentBlock[]; details?: unknown } {
	if (typeof value !== "object" || value === null || !Array.isArray((value as { content?: unknown }).content)) return false;
	return (value as { content: unknown[] }).content.every(
		(block) =>
			typeof block === "object" &&
			block !== null &&
			(((block as ContentBlock).type === "text" && typeof (block as { text?: unknown }).text === "string") ||
				((block as ContentBlock).type === "image" && typeof (block as { data?: unknown }).data === "string")),
	);
}

/** JSON for plain values; survives BigInt, cycles, functions and symbols instead of throwing. */
export function stringify(value: unknown): string {
	if (typeof value !== "object" || value === null) {
		return typeof value === "bigint" || typeof value === "symbol" || typeof value === "function" ? String(value) : JSON.stringify(value);
	}
	const seen = new WeakSet<object>();
	return JSON.stringify(
		value,
		(_key, v: unknown) => {
			if (typeof v === "bigint") return v.toString();
			if (typeof v === "function" || typeof v === "symbol") return String(v);
			if (typeof v === "object" && v !== null) {
				if (seen.has(v)) return "[Circular]";
				seen.add(v);
				if (v instanceof Map) return Object.fromEntries(v);
				if (v instanceof Set) return [...v];
			}
			return v;
		},
		2,
	);
}

/** All the text blocks of an output, joined. */
export function outputText(output: ToolOutput): string {
	return output.content
		.filter((block): block is { type: "text"; text: string } => block.type === "text")
		.map((block) => block.text)
		.join("\n");
}
