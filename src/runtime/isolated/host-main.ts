// The runner host: a child process of pi under Node's permission model (reads: project, temp, toolbox, its own code;
// writes: none; no child processes). It runs each tool in a worker thread with a heap cap, relays what the tools
// ask of pi's process, stops a worker on request (a synchronous loop included), and watches its own memory.
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { type FromHost, type FromWorker, type HostTool, type Limits, PREFLIGHT_WORKER, type PortRequest, type ToHost, type WireError } from "./protocol.ts";

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
interface Preflight {
	worker: Worker;
	jobs: Set<number>;
	limits: Limits;
}
let preflight: Preflight | undefined;


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
			preflight!.worker.postMessage({ callId: message.callId, stagedPath: message.stagedPath, code: message.code, map: message.map, expectedName: message.expectedName, file: message.file });
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
	const key = tool.key ?? tool.name;
	const existing = workers.get(key);
	if (existing?.hash === tool.hash) return existing;
	if (existing) void stop(key, { phase: "runtime", message: "Stopped: the tool was re-forged while this call ran." });

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
	workers.set(key, entry);

	port1.on("message", (request: PortRequest) => {
		const requestId = nextRelayId++;
		relayed.set(requestId, { port: port1, localId: request.requestId, wake: request.wake });
		send({ type: "broker", requestId, callId: request.callId, tool: tool.name, hash: tool.hash, request: request.request });
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
		if (workers.get(key) === entry) workers.delete(key);
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

function preflightWorker(limits: Limits): Preflight {
	if (preflight) return preflight;
	const worker = new Worker(options.preflightWorker, {
		workerData: { typeboxPath: options.typeboxPath, roots: options.roots, limits, safeEnv: { ...process.env } },
		resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
		stdout: true,
		stderr: true,
	});
	worker.stdout.resume();
	worker.stderr.resume();
	const current: Preflight = { worker, jobs: new Set<number>(), limits };
	worker.on("message", (message: FromHost & { callId: number }) => {
		current.jobs.delete(message.callId);
		send(message);
		// One module per worker: what its top-level code changed dies with it. The next one starts now, ready for the next forge.
		if (current.jobs.size === 0) retirePreflight(current);
	});
	const failJobs = (error: WireError) => {
		for (const callId of current.jobs) send({ type: "preflight-result", callId, ok: false, error });
		current.jobs.clear();
		if (preflight === current) preflight = undefined;
	};
	worker.on("error", (error: Error & { code?: string }) =>
		failJobs(error.code === "ERR_WORKER_OUT_OF_MEMORY"
			? { phase: "load", message: `Loading the module used more than ${limits.memoryMb} MB of heap and was stopped: its top-level code must stay small.`, hint: "Keep top-level code to the template; the logic runs inside execute." }
			: { phase: "load", message: `The preflight load crashed: ${error.message}` }),
	);
	worker.on("exit", () => failJobs({ phase: "load", message: "The preflight load was stopped." }));
	preflight = current;
	return current;
}

function retirePreflight(current: Preflight): void {
	if (preflight !== current) return;
	preflight = undefined;
	void current.worker.terminate();
	preflightWorker(current.limits);
}

// Heap caps do not cover Buffers and other memory outside the heap. Past the limit, every running call fails (which
// tool grew cannot be told apart) and pi is asked to end this process: a terminated worker may take seconds to give its
// memory back, and only a new process is sure to start clean. pi restarts the host on the next call.
let recycling = false;
setInterval(() => {
	if (recycling || process.memoryUsage.rss() / 1024 / 1024 <= options.rssLimitMb) return;
	recycling = true;
	const hint = "Process the input in smaller pieces (Buffers count too), or raise PI_FORGE_MAX_MEMORY_MB.";
	const results: FromHost[] = [];
	for (const [name, entry] of workers) {
		const error: WireError = { phase: "memory", message: `'${name}' used more memory than allowed (the runner passed ${options.rssLimitMb} MB) and was stopped.`, hint };
		for (const callId of entry.calls) results.push({ type: "result", callId, ok: false, error });
		entry.calls.clear();
		void entry.worker.terminate();
	}
	if (preflight) {
		const error: WireError = { phase: "memory", message: `Loading the module used more memory than allowed (the runner passed ${options.rssLimitMb} MB).`, hint };
		for (const callId of preflight.jobs) results.push({ type: "preflight-result", callId, ok: false, error });
		preflight.jobs.clear();
		void preflight.worker.terminate();
	}
	// One message: pi retires this host before anyone learns of the failures, so a call made in answer goes to a new host.
	send({ type: "recycle", results });
}, 100).unref();

process.on("disconnect", () => process.exit(0));
send({ type: "ready" });
