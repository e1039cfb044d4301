// pi's side of "the forge speaks up": watches the results of pi's `bash` tool and, at the third command of the same
// kind in a session, appends one line to that result suggesting a forged tool (naming one that list_forge finds for the
// command, if any). Off with PI_FORGE_SUGGEST=off. Never for the forge's own tools or forged tools: only `bash` counts.
import type { ExtensionContext, ToolResultEvent, ToolResultEventResult } from "@earendil-works/pi-coding-agent";
import type { Toolbox } from "../toolbox/toolbox.ts";
import { ShellPatterns, suggestionLine } from "./shell-patterns.ts";

export function createSpeakUp(toolboxFor: (ctx: ExtensionContext) => Promise<Pick<Toolbox, "config" | "list">>) {
	const patterns = new ShellPatterns();
	return {
		/** A new session counts from zero. */
		reset: () => patterns.reset(),
		/** The result with the suggestion appended, or undefined to leave it as it is. */
		async onToolResult(event: ToolResultEvent, ctx: ExtensionContext): Promise<ToolResultEventResult | undefined> {
			if (event.toolName !== "bash" || typeof event.input.command !== "string") return undefined;
			const toolbox = await toolboxFor(ctx).catch(() => undefined);
			if (!toolbox?.config.suggest) return undefined;
			const pattern = patterns.record(event.input.command);
			if (!pattern) return undefined;
			const found = toolbox.list(event.input.command, 1);
			const existing = found.matched > 0 ? found.tools[0]?.entry.name : undefined;
			return { content: [...event.content, { type: "text", text: `\n${suggestionLine(pattern, existing)}` }] };
		},
	};
}
