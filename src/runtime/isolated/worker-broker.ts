// Inside a tool's worker: asks pi's process to do what the worker may not (write files, read outside the project,
// run commands, see environment variables). Synchronous requests sleep on a shared flag until the reply arrives.
import { AsyncLocalStorage } from "node:async_hooks";
import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import type { BrokerReply, BrokerRequest, PortReply, PortRequest, WireError } from "./protocol.ts";

/** An error the broker sent back (e.g. a refused capability), thrown into the tool's code. */
export class BrokerError extends Error {
	readonly wire: WireError;
	readonly code?: string;
	constructor(wire: WireError) {
		super(wire.message);
		this.name = wire.phase === "permission" ? "PermissionError" : "Error";
		this.wire = wire;
		this.code = wire.code;
	}
}

/** Which call the code running now belongs to, so a request is accounted (deadline, prompt, audit) to it. */
export const currentCall = new AsyncLocalStorage<{ callId: number }>();

export class BrokerClient {
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

	private callId(): number {
		return currentCall.getStore()?.callId ?? 0;
	}

	/** Blocks this worker until pi's process answers. */
	sync(request: BrokerRequest): unknown {
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
		const requestId = this.nextId++;
		const reply = await new Promise<BrokerReply>((resolve) => {
			this.pending.set(requestId, resolve);
			const message: PortRequest = { requestId, callId: this.callId(), request };
			this.port.postMessage(message);
		});
		return unwrap(reply);
	}
}

function unwrap(reply: BrokerReply): unknown {
	if (!reply.ok) throw new BrokerError(reply.error);
	return reply.value;
}
