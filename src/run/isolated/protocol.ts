// Messages between pi's process (the parent), the runner host (a child process under Node's permission model)
// and the worker threads in it (one per tool, plus the preflight loads). Everything here is structured-cloneable;
// what a tool produced (a result, an error, a module's shape) travels as JSON text (see wire.ts). The types are the
// schemas' (protocol-schemas.ts), imported as types only: the host's and the workers' bundles carry no TypeBox.
import type { MessagePort } from "node:worker_threads";
import type { Static } from "typebox";
import type { RunnableTool } from "../runner.ts";
import type {
	BrokerReplySchema,
	BrokerRequestSchema,
	CallContextSchema,
	EnvRequestSchema,
	ExecRequestSchema,
	ExecResultSchema,
	FromHostSchema,
	FromWorkerSchema,
	FsRequestSchema,
	InlineRequestSchema,
	LimitsSchema,
	NetRequestSchema,
	NetResultSchema,
	PortReplySchema,
	PortRequestSchema,
	PreflightJobSchema,
	ToHostSchema,
	ToWorkerSchema,
	UseRequestSchema,
} from "./protocol-schemas.ts";

export type Limits = Static<typeof LimitsSchema>;
export type CallContext = Static<typeof CallContextSchema>;
export type FsRequest = Static<typeof FsRequestSchema>;
export type ExecRequest = Static<typeof ExecRequestSchema>;
export type EnvRequest = Static<typeof EnvRequestSchema>;
export type InlineRequest = Static<typeof InlineRequestSchema>;
export type NetRequest = Static<typeof NetRequestSchema>;
export type NetResult = Static<typeof NetResultSchema>;
export type UseRequest = Static<typeof UseRequestSchema>;
export type BrokerRequest = Static<typeof BrokerRequestSchema>;
export type BrokerReply = Static<typeof BrokerReplySchema>;
export type ExecResult = Static<typeof ExecResultSchema>;
export type PreflightJob = Static<typeof PreflightJobSchema>;
export type ToHost = Static<typeof ToHostSchema>;
export type FromHost = Static<typeof FromHostSchema>;
export type ToWorker = Static<typeof ToWorkerSchema>;
export type FromWorker = Static<typeof FromWorkerSchema>;
export type PortRequest = Static<typeof PortRequestSchema>;
export type PortReply = Static<typeof PortReplySchema>;

/** What a tool's worker starts with. */
export interface ToolWorkerData {
	tool: RunnableTool;
	limits: Limits;
	roots: string[];
	/** Files inside the roots no tool may read. */
	unreadable: string[];
	port: MessagePort;
	safeEnv: Record<string, string>;
	typeboxPath: string;
}

/** What a spare tool worker starts with: nothing of a tool, until its tool comes (`SpareStart`). */
export interface SpareWorkerData {
	spare: true;
}

/** The one message a spare tool worker waits for: its tool's start, and the tool's own temp dir. */
export interface SpareStart {
	type: "tool";
	data: ToolWorkerData;
	tmpdir?: string;
}

export const isSpare = (data: unknown): data is SpareWorkerData =>
	typeof data === "object" && data !== null && (data as { spare?: unknown }).spare === true;

/** The worker key of preflight loads (tools are keyed by name, which never has angle brackets). */
export const PREFLIGHT_WORKER = "<preflight>";
/** The key of the batch preflight pool: stopping it fails the loads it holds. */
export const PREFLIGHT_BATCH = "<preflight-batch>";
