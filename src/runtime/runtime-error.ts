// A throw from inside a forged tool, turned into a ForgeError located in `forge-<name>.ts` (both runners use it).
import { ForgeError } from "../errors/forge-error.ts";
import type { RunnableTool } from "./runner.ts";
import type { PositionMapper } from "./source-map.ts";
import { mapStack } from "./stack.ts";

/** A throw from the tool, as a ForgeError located in `forge-<name>.ts`. */
export function runtimeError(error: unknown, tool: RunnableTool, mapper: PositionMapper): ForgeError {
	if (error instanceof ForgeError) return error;
	const message = error instanceof Error ? `${error.name}: ${error.message}` : `Thrown value: ${describeThrown(error)}`;
	const { location, frames } = mapStack(error instanceof Error ? error.stack : undefined, tool.path, mapper, tool.file);
	return new ForgeError("runtime", message, {
		tool: tool.name,
		location,
		stack: frames,
		hint: location
			? `Fix the logic at ${location.file}:${location.line} and call forge_tool again with the corrected logic.`
			: "Fix the logic and call forge_tool again with the corrected logic.",
	}, { cause: error });
}

function describeThrown(value: unknown): string {
	try {
		return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}
