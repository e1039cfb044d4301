// The one seam between the isolated runner and the capability policy: the runner asks, the gate answers. The gate
// decides (the policy, the protected locations, the grants), asks a person where there is one, remembers an
// "always", and writes every decision and call to the audit log. The policy implements it (policy/gate.ts); the
// composition root builds it and hands it to the runner, which imports nothing of the policy.
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import type { RunHost } from "../../runner.ts";

import type { Capability } from "./capability.ts";

/** The call a capability is asked for. */
export interface GateCall {
	tool: string;
	hash: string;
	/** The tool's version number, when known (the dialog names it). */
	version?: number;
	host?: RunHost;
	/**
	 * Stops the call's deadline while a person decides, when the tool's code cannot run meanwhile (its worker sleeps on
	 * the answer); returns the function that restarts it.
	 */
	pause(): () => void;
	/** False once the call is over: nobody is asked for it any more. */
	alive(): boolean;
	/** Aborted when the call ends (a dialog still open for it is dismissed); the same signal for every request of a call. */
	ended?: AbortSignal;
	/** The private temp dir of the call's tool (real path): written without a grant, like the project. */
	tempDir?: string;
	/** Told the commands that would grant what was just refused (kept in pi's process for the call's error). */
	refused?(grants: string[]): void;
}

/** One finished call, for the audit log. */
export interface CallRecord {
	tool: string;
	hash: string;
	durationMs: number;
	outcome: "ok" | "error" | "timeout" | "aborted" | "memory";
	/** Why it failed (the gate redacts secrets before anything is written). */
	detail?: string;
}

export interface PolicyGate {
	/** Whether tools keep the network themselves; without it each host they fetch is a capability asked of the gate. */
	readonly network: boolean;
	/**
	 * Undefined when `capability` is allowed for the call; the refusal, as the tool will see it, otherwise. Decides,
	 * asks a person when the policy says ask, remembers an "always", and audits the decision.
	 */
	authorise(capability: Capability, call: GateCall): Promise<ForgeErrorData | undefined>;
	/**
	 * Paths no command may write, existing or not (bound read-only around a command in the OS sandbox, or held by an
	 * empty read-only folder where they do not exist): the protected locations.
	 */
	protectedPaths(): string[];
	/** Whether this version of a tool was granted to run inside pi's process. */
	runsInline(tool: string, hash: string): Promise<boolean>;
	/** Audits a finished call. */
	recordCall(record: CallRecord): void;
	/** Resolves when every audit record so far is written. */
	flush(): Promise<void>;
}
