// Normalises what a forged tool's `execute` returned (string, JSON value, or a pi tool result) into pi's content blocks.

export type ContentBlock = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/** What kind of value `execute` returned: a caller through `pi.useTool` gets it back as that kind (see pi/compose.ts). */
export type Returned = "text" | "json" | "none" | "result";

export interface ToolOutput {
	content: ContentBlock[];
	details?: unknown;
	returned?: Returned;
}

export const NO_VALUE_TEXT = "(the tool returned no value)";

export function normaliseResult(value: unknown): ToolOutput {
	if (value === undefined || value === null)
		return { content: [{ type: "text", text: NO_VALUE_TEXT }], returned: "none" };
	if (typeof value === "string") return { content: [{ type: "text", text: value }], returned: "text" };
	if (isToolResult(value)) {
		const content = value.content.length > 0 ? value.content : [{ type: "text" as const, text: NO_VALUE_TEXT }];
		return { content, ...(value.details !== undefined ? { details: value.details } : {}), returned: "result" };
	}
	return { content: [{ type: "text", text: stringify(value) }], returned: "json" };
}

/**
 * A call that returned nothing but printed to the console: what it printed becomes its output (else it is lost to
 * the model), with a word on returning it instead. Any other output is kept as it is.
 */
export function withConsole(output: ToolOutput, printed: string | undefined): ToolOutput {
	const [only, ...rest] = output.content;
	if (printed === undefined || rest.length > 0 || only?.type !== "text" || only.text !== NO_VALUE_TEXT) return output;
	const text = `(the tool returned no value; below is what it printed to the console. Return the result from execute instead of printing it.)\n${printed}`;
	return { ...output, content: [{ type: "text", text }] };
}

function isToolResult(value: unknown): value is { content: ContentBlock[]; details?: unknown } {
	if (typeof value !== "object" || value === null || !Array.isArray((value as { content?: unknown }).content))
		return false;
	return (value as { content: unknown[] }).content.every(
		(block) =>
			typeof block === "object" &&
			block !== null &&
			(((block as ContentBlock).type === "text" && typeof (block as { text?: unknown }).text === "string") ||
				((block as ContentBlock).type === "image" &&
					typeof (block as { data?: unknown }).data === "string" &&
					typeof (block as { mimeType?: unknown }).mimeType === "string")),
	);
}

/** JSON for plain values; survives BigInt, cycles, functions and symbols instead of throwing. */
export function stringify(value: unknown): string {
	if (typeof value !== "object" || value === null) {
		return typeof value === "bigint" || typeof value === "symbol" || typeof value === "function"
			? String(value)
			: JSON.stringify(value);
	}
	return JSON.stringify(toPlain(value, []), null, 2);
}

/** A JSON-ready copy; only a value that contains itself (an ancestor) becomes "[Circular]", shared values are kept. */
function toPlain(value: unknown, ancestors: object[]): unknown {
	if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") return String(value);
	if (typeof value !== "object" || value === null) return value;
	if (ancestors.includes(value)) return "[Circular]";
	const json = (value as { toJSON?: () => unknown }).toJSON;
	if (typeof json === "function") return toPlain(json.call(value), ancestors);
	const inner = [...ancestors, value];
	if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toPlain(v, inner)]));
	if (value instanceof Set || Array.isArray(value)) return [...value].map((v) => toPlain(v, inner));
	return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v, inner)]));
}

/** All the text blocks of an output, joined. */
export function outputText(output: ToolOutput): string {
	return output.content
		.filter((block): block is { type: "text"; text: string } => block.type === "text")
		.map((block) => block.text)
		.join("\n");
}
