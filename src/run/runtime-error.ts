// A throw from inside a forged tool, turned into a ForgeError located in `forge-<name>.ts` (both runners use it):
// the message with its chain of causes, and a hint that says what to change (the logic, an argument, or a grant).
import { ForgeError } from "../contract/forge-error.ts";
import type { PositionMapper } from "../contract/source-map.ts";
import { mapStack } from "../contract/stack.ts";
import { type CallInput, causeLines, diagnose } from "./error-origin.ts";
import type { RunnableTool } from "./runner.ts";

/** A throw from the tool, as a ForgeError located in `forge-<name>.ts`; `input` (the call's arguments) lets it tell a bad argument from a bug. */
export function runtimeError(
	error: unknown,
	tool: RunnableTool,
	mapper: PositionMapper,
	input?: CallInput,
): ForgeError {
	if (error instanceof ForgeError) return error;
	const headline =
		error instanceof Error ? `${error.name}: ${error.message}` : `Thrown value: ${describeThrown(error)}`;
	const message = [headline, ...causeLines(error)].join("\n");
	const { location, frames } = mapStack(
		error instanceof Error ? error.stack : undefined,
		tool.path,
		mapper,
		tool.file,
	);
	const { origin, hint } = diagnose(error, input);
	return new ForgeError(
		"runtime",
		message,
		{
			tool: tool.name,
			location,
			stack: frames,
			origin,
			hint:
				hint ??
				(location
					? `Fix the logic at ${location.file}:${location.line} and call forge_tool again with the corrected logic.`
					: "Fix the logic and call forge_tool again with the corrected logic."),
		},
		{ cause: error },
	);
}

function describeThrown(value: unknown): string {
	try {
		return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
	} catch {
		return String(value);
	}
}

/** What a model can do about a deadline: a loop that never ends is a bug to fix; only a slow tool is a setting's business. */
export const TIMEOUT_HINT =
	"If the logic can loop forever or wait on something that never settles (a `while` whose condition never changes, a promise nobody resolves), fix that and call forge_tool again. If it is only slow, make it do less per call (less input, fewer files); the user can also raise PI_FORGE_TIMEOUT_MS.";
