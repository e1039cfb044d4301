// What the runner host sends pi's process, checked against the protocol's schema before anything acts on it: the
// host runs tools' code, so a message is untrusted until it has the shape it claims. The validator is compiled once.
import { Compile } from "typebox/compile";
import type { FromHost } from "../protocol.ts";
import { FromHostSchema } from "../protocol-schemas.ts";

let validator: ReturnType<typeof Compile<typeof FromHostSchema>> | undefined;

/** The message, when it is one of the protocol's; undefined otherwise (it is dropped). */
export function readFromHost(message: unknown): FromHost | undefined {
	validator ??= Compile(FromHostSchema);
	return validator.Check(message) ? (message as FromHost) : undefined;
}
