// Inside a tool's worker: asks pi's process to do what the worker may not (write files, read outside the project,
// run commands, see environment variables). Synchronous requests sleep on a shared flag until the reply arrives.

import { AsyncLocalStorage } from "node:async_hooks";
import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import type { BrokerReply, BrokerRequest, PortReply, PortRequest } from "../protocol.ts";

/** An error the broker sent back (e.g. a refused capability), thrown into the tool's code. */
export class BrokerError extends Error {
	readonly data: ForgeErrorData;
	readonly code?: string;
	constructor(data: ForgeErrorData) {
		super(data.message);
		this.name = data.phase === "permission" ? "PermissionError" : "Error";
		this.data = data;
		this.code = data.code;
	}
}

/** Which call the code running now belongs to, so a request is accounted (deadline, prompt, audit) to it. */
export const currentCall = new AsyncLocalStorage<{ callId: number }>();

/** What the facades need of a broker: a blocking and a non-blocking way to ask pi's process. */
export interface Brokered {
	sync(request: BrokerRequest): unknown;
	async(request: BrokerRequest): Promise<unknown>;
}

export class BrokerClient implements Brokered {
	private nextId = 1;
	private readonly pending = new Map<number, (reply: BrokerReply) => void>();

	constructor(private readonly port: MessagePort) {
		port.on("message", (message: PortReply) => this.settle(message));
	}

	private settle(message: PortReply): void {
		const resolve = this.pending.get(message.requestId);
		this.pending.delete(message.requestId);
		resolve?.(message.reply);
	}

	/** Asynchronous requests still waiting for pi's answer. */
	get waiting(): number {
		return this.pending.size;
	}

	private callId(): number {
		return currentCall.getStore()?.callId ?? 0;
	}

	/** Blocks this worker until pi's process answers. */
	sync(request: BrokerRequest): unknown {
		checkPayload(request);
		const requestId = this.nextId++;
		const wake = new SharedArrayBuffer(4);
		const flag = new Int32Array(wake);
		const message: PortRequest = { requestId, callId: this.callId(), request, wake };
		this.port.postMessage(message);
		for (;;) {
			Atomics.wait(flag, 0, 0);
			Atomics.store(flag, 0, 0);
			// Replies to asynchronous requests may be queued before ours: settle them on the way.
			for (let received = receiveMessageOnPort(this.port); received; received = receiveMessageOnPort(this.port)) {
				const reply = received.message as PortReply;
				if (reply.requestId === requestId) return unwrap(reply.reply);
				this.settle(reply);
			}
		}
	}

	async async(request: BrokerRequest): Promise<unknown> {
		checkPayload(request);
		const requestId = this.nextId++;
		const reply = await new Promise<BrokerReply>((resolve) => {
			this.pending.set(requestId, resolve);
			const message: PortRequest = { requestId, callId: this.callId(), request };
			this.port.postMessage(message);
		});
		return unwrap(reply);
	}
}

/**
 * What one request may carry into pi's process (file contents, a command's input): pi holds it in memory while it
 * works, so a tool with a large heap cap must not be able to hand it gigabytes at once. Larger data goes in pieces.
 */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

function checkPayload(request: BrokerRequest): void {
	const bytes = payloadBytes(
		request.kind === "fs" ? request.args : request.kind === "exec" ? [request.input, request.env, request.args] : [],
	);
	if (bytes <= MAX_REQUEST_BYTES) return;
	const what =
		request.kind === "fs" ? `fs.${request.action}` : request.kind === "exec" ? "A command's input" : "A request";
	throw new BrokerError({
		phase: "runtime",
		message: `${what} carries ${Math.round(bytes / 1024 / 1024)} MB: more than a forged tool may hand to pi's process at once (${MAX_REQUEST_BYTES / 1024 / 1024} MB).`,
		hint: "Write large data in pieces (fs.appendFile), or have a command produce it.",
		code: "ERR_FORGE_TOO_LARGE",
	});
}

/** About the bytes a value occupies once copied (strings as UTF-8). */
function payloadBytes(value: unknown, depth = 0): number {
	if (typeof value === "string") return Buffer.byteLength(value);
	if (ArrayBuffer.isView(value)) return value.byteLength;
	if (value instanceof ArrayBuffer) return value.byteLength;
	if (depth > 3 || !value || typeof value !== "object") return 0;
	let total = 0;
	for (const item of Array.isArray(value) ? value : Object.values(value)) total += payloadBytes(item, depth + 1);
	return total;
}

function unwrap(reply: BrokerReply): unknown {
	if (!reply.ok) throw new BrokerError(reply.error);
	return reply.value;
}

/**
 * The broker of a module that is loading outside any call (the preflight at forge time): nothing is asked of pi's
 * process, so top-level code can neither write, run commands, read outside the project nor see other variables.
 */
export class RefusingBroker implements Brokered {
	sync(request: BrokerRequest): never {
		throw new BrokerError({
			phase: "permission",
			message: `A forged module may not ${describeRequest(request)} while it loads.`,
			hint: "Do it inside execute (the logic), where the capability policy can allow it; keep top-level code to the template.",
			code: "ERR_FORGE_PERMISSION",
		});
	}

	async async(request: BrokerRequest): Promise<never> {
		return this.sync(request);
	}
}

function describeRequest(request: BrokerRequest): string {
	switch (request.kind) {
		case "fs":
			return `call fs.${request.action}(${typeof request.args[0] === "string" ? JSON.stringify(request.args[0]) : ""})`;
		case "exec":
			return `run \`${request.shell ? request.file : [request.file, ...request.args].join(" ")}\``;
		case "env":
			return `see the environment variable ${request.name}`;
		case "inline":
			return `use pi.${request.member}`;
		case "net":
			return `fetch ${request.url.slice(0, 200)}`;
		case "use":
			return `call pi.useTool(${JSON.stringify(request.name.slice(0, 200))})`;
	}
}
