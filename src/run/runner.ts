// The runner interface: every forged-tool call goes through one. The inline runner is one implementation; isolated runners plug in here.
import type { Result } from "../contract/forge-error.ts";
import type { PreflightLoader } from "../contract/module-shape.ts";
import type { CallerOperations } from "../contract/tool-calls.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import type { ToolOutput } from "./result.ts";

/** What a runner needs to run a tool: its compiled code (never the toolbox on disk). */
export interface RunnableTool {
	name: string;
	/** Which loaded copy runs it; defaults to `name`. A staged version under test uses its own, leaving the live one alone. */
	key?: string;
	/** Content hash of the source: a runner may cache the loaded module under it. */
	hash: string;
	/** The version number, for a person (a permission dialog names it). */
	version?: number;
	/** Display name for locations, `forge-<name>.ts`. */
	file: string;
	/** Absolute path of the live file, used as the module's filename. */
	path: string;
	code: CompiledCode;
}

/** What a forged tool sees as `ctx`. Kept small and serialisable so it can cross a process boundary. */
export interface ToolContext {
	/** pi's working directory: relative paths mean the project, as for pi's own tools. */
	cwd: string;
	/** Aborted when the call is cancelled or its deadline passes. */
	signal: AbortSignal;
	toolName: string;
	hasUI: boolean;
	/** Shows a message to the user when there is a UI; a no-op otherwise. */
	notify(message: string, level?: "info" | "warning" | "error"): void;
}

export interface RunRequest {
	tool: RunnableTool;
	params: Record<string, unknown>;
	cwd: string;
	timeoutMs: number;
	signal?: AbortSignal;
	/** The host side of `pi` and `ctx.notify`, provided by the pi wiring. */
	host: RunHost;
	/**
	 * A forge's test of a candidate: the isolated runner lets it write only in its private temp dir, so a forge that
	 * is refused leaves the project as it was.
	 */
	test?: boolean;
}

export interface RunHost {
	/** The value passed as `pi` to an inline tool. */
	pi: unknown;
	hasUI: boolean;
	notify(message: string, level?: "info" | "warning" | "error"): void;
	/** Asks the person to pick one option (only with a UI); undefined when dismissed (`signal` dismisses it). */
	select?(title: string, options: string[], signal?: AbortSignal): Promise<string | undefined>;
	/**
	 * `pi.useTool(name, args)` of the tool this host runs: another forged tool or one of pi's built-ins, resolving to
	 * what it returned. Without it, `pi.useTool` is refused.
	 */
	useTool?(name: unknown, args: unknown, caller: NestedCaller): Promise<unknown>;
	/**
	 * The same object for the hosts of a top-level call and of every call it makes through pi.useTool: the dialogs a
	 * person is shown, and what they denied, count to the top-level call, not to each nested call.
	 */
	callTree?: object;
}

/** What the runner knows of the call that asks for another tool: its operations, its signal and its deadline. */
export interface NestedCaller {
	/** File and command operations that act as the calling tool (its policy decides). */
	ops: CallerOperations;
	/** Aborted when the calling call is cancelled or over. */
	signal: AbortSignal;
	/** When the calling call times out (ms since the epoch): a nested call gets what is left of it. */
	deadline: number;
}

/**
 * What a call produced: what `execute` returned as pi's content blocks (normalised once, by the runner that ran it),
 * and what it printed to the console meanwhile (bounded).
 */
export interface RunOutcome {
	output: ToolOutput;
	console?: string;
}

export interface Runner {
	readonly kind: string;
	/**
	 * Runs `execute` and returns its output, or a ForgeError (runtime, timeout, aborted, load, import) that carries
	 * the call's console output in `details.console`.
	 */
	run(request: RunRequest): Promise<Result<RunOutcome>>;
	/** Loads a staged module where this runner runs code, and checks its shape. */
	readonly preflight: PreflightLoader;
	/** The preflight loads the staged file from disk (jiti), not only the code it is given. */
	readonly preflightReadsFile?: boolean;
	/**
	 * The same load for a re-check of a file already on disk, where many come at once (a start after a `git pull`): it
	 * may share a worker with other such loads. A runner without it re-checks with `preflight`.
	 */
	readonly preflightBatch?: PreflightLoader;
	/** Drops anything cached for a tool (after a re-forge or removal). */
	forget(name: string): void;
	dispose(): Promise<void>;
}
