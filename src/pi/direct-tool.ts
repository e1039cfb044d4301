// A forged tool as a first-class pi tool under its own name: same path as use_forge_tool, pi's schema as its parameters.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import type { RegistryEntry } from "../store/registry.ts";
import type { ForgeSession } from "./forge-session.ts";
import { runHostFor } from "./host.ts";
import { modelRedaction, toPiError, truncateOutput } from "./output.ts";
import { defineTool } from "./pi-exports.ts";

export function createDirectTool(entry: RegistryEntry, session: ForgeSession, pi: ExtensionAPI) {
	const { name } = entry;
	return defineTool({
		name,
		label: `forged: ${name}`,
		description: `${entry.description}\n(Forged tool '${name}', v${entry.version}.)`,
		// The tool's own JSON Schema, as pi validates it: TypeBox's Unsafe wraps a schema it did not build.
		parameters: Type.Unsafe<Record<string, unknown>>(entry.parameters),
		execute: (_toolCallId, params, signal, _onUpdate, ctx) => runForgedTool(session, pi, name, params, signal, ctx),
	});
}

/** One call of a forged tool from pi (by its own name or through use_forge_tool): run, truncate, or throw the repair signal. */
export async function runForgedTool(session: ForgeSession, pi: ExtensionAPI, name: string, args: unknown, signal: AbortSignal | undefined, ctx: ExtensionContext) {
	session.ui.attach(ctx);
	const toolbox = await session.toolboxFor(ctx);
	const result = await toolbox.use(name, args, { signal, host: runHostFor(pi, ctx), redact: (text) => modelRedaction(ctx.cwd).prose(text) });
	if (!result.ok) throw toPiError(result.error, ctx.cwd);
	const { content, details, truncated } = truncateOutput(result.value);
	return { content, details: { tool: name, version: result.value.version, durationMs: result.value.durationMs, truncated, result: details } };
}
