// What the audit log keeps of one finished call of a forged tool: how long it took and how it ended.
import type { Result } from "../../../contract/forge-error.ts";
import type { CallRecord } from "./policy-gate.ts";

export function callRecord(
	tool: { name: string; hash: string },
	started: number,
	outcome: Result<unknown>,
): CallRecord {
	const { phase } = outcome.ok ? { phase: undefined } : outcome.error;
	return {
		tool: tool.name,
		hash: tool.hash,
		durationMs: Math.round(performance.now() - started),
		outcome: outcome.ok ? "ok" : phase === "timeout" || phase === "aborted" || phase === "memory" ? phase : "error",
		...(outcome.ok ? {} : { detail: outcome.error.message }),
	};
}
