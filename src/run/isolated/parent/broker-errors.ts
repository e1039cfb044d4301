// The broker's replies for what went wrong while doing a request: a thrown error as plain error data, and a failed
// `pi.useTool` as the calling tool will catch it.
import { ForgeError, type ForgeErrorData } from "../../../contract/forge-error.ts";

export function fromError(error: unknown): ForgeErrorData {
	const code = (error as NodeJS.ErrnoException)?.code;
	const message = error instanceof Error ? error.message : String(error);
	return { phase: "runtime", message, ...(code ? { code } : {}) };
}

/** A failed `pi.useTool` as the caller's tool will catch it: a refusal stays a refusal (a PermissionError there). */
export function useError(error: unknown): ForgeErrorData {
	if (error instanceof ForgeError) {
		const { code, hint, notes } = error.details;
		return {
			phase: error.phase,
			message: error.message,
			...(code === undefined ? {} : { code }),
			...(hint === undefined ? {} : { hint }),
			...(notes?.length ? { notes } : {}),
		};
	}
	const data = fromError(error);
	return (error as { name?: unknown })?.name === "PermissionError" ? { ...data, phase: "permission" } : data;
}
