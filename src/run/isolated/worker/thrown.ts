// What a tool threw, as error data for the wire: located in forge-<name>.ts through the source map, with the
// broker's own words kept whole for a refusal it sent back. A thrown value that fights being read still becomes data.
import { ForgeError, type ForgeErrorData } from "../../../contract/forge-error.ts";
import type { PositionMapper } from "../../../contract/source-map.ts";
import type { CallInput } from "../../error-origin.ts";
import type { RunnableTool } from "../../runner.ts";
import { runtimeError } from "../../runtime-error.ts";
import { BrokerError } from "./worker-broker.ts";

/** A throw as data; a thrown value that fights being read (throwing getters, a hostile Proxy) still fails the call. */
export function thrownData(
	error: unknown,
	tool: RunnableTool,
	mapper: PositionMapper,
	input?: CallInput,
): ForgeErrorData {
	try {
		return describeThrow(error, tool, mapper, input);
	} catch {
		return {
			phase: "runtime",
			message: "The tool threw a value that cannot be read (reading it throws).",
			hint: "Throw an Error with a plain message.",
		};
	}
}

function describeThrow(error: unknown, tool: RunnableTool, mapper: PositionMapper, input?: CallInput): ForgeErrorData {
	if (error instanceof ForgeError)
		return { phase: error.phase, message: error.message, hint: error.details.hint, origin: error.details.origin };
	const mapped = runtimeError(error, tool, mapper, input);
	const { location, stack, hint, origin } = mapped.details;
	const wire: ForgeErrorData = { phase: mapped.phase, message: mapped.message, location, stack, hint, origin };
	if (error instanceof BrokerError) {
		// The broker's own words (a refusal names the grant), kept whole; an fs error it relayed is still read for its origin.
		return {
			...wire,
			phase: error.data.phase,
			message: error.data.message,
			hint: error.data.hint ?? wire.hint,
			notes: error.data.notes,
			origin: error.data.phase === "permission" ? "permission" : origin,
		};
	}
	return wire;
}

/** The message of a thrown value, if reading it does not throw. */
export function safeMessage(error: unknown): string | undefined {
	try {
		const message = error instanceof Error ? error.message : undefined;
		return typeof message === "string" ? message.slice(0, 500) : undefined;
	} catch {
		return undefined;
	}
}
