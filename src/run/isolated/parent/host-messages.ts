// What the runner host sends pi's process, checked against the protocol's schema before anything acts on it: the
// host runs tools' code, so a message is untrusted until it has the shape it claims. The validator is compiled once.
import { Compile } from "typebox/compile";
import type { BrokerReply, FromHost } from "../protocol.ts";
import { FromHostSchema } from "../protocol-schemas.ts";
import type { HostProcess } from "./host-process.ts";

let validator: ReturnType<typeof Compile<typeof FromHostSchema>> | undefined;

/** The message, when it is one of the protocol's; undefined otherwise (it is dropped). */
export function readFromHost(message: unknown): FromHost | undefined {
	validator ??= Compile(FromHostSchema);
	return validator.Check(message) ? (message as FromHost) : undefined;
}

/** pi's answer to a tool's request; one that cannot be sent (it does not clone) goes back as a runtime error. */
export function sendReply(host: HostProcess, requestId: number, reply: BrokerReply): void {
	try {
		host.send({ type: "broker-reply", requestId, reply });
	} catch (error) {
		const message = `The answer could not be sent back: ${(error as Error).message}`;
		host.send({ type: "broker-reply", requestId, reply: { ok: false, error: { phase: "runtime", message } } });
	}
}
