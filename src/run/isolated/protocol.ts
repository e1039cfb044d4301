// Messages between pi's process (the parent), the runner host (a child process under Node's permission model)
// and the worker threads in it (one per tool, plus one for preflight loads). Everything here is structured-cloneable;
// what a tool produced (a result, an error, a module's shape) travels as JSON text (see wire.ts).
import type { MessagePort } from "node:worker_threads";
import type { ErrorOrigin, ForgePhase, SourceLocation } from "../../contract/forge-error.ts";

/** What the host needs to run a tool: the code itself, never a path into the toolbox. */
export interface HostTool {
	name: string;
	/** The worker that runs it (default: `name`); a staged version under test has its own. */
	key?: string;
	hash: string;
	file: string;
	path: string;
	code: string;
	map: string;
}

export interface Limits {
	memoryMb: number;
	/** Cap on the text a tool's output may carry across the boundary. */
	outputBytes: number;
	/** Remove fetch, WebSocket and friends from the tool's globals (strict policy; best effort). */
	networkOff: boolean;
}

export interface CallContext {
	cwd: string;
	hasUI: boolean;
}

/** A ForgeError as data. */
export interface WireError {
	phase: ForgePhase;
	message: string;
	location?: SourceLocation;
	stack?: string[];
	hint?: string;
	notes?: string[];
	/** Node's error code (ENOENT…) for errors a tool may test for. */
	code?: string;
	/** Whether the logic, an argument or a refused permission caused it (see ForgeErrorDetails). */
	origin?: ErrorOrigin;
	/** What the call printed to the console before it failed (bounded). */
	console?: string;
}

/** A file operation, named after its `fs/promises` function; paths already absolute. */
export interface FsRequest {
	kind: "fs";
	action: string;
	args: unknown[];
}

/** A command: a program with arguments, or (shell: true) a command line for the shell. */
export interface ExecRequest {
	kind: "exec";
	file: string;
	args: string[];
	shell: boolean;
	cwd?: string;
	input?: string;
	env?: Record<string, string>;
	timeoutMs?: number;
	maxBuffer?: number;
}

export interface EnvRequest {
	kind: "env";
	name: string;
}

/** A tool reached for a part of pi's ExtensionAPI that only exists in pi's process. */
export interface InlineRequest {
	kind: "inline";
	member: string;
}

/** An HTTP request a tool kept off the network asks pi's process to make (see facades/fetch.ts). */
/** A module to preflight: its compiled code, where it is staged, the name its metadata must carry. */
export interface PreflightJob {
	callId: number;
	stagedPath: string;
	code: string;
	map?: string;
	expectedName: string;
	file: string;
}

export interface NetRequest {
	kind: "net";
	url: string;
	method: string;
	headers: Array<[string, string]>;
	/** base64 */
	body?: string;
}

export interface NetResult {
	status: number;
	statusText: string;
	headers: Array<[string, string]>;
	/** base64 */
	body?: string;
	url: string;
}

export type BrokerRequest = FsRequest | ExecRequest | EnvRequest | InlineRequest | NetRequest;

export type BrokerReply = { ok: true; value: unknown } | { ok: false; error: WireError };

export interface ExecResult {
	stdout: string;
	stderr: string;
	status: number | null;
	signal: string | null;
	/** Set when the command could not be started or exceeded its limits. */
	error?: string;
}

export interface PreflightShape {
	name: string;
	description: string;
	parameters: Record<string, unknown>;
}

// parent → host
export type ToHost =
	| {
			type: "call";
			callId: number;
			tool: HostTool;
			params: Record<string, unknown>;
			context: CallContext;
			limits: Limits;
	  }
	| { type: "cancel"; callId: number }
	| { type: "stop"; tool: string }
	/** `batch`: a re-check of a file on disk, loaded by the host's batch pool within `timeoutMs` (preflight-pool.ts). */
	| {
			type: "preflight";
			callId: number;
			stagedPath: string;
			code: string;
			map?: string;
			expectedName: string;
			file: string;
			limits: Limits;
			batch?: { timeoutMs: number };
	  }
	| { type: "broker-reply"; requestId: number; reply: BrokerReply };

// host → parent
export type FromHost =
	| { type: "ready" }
	/** `json`: a WireResult (wire.ts) as JSON text, made in the worker or by the host. */
	| { type: "result"; callId: number; json: string }
	/** `json`: a WirePreflight as JSON text. */
	| { type: "preflight-result"; callId: number; json: string }
	/** `tool` and `hash` say whose worker asks, also outside any call (while its module loads). */
	| { type: "broker"; requestId: number; callId: number; tool: string; hash: string; request: BrokerRequest }
	| { type: "notify"; callId: number; message: string; level: "info" | "warning" | "error" }
	| { type: "console"; callId: number; text: string }
	| { type: "stopped"; tool: string }
	/** The host passed its memory limit: it asks to be ended (it restarts on the next call), with the calls it failed. */
	| { type: "recycle"; results: FromHost[] };

// host ↔ worker
export type ToWorker =
	| { type: "call"; callId: number; params: Record<string, unknown>; context: CallContext }
	| { type: "cancel"; callId: number };

export type FromWorker =
	| { type: "result"; callId: number; json: string }
	| { type: "notify"; callId: number; message: string; level: "info" | "warning" | "error" }
	/** The head of a call's console output as it is written: what is left of it if the call is stopped. */
	| { type: "console"; callId: number; text: string }
	/** No call runs any more: what is still scheduled or open (the host replaces a worker with anything left). */
	| { type: "idle"; leftovers: string[] };

/** On a worker's broker port: a request, and for a synchronous one the flag the worker sleeps on. */
export interface PortRequest {
	requestId: number;
	callId: number;
	request: BrokerRequest;
	wake?: SharedArrayBuffer;
}

export interface PortReply {
	requestId: number;
	reply: BrokerReply;
}

export interface ToolWorkerData {
	tool: HostTool;
	limits: Limits;
	roots: string[];
	/** Files inside the roots no tool may read. */
	unreadable: string[];
	port: MessagePort;
	safeEnv: Record<string, string>;
	typeboxPath: string;
}

/** The worker key of preflight loads (tools are keyed by name, which never has angle brackets). */
export const PREFLIGHT_WORKER = "<preflight>";
/** The key of the batch preflight pool: stopping it fails the loads it holds. */
export const PREFLIGHT_BATCH = "<preflight-batch>";
