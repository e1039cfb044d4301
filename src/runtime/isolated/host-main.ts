// The runner host: a child process of pi under Node's permission model (reads: project, temp, toolbox, its own code;
// writes: none; no child processes). It runs each tool in a worker thread with a heap cap, relays what the tools
// ask of pi's process, stops a worker on request (a synchronous loop included), and watches its own memory.
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import type { FromHost, FromWorker, HostTool, Limits, PortRequest, ToHost, WireError } from "./protocol.ts";

interface HostOptions {
	roots: string[];
	typeboxPath: string;
	toolWorker: string;
	preflightWorker: string;
	/** Resident memory above which running workers are stopped (their heap caps do not count Buffers). */
	rssLimitMb: number;
}

interface ToolWorker {
	worker: Worker;
	hash: string;
	calls: Set<number>;
}

const options = JSON.parse(process.argv[2] ?? "{}") as HostOptions;
const send = (message: FromHost) => process.send!(message);
const workers = new Map<string, ToolWorker>();
const relayed = new Map<number, { port: MessagePort; localId: number; wake?: SharedArrayBuffer }>();
let nextRelayId = 1;
let preflight: { worker: Worker; jobs: Set<number> } | undefined;

export const PREFLIGHT_WORKER = "<preflight>";

process.on("message", (message: ToHost) => {
	switch (message.type) {
		case "call": {
			const entry = workerFor(message.tool, message.limits);
			entry.calls.add(message.callId);
			entry.worker.postMessage({ type: "call", callId: message.callId, params: message.params, context: message.context });
			break;
		}
		case "cancel":
			for (const entry of workers.values()) if (entry.calls.has(message.callId)) entry.worker.postMessage(message);
			break;
		case "stop":
			void stop(message.tool, { phase: "runtime", message: "Stopped: another call of this tool ran past its deadline or was cancelled." });
			break;
		case "preflight":
			preflightWorker(message.limits).jobs.add(message.callId);
			preflight!.worker.postMessage({ callId: message.callId, stagedPath: message.stagedPath, code: message.code, expectedName: message.expectedName, file: message.file });
			break;
		case "broker-reply": {
			const target = relayed.get(message.requestId);
			relayed.delete(message.requestId);
			if (!target) break;
			target.port.postMessage({ requestId: target.localId, reply: message.reply });
			if (target.wake) {
				const flag = new Int32Array(target.wake);
				Atomics.store(flag, 0, 1);
				Atomics.notify(flag, 0);
			}
			break;
		}
	}
});

function workerFor(tool: HostTool, limits: Limits): ToolWorker {
	const existing = workers.get(tool.name);
	if (existing?.hash === tool.hash) return existing;
	if (existing) void stop(tool.name, { phase: "runtime", message: "Stopped: the tool was re-forged while this call ran." });

	const { port1, port2 } = new MessageChannel();
	const worker = new Worker(options.toolWorker, {
		workerData: { tool, limits, roots: options.roots, port: port2, safeEnv: { ...process.env }, typeboxPath: options.typeboxPath },
		transferList: [port2],
		resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
		stdout: true,
		stderr: true,
	});
	worker.stdout.resume();
	worker.stderr.resume();
	const entry: ToolWorker = { worker, hash: tool.hash, calls: new Set() };
	workers.set(tool.name, entry);

	port1.on("message", (request: PortRequest) => {
		const requestId = nextRelayId++;
		relayed.set(requestId, { port: port1, localId: request.requestId, wake: request.wake });
		send({ type: "broker", requestId, callId: request.callId, request: request.request });
	});
	worker.on("message", (message: FromWorker) => {
		if (message.type === "result") entry.calls.delete(message.callId);
		send(message);
	});
	worker.on("error", (error: Error & { code?: string }) => {
		const outOfMemory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
		failCalls(entry, outOfMemory
			? { phase: "memory", message: `'${tool.name}' used more than ${limits.memoryMb} MB of heap and was stopped.`, hint: "Process the input in smaller pieces, or raise PI_FORGE_MAX_MEMORY_MB." }
			: { phase: "runtime", message: `The tool's worker crashed: ${error.message}` });
	});
	worker.on("exit", () => {
		failCalls(entry, { phase: "runtime", message: "The tool's worker exited before the call finished (did it call process.exit?)." });
		if (workers.get(tool.name) === entry) workers.delete(tool.name);
		port1.close();
	});
	return entry;
}

function failCalls(entry: ToolWorker, error: WireError): void {
	for (const callId of entry.calls) send({ type: "result", callId, ok: false, error });
	entry.calls.clear();
}

async function stop(name: string, error: WireError): Promise<void> {
	if (name === PREFLIGHT_WORKER) {
		const current = preflight;
		preflight = undefined;
		await current?.worker.terminate();
		send({ type: "stopped", tool: name });
		return;
	}
	const entry = workers.get(name);
	if (entry) {
		workers.delete(name);
		failCalls(entry, error);
		await entry.worker.terminate();
	}
	send({ type: "stopped", tool: name });
}

function preflightWorker(limits: Limits): { worker: Worker; jobs: Set<number> } {
	if (preflight) return preflight;
	const worker = new Worker(options.preflightWorker, {
		workerData: { typeboxPath: options.typeboxPath },
		resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
		stdout: true,
		stderr: true,
	});
	worker.stdout.resume();
	worker.stderr.resume();
	const current = { worker, jobs: new Set<number>() };
	worker.on("message", (message: FromHost & { callId: number }) => {
		current.jobs.delete(message.callId);
		send(message);
	});
	const failJobs = (message: string) => {
		for (const callId of current.jobs) send({ type: "preflight-result", callId, ok: false, error: { phase: "load", message } });
		current.jobs.clear();
		if (preflight === current) preflight = undefined;
	};
	worker.on("error", (error) => failJobs(`The preflight load crashed: ${error.message}`));
	worker.on("exit", () => failJobs("The preflight load was stopped."));
	preflight = current;
	return current;
}

// Heap caps do not cover Buffers and other memory outside the heap: stop the running tools if the process grows past the limit.
setInterval(() => {
	if (process.memoryUsage.rss() / 1024 / 1024 <= options.rssLimitMb) return;
	for (const [name, entry] of workers) {
		if (entry.calls.size === 0) continue;
		void stop(name, { phase: "memory", message: `'${name}' used more memory than allowed and was stopped.`, hint: "Process the input in smaller pieces, or raise PI_FORGE_MAX_MEMORY_MB." });
	}
}, 100).unref();

process.on("disconnect", () => process.exit(0));
send({ type: "ready" });
