// `use_forge_tool`: run a forged tool by name, at once (also in the run that forged it).
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { type Static, Type } from "typebox";
import { runForgedTool } from "./direct-tool.ts";
import type { ForgeSession } from "./forge-session.ts";
import { parseJsonField } from "./forge-tool.ts";
import { defineTool } from "./pi-exports.ts";
import { renderUseCall, renderUseResult } from "./render.ts";

export const useForgeToolSchema = Type.Object({
	name: Type.String({ description: "Name of the forged tool (see list_forge)." }),
	args: Type.Optional(
		Type.Object(
			{},
			{
				additionalProperties: true,
				description: "Arguments for the tool, matching its parameters schema. Default {}.",
			},
		),
	),
});

export type UseForgeToolInput = Static<typeof useForgeToolSchema>;

export function createUseForgeTool(session: ForgeSession, pi: ExtensionAPI) {
	return defineTool({
		name: "use_forge_tool",
		label: "Use forged tool",
		description:
			"Run a forged tool by name with its arguments. Works immediately after forge_tool, in the same prompt. " +
			"Arguments are validated against the tool's schema; failures show the phase, the line in forge-<name>.ts and the source.",
		promptSnippet: "Run one of your forged tools by name",
		parameters: useForgeToolSchema,
		prepareArguments: (args) => parseJsonField(args, "args"),
		execute: (_toolCallId, params, signal, onUpdate, ctx) =>
			runForgedTool(session, pi, params.name, params.args ?? {}, signal, ctx, onUpdate),
		renderCall: (args, theme, context) =>
			renderUseCall(args as Partial<UseForgeToolInput>, theme, context.lastComponent),
		renderResult: (result, options, theme, context) =>
			renderUseResult(result, options, theme, context.lastComponent, context.isError),
	});
}
