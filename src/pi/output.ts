// The pi boundary for results: truncate output as pi's own tools do, and turn ForgeErrors into the throw pi expects.

import type { ForgeConfig } from "../contract/config.ts";
import { formatForModel } from "../contract/error-format.ts";
import type { ForgeError } from "../contract/forge-error.ts";
import type { ContentBlock, ToolOutput } from "../run/result.ts";
import { redactForModel, redactSecrets } from "../security/redact.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead } from "./pi-exports.ts";

export interface TruncatedOutput extends ToolOutput {
	truncated: boolean;
}

/** Joins the text blocks and keeps the head within pi's limits (2000 lines / 50KB), saying so when it cuts. */
export function truncateOutput(output: ToolOutput): TruncatedOutput {
	const texts = output.content.filter((b): b is Extract<ContentBlock, { type: "text" }> => b.type === "text");
	const others = output.content.filter((b) => b.type !== "text");
	const truncation = truncateHead(texts.map((b) => b.text).join("\n"), {
		maxLines: DEFAULT_MAX_LINES,
		maxBytes: DEFAULT_MAX_BYTES,
	});
	let text = truncation.content;
	if (truncation.truncated) {
		text += `\n\n[Output truncated: ${truncation.outputLines} of ${truncation.totalLines} lines (${formatSize(truncation.outputBytes)} of ${formatSize(truncation.totalBytes)}). Make the tool return less, e.g. with a limit parameter.]`;
	}
	const content: ContentBlock[] =
		texts.length > 0 || others.length === 0 ? [{ type: "text", text }, ...others] : others;
	return { content, details: output.details, truncated: truncation.truncated };
}

/** What redaction needs of the configuration: the project, home and temp folders (real paths) and secret values. */
export type RedactionConfig = Pick<ForgeConfig, "realCwd" | "homeDir" | "realTempDir" | "secretValues">;

/**
 * pi sets isError when execute throws, and sends only `error.message`: so the message is the whole repair signal —
 * with secrets and host paths outside the project redacted.
 */
export function toPiError(error: ForgeError, config: RedactionConfig): Error {
	return new Error(formatForModel(error, { redact: modelRedaction(config) }));
}

/** How text bound for the model is scrubbed: `prose` (messages, arguments, console output) and `code` (listings). */
export function modelRedaction(config: RedactionConfig): {
	prose(text: string): string;
	code(text: string): string;
} {
	const context = {
		projectDir: config.realCwd,
		homeDir: config.homeDir,
		tempDir: config.realTempDir,
		secretValues: config.secretValues,
	};
	return { prose: (text) => redactForModel(text, context), code: (text) => redactSecrets(text, context.secretValues) };
}
