// A forged tool as a first-class pi tool under its own name: same path as use_forge_tool, pi's schema as its parameters.
import type { ExtensionAPI, ToolDefinition } from "@mariozechner/pi-coding-agent";
import type { RegistryEntry } from "../store/registry.ts";
import type { ForgeSession } from "./forge-session.ts";
import { runHostFor } from "./host.ts";
import { toPiError, truncateOutput } from "./output.ts";

export function createDirectTool(entry: RegistryEntry, session: ForgeSession, pi: ExtensionAPI): ToolDefinition {
	const { name } = entry;
	return {
		name,
		label: `forged: ${name}`,
		description: `${entry.description}\n(Forged tool '${name}', v${entry.version}.)`,
		parameters: entry.parameters as unknown as ToolDefinition["parameters"],
		async execute(_toolCallId, params, signal, _onUpdate, ctx) {
			session.ui.attach(ctx);
			const toolbox = await session.toolboxFor(ctx);
			const result = await toolbox.use(name, params, { signal, host: runHostFor(pi, ctx) });
			if (!result.ok) throw toPiError(result.error, ctx.cwd);
			const { content, details, truncated } = truncateOutput(result.value);
			return { content, details: { tool: name, version: result.value.version, durationMs: result.value.durationMs, truncated, result: details } };
		},
	};
}
