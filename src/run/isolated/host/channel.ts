// The runner host's line to pi's process, and the small checks every part of the host uses on what a worker posts.
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import type { FromHost } from "../protocol.ts";
import { MAX_WIRE_CHARS } from "../wire.ts";

/** What the host was started with (pi's process passes it as JSON in argv[2]). */
export interface HostOptions {
	roots: string[];
	/** Files no tool may read (see the fs facade). */
	unreadable?: string[];
	typeboxPath: string;
	toolWorker: string;
	preflightWorker: string;
	/** The runner's temp folder: each tool worker's TMPDIR (os.tmpdir()) is its own folder in it. */
	tempRoot?: string;
	/** Resident memory above which running workers are stopped (their heap caps do not count Buffers). */
	rssLimitMb: number;
}

/** A message that cannot go (the channel closed) is dropped: pi fails the call at its deadline or at this host's exit. */
export function send(message: FromHost): void {
	try {
		process.send!(message);
	} catch {
		// Nothing to tell: the channel to pi is gone.
	}
}

export const errorResult = (callId: number, error: ForgeErrorData): FromHost => ({
	type: "result",
	callId,
	json: JSON.stringify({ ok: false, error }),
});

/** A preflight worker's verdict as it goes on to pi: JSON text within the wire's bound, else a failure to read it. */
export function verdictJson(json: unknown): string {
	return typeof json === "string" && json.length <= MAX_WIRE_CHARS
		? json
		: JSON.stringify({ ok: false, error: { phase: "load", message: "The preflight's verdict could not be read." } });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Wakes a worker sleeping on a synchronous request. */
export function wakeUp(wake: SharedArrayBuffer): void {
	const flag = new Int32Array(wake);
	Atomics.store(flag, 0, 1);
	Atomics.notify(flag, 0);
}
