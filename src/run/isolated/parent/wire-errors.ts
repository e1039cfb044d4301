// The runner's failures as the model and the person read them: a preflight that ran out of time or memory, a call
// past its deadline or cancelled, a host that died under its calls. Pure: every text is made here from values.
import { ForgeError } from "../../../contract/forge-error.ts";
import { TIMEOUT_HINT } from "../../runtime-error.ts";

const LOAD_HINT = "Keep top-level code to the template; the logic runs inside execute.";

/** A preflight load stopped by its deadline or its heap cap; undefined for any other failure (kept as it came). */
export function preflightFailure(
	error: ForgeError,
	file: string,
	limits: { timeoutMs: number; memoryMb: number },
): ForgeError | undefined {
	if (error.phase === "timeout")
		return new ForgeError(
			"load",
			`Loading ${file} did not finish within ${limits.timeoutMs} ms: its top-level code never ends.`,
			{ hint: LOAD_HINT },
		);
	if (error.phase === "memory")
		return new ForgeError(
			"load",
			`Loading ${file} used more memory than allowed (PI_FORGE_MAX_MEMORY_MB=${limits.memoryMb}): its top-level code must stay small.`,
			{ hint: LOAD_HINT },
		);
	return undefined;
}

export function deadlineError(tool: string, timeoutMs: number): ForgeError {
	return new ForgeError("timeout", `'${tool}' did not finish within ${timeoutMs} ms and was stopped.`, {
		hint: TIMEOUT_HINT,
	});
}

export const cancelledError = (tool: string) => new ForgeError("aborted", `'${tool}' was cancelled.`);

export const shutdownError = (tool: string) => new ForgeError("aborted", `'${tool}' was stopped: pi is shutting down.`);

/** The host exited under a call: out of memory (V8 ends the whole process when a worker's heap overflows inside a GC task), or otherwise. */
export function hostExitError(tool: string, reason: string, memoryMb: number): ForgeError {
	const outOfMemory = /heap out of memory|Reached heap limit|Allocation failed/i.test(reason);
	return outOfMemory
		? new ForgeError(
				"memory",
				`'${tool}' ran out of memory (PI_FORGE_MAX_MEMORY_MB=${memoryMb}) and its runner was stopped: ${reason}.`,
				{
					hint: "Process the input in smaller pieces, or raise PI_FORGE_MAX_MEMORY_MB. The runner restarts on the next call.",
				},
			)
		: new ForgeError("runtime", `The tool's runner stopped: ${reason}.`, {
				hint: "The runner restarts on the next call; if this repeats, the tool may be exhausting memory.",
			});
}
