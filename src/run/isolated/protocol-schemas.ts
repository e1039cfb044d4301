// The runner protocol as TypeBox schemas: every message between pi's process (the parent), the runner host and its
// workers. protocol.ts derives the types from these (type imports only, so the host's and the workers' bundles carry
// no TypeBox); pi's process compiles the host's messages into a validator (parent/host-messages.ts), because the host
// runs tools' code and what it sends is untrusted.
import { type Static, Type } from "typebox";
import type { ForgeErrorData } from "../../contract/forge-error.ts";
import type { RunnableTool } from "../runner.ts";

const Id = Type.Integer({ minimum: 0 });
const Level = Type.Union([Type.Literal("info"), Type.Literal("warning"), Type.Literal("error")]);
const Headers = Type.Array(Type.Tuple([Type.String(), Type.String()]));
/** Checked field by field where it is read (wire.ts's `readErrorData`): here only its type. */
export const ErrorDataSchema = Type.Unsafe<ForgeErrorData>(
	Type.Object({ phase: Type.String(), message: Type.String() }),
);

export const LimitsSchema = Type.Object({
	memoryMb: Type.Number(),
	/** Cap on the text a tool's output may carry across the boundary. */
	outputBytes: Type.Number(),
	/** Remove fetch, WebSocket and friends from the tool's globals (strict policy; best effort). */
	networkOff: Type.Boolean(),
});

export const CallContextSchema = Type.Object({ cwd: Type.String(), hasUI: Type.Boolean() });

/** A file operation, named after its `fs/promises` function; paths already absolute. */
export const FsRequestSchema = Type.Object({
	kind: Type.Literal("fs"),
	action: Type.String(),
	args: Type.Array(Type.Unknown()),
});

/** A command: a program with arguments, or (shell: true) a command line for the shell. */
export const ExecRequestSchema = Type.Object({
	kind: Type.Literal("exec"),
	file: Type.String(),
	args: Type.Array(Type.String()),
	shell: Type.Boolean(),
	cwd: Type.Optional(Type.String()),
	input: Type.Optional(Type.String()),
	env: Type.Optional(Type.Record(Type.String(), Type.String())),
	timeoutMs: Type.Optional(Type.Number()),
	maxBuffer: Type.Optional(Type.Number()),
});

export const EnvRequestSchema = Type.Object({ kind: Type.Literal("env"), name: Type.String() });

/** A tool reached for a part of pi's ExtensionAPI that only exists in pi's process. */
export const InlineRequestSchema = Type.Object({ kind: Type.Literal("inline"), member: Type.String() });

/** An HTTP request a tool kept off the network asks pi's process to make (see worker/facades/fetch.ts). */
export const NetRequestSchema = Type.Object({
	kind: Type.Literal("net"),
	url: Type.String(),
	method: Type.String(),
	headers: Headers,
	/** base64 */
	body: Type.Optional(Type.String()),
});

/** `pi.useTool(name, args)`: another forged tool or one of pi's built-ins, run for the calling tool by pi's process. */
export const UseRequestSchema = Type.Object({ kind: Type.Literal("use"), name: Type.String(), args: Type.Unknown() });

export const BrokerRequestSchema = Type.Union([
	FsRequestSchema,
	ExecRequestSchema,
	EnvRequestSchema,
	InlineRequestSchema,
	NetRequestSchema,
	UseRequestSchema,
]);

export const NetResultSchema = Type.Object({
	status: Type.Number(),
	statusText: Type.String(),
	headers: Headers,
	/** base64 */
	body: Type.Optional(Type.String()),
	url: Type.String(),
});

export const ExecResultSchema = Type.Object({
	stdout: Type.String(),
	stderr: Type.String(),
	status: Type.Union([Type.Number(), Type.Null()]),
	signal: Type.Union([Type.String(), Type.Null()]),
	/** Set when the command could not be started or exceeded its limits. */
	error: Type.Optional(Type.String()),
});

export const BrokerReplySchema = Type.Union([
	Type.Object({ ok: Type.Literal(true), value: Type.Unknown() }),
	Type.Object({ ok: Type.Literal(false), error: ErrorDataSchema }),
]);

/** A module to preflight: its compiled code, where it is staged, the name its metadata must carry. */
export const PreflightJobSchema = Type.Object({
	callId: Id,
	stagedPath: Type.String(),
	code: Type.String(),
	map: Type.Optional(Type.String()),
	expectedName: Type.String(),
	file: Type.String(),
});

// parent → host
export const ToHostSchema = Type.Union([
	Type.Object({
		type: Type.Literal("call"),
		callId: Id,
		/** The tool's code itself, never a path into the toolbox. */
		tool: Type.Unsafe<RunnableTool>(Type.Object({ name: Type.String(), hash: Type.String() })),
		params: Type.Record(Type.String(), Type.Unknown()),
		context: CallContextSchema,
		limits: LimitsSchema,
	}),
	Type.Object({ type: Type.Literal("cancel"), callId: Id }),
	/** A person is asked for the call without its worker waiting on the answer: say when the worker runs code. */
	Type.Object({ type: Type.Literal("hold"), callId: Id, on: Type.Boolean() }),
	Type.Object({ type: Type.Literal("stop"), tool: Type.String() }),
	/** `batch`: a re-check of a file on disk, loaded by the host's batch pool within `timeoutMs` (host/preflight-pool.ts). */
	Type.Intersect([
		Type.Object({ type: Type.Literal("preflight"), limits: LimitsSchema }),
		PreflightJobSchema,
		Type.Object({ batch: Type.Optional(Type.Object({ timeoutMs: Type.Number() })) }),
	]),
	Type.Object({ type: Type.Literal("broker-reply"), requestId: Id, reply: BrokerReplySchema }),
]);

/** `json`: a WireResult (wire.ts) as JSON text, made in the worker or by the host. */
const ResultMessage = Type.Object({ type: Type.Literal("result"), callId: Id, json: Type.String() });
/** `json`: a WirePreflight as JSON text. */
const PreflightResultMessage = Type.Object({ type: Type.Literal("preflight-result"), callId: Id, json: Type.String() });

// host → parent
export const FromHostSchema = Type.Union([
	Type.Object({ type: Type.Literal("ready") }),
	ResultMessage,
	PreflightResultMessage,
	/** `tool` and `hash` say whose worker asks, also outside any call (while its module loads). */
	Type.Object({
		type: Type.Literal("broker"),
		requestId: Id,
		callId: Id,
		tool: Type.String(),
		hash: Type.String(),
		/** Any object: the broker reads it field by field and answers what it cannot do with an error. */
		request: Type.Unsafe<Static<typeof BrokerRequestSchema>>(Type.Object({})),
		/** The worker sleeps until the answer (a synchronous request): none of its code runs meanwhile. */
		blocking: Type.Optional(Type.Boolean()),
	}),
	Type.Object({ type: Type.Literal("notify"), callId: Id, message: Type.String(), level: Level }),
	/** The worker of a held call ran code: its deadline runs again. */
	Type.Object({ type: Type.Literal("busy"), callId: Id }),
	Type.Object({ type: Type.Literal("console"), callId: Id, text: Type.String() }),
	Type.Object({ type: Type.Literal("stopped"), tool: Type.String() }),
	/** The host passed its memory limit: it asks to be ended (it restarts on the next call), with the calls it failed. */
	Type.Object({
		type: Type.Literal("recycle"),
		results: Type.Array(Type.Union([ResultMessage, PreflightResultMessage])),
	}),
]);

// host ↔ worker
export const ToWorkerSchema = Type.Union([
	Type.Object({
		type: Type.Literal("call"),
		callId: Id,
		params: Type.Record(Type.String(), Type.Unknown()),
		context: CallContextSchema,
	}),
	Type.Object({ type: Type.Literal("cancel"), callId: Id }),
]);

export const FromWorkerSchema = Type.Union([
	Type.Object({ type: Type.Literal("result"), callId: Id, json: Type.String() }),
	Type.Object({ type: Type.Literal("notify"), callId: Id, message: Type.String(), level: Level }),
	/** The head of a call's console output as it is written: what is left of it if the call is stopped. */
	Type.Object({ type: Type.Literal("console"), callId: Id, text: Type.String() }),
	/** No call runs any more: what is still scheduled or open (the host replaces a worker with anything left). */
	Type.Object({ type: Type.Literal("idle"), leftovers: Type.Array(Type.String()) }),
]);

/** On a worker's broker port: a request, and for a synchronous one the flag the worker sleeps on. */
export const PortRequestSchema = Type.Object({
	requestId: Id,
	callId: Id,
	request: BrokerRequestSchema,
	wake: Type.Optional(Type.Unsafe<SharedArrayBuffer>(Type.Unknown())),
});

export const PortReplySchema = Type.Object({ requestId: Id, reply: BrokerReplySchema });
