// The runner host: a child process of pi under Node's permission model (reads: project, temp, toolbox, its own code;
// writes: none; no child processes). It runs each tool in a worker thread with a heap cap, relays what the tools
// ask of pi's process, stops a worker on request (a synchronous loop included), and watches its own memory.
// A worker runs a tool's code, so whatever it posts is checked here before anything goes on to pi (see wire.ts).
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { PreflightPool } from "./preflight-pool.ts";
import {
	type BrokerRequest,
	type FromHost,
	type HostTool,
	type Limits,
	PREFLIGHT_BATCH,
	PREFLIGHT_WORKER,
	type ToHost,
	type WireError,
} from "./protocol.ts";
import { MAX_WIRE_CHARS, NotPlainData, plainData } from "./wire.ts";

interface HostOptions {
	roots: string[];
	/** Files no tool may read (see the fs facade). */
	unreadable?: string[];
	typeboxPath: string;
	toolWorker: string;
	preflightWorker: string;
	/** Resident memory above which running workers are stopped (their heap caps do not count Buffers). */
	rssLimitMb: number;
}

interface ToolWorker {
	key: string;
	worker: Worker;
	hash: string;
	calls: Set<number>;
	/** Armed when the worker's last call ends: a worker that does not report itself idle by then is replaced. */
	quiet?: NodeJS.Timeout;
	/** Taken out of service: ended as soon as its calls are done. */
	retiring?: boolean;
}

/** How long a worker may take, once no call runs, to report what it left running (a busy one never does). */
const QUIET_MS = 1000;

const options = JSON.parse(process.argv[2] ?? "{}") as HostOptions;
/** A message that cannot go (the channel closed) is dropped: pi fails the call at its deadline or at this host's exit. */
const send = (message: FromHost) => {
	try {
		process.send!(message);
	} catch {
		// Nothing to tell: the channel to pi is gone.
	}
};
const errorResult = (callId: number, error: WireError): FromHost => ({
	type: "result",
	callId,
	json: JSON.stringify({ ok: false, error }),
});
const NOTIFY_LEVELS: ReadonlySet<unknown> = new Set(["info", "warning", "error"]);
/** What one console message may carry (the call's buffer in pi keeps only a head and a tail anyway). */
const MAX_CONSOLE_CHARS = 64 * 1024;
const workers = new Map<string, ToolWorker>();
const relayed = new Map<number, { port: MessagePort; localId: number; wake?: SharedArrayBuffer }>();
let nextRelayId = 1;
interface Preflight {
	worker: Worker;
	jobs: Set<number>;
	limits: Limits;
}
let preflight: Preflight | undefined;
/** Re-checks of files on disk: two workers that load module after module (a third core is rarely there to spare). */
const batch = new PreflightPool({
	size: 2,
	spawn: (limits) => {
		const worker = new Worker(options.preflightWorker, {
			workerData: {
				typeboxPath: options.typeboxPath,
				roots: options.roots,
				unreadable: options.unreadable ?? [],
				limits,
				safeEnv: { ...process.env },
				shared: true,
			},
			resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
			stdout: true,
			stderr: true,
		});
		worker.stdout.resume();
		worker.stderr.resume();
		return worker;
	},
	verdict: (callId, json) =>
		send({
			type: "preflight-result",
			callId,
			json:
				json.length <= MAX_WIRE_CHARS
					? json
					: JSON.stringify({
							ok: false,
							error: { phase: "load", message: "The preflight's verdict could not be read." },
						}),
		}),
});

process.on("message", (message: ToHost) => {
	switch (message.type) {
		case "call": {
			const entry = workerFor(message.tool, message.limits);
			clearTimeout(entry.quiet);
			entry.quiet = undefined;
			entry.calls.add(message.callId);
			entry.worker.postMessage({
				type: "call",
				callId: message.callId,
				params: message.params,
				context: message.context,
			});
			break;
		}
		case "cancel":
			for (const entry of workers.values()) if (entry.calls.has(message.callId)) entry.worker.postMessage(message);
			break;
		case "stop":
			void stop(message.tool, {
				phase: "runtime",
				message: "Stopped: another call of this tool ran past its deadline or was cancelled.",
			});
			break;
		case "preflight":
			if (message.batch) {
				batch.add({ ...message, timeoutMs: message.batch.timeoutMs });
				break;
			}
			preflightWorker(message.limits).jobs.add(message.callId);
			preflight!.worker.postMessage({
				callId: message.callId,
				stagedPath: message.stagedPath,
				code: message.code,
				map: message.map,
				expectedName: message.expectedName,
				file: message.file,
			});
			break;
		case "broker-reply": {
			const target = relayed.get(message.requestId);
			relayed.delete(message.requestId);
			if (!target) break;
			target.port.postMessage({ requestId: target.localId, reply: message.reply });
			if (target.wake) wakeUp(target.wake);
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
		workerData: {
			tool,
			limits,
			roots: options.roots,
			unreadable: options.unreadable ?? [],
			port: port2,
			safeEnv: { ...process.env },
			typeboxPath: options.typeboxPath,
		},
		transferList: [port2],
		resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
		stdout: true,
		stderr: true,
	});
	worker.stdout.resume();
	worker.stderr.resume();
	const entry: ToolWorker = { key, worker, hash: tool.hash, calls: new Set() };
	workers.set(key, entry);

	port1.on("message", (message: unknown) => relayRequest(entry, tool, port1, message));
	worker.on("message", (message: unknown) => relayFromWorker(entry, message));
	worker.on("error", (error: Error & { code?: string }) => {
		const outOfMemory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
		failCalls(
			entry,
			outOfMemory
				? {
						phase: "memory",
						message: `'${tool.name}' used more than ${limits.memoryMb} MB of heap and was stopped.`,
						hint: "Process the input in smaller pieces, or raise PI_FORGE_MAX_MEMORY_MB.",
					}
				: { phase: "runtime", message: `The tool's worker crashed: ${error.message}` },
		);
	});
	worker.on("exit", () => {
		clearTimeout(entry.quiet);
		failCalls(entry, {
			phase: "runtime",
			message: "The tool's worker exited before the call finished (did it call process.exit?).",
		});
		if (workers.get(key) === entry) workers.delete(key);
		port1.close();
	});
	return entry;
}

/** A worker's message, passed on only as far as it is well formed and about a call the worker is running. */
function relayFromWorker(entry: ToolWorker, message: unknown): void {
	if (isRecord(message) && message.type === "idle") {
		clearTimeout(entry.quiet);
		entry.quiet = undefined;
		// Something its calls started would act after them: this worker goes, the next call gets a fresh one.
		if (!Array.isArray(message.leftovers) || message.leftovers.length > 0) retire(entry);
		return;
	}
	if (!isRecord(message) || typeof message.callId !== "number" || !entry.calls.has(message.callId)) return;
	const { callId } = message;
	switch (message.type) {
		case "result":
			entry.calls.delete(callId);
			send(
				typeof message.json === "string" && message.json.length <= MAX_WIRE_CHARS
					? { type: "result", callId, json: message.json }
					: errorResult(callId, {
							phase: "runtime",
							message: "The tool's result could not be passed on: it is not JSON text of at most 64 MB.",
						}),
			);
			if (entry.calls.size === 0) {
				if (entry.retiring) void entry.worker.terminate();
				else {
					clearTimeout(entry.quiet);
					entry.quiet = setTimeout(() => retire(entry), QUIET_MS);
				}
			}
			return;
		case "notify":
			if (typeof message.message === "string")
				send({
					type: "notify",
					callId,
					message: message.message.slice(0, 2000),
					level: NOTIFY_LEVELS.has(message.level) ? (message.level as "info") : "info",
				});
			return;
		case "console":
			if (typeof message.text === "string")
				send({ type: "console", callId, text: message.text.slice(0, MAX_CONSOLE_CHARS) });
			return;
	}
}

/**
 * A request from a worker's broker port: relayed to pi only as plain data (plainData), and only for a call the worker
 * is running (or 0: outside any call, which pi refuses unless one of the tool's calls is running). What cannot be
 * relayed is answered here.
 */
function relayRequest(entry: ToolWorker, tool: HostTool, port: MessagePort, message: unknown): void {
	if (!isRecord(message) || typeof message.requestId !== "number") return;
	const wake = message.wake instanceof SharedArrayBuffer && message.wake.byteLength >= 4 ? message.wake : undefined;
	const answer = (error: WireError) => {
		port.postMessage({ requestId: message.requestId, reply: { ok: false, error } });
		if (wake) wakeUp(wake);
	};
	const callId = message.callId;
	if (typeof callId !== "number" || (callId !== 0 && !entry.calls.has(callId))) {
		answer({
			phase: "runtime",
			message: "The call this request belongs to is over (it finished, timed out or was cancelled).",
		});
		return;
	}
	let request: BrokerRequest;
	try {
		request = plainData(message.request) as BrokerRequest;
	} catch (error) {
		const why = error instanceof NotPlainData ? error.message : "it cannot be copied";
		answer({
			phase: "runtime",
			message: `A request of '${tool.name}' was not sent to pi's process: ${why}. Pass strings, numbers, Buffers and plain objects.`,
			code: "ERR_FORGE_UNSUPPORTED",
		});
		return;
	}
	if (!isRecord(request)) {
		answer({
			phase: "runtime",
			message: "A malformed request was not sent to pi's process.",
			code: "ERR_FORGE_UNSUPPORTED",
		});
		return;
	}
	const requestId = nextRelayId++;
	relayed.set(requestId, { port, localId: message.requestId, wake });
	send({ type: "broker", requestId, callId, tool: tool.name, hash: tool.hash, request });
}

/** Takes a worker out of service: new calls go to a fresh one; it ends now, or once the calls it still runs are done. */
function retire(entry: ToolWorker): void {
	clearTimeout(entry.quiet);
	entry.quiet = undefined;
	entry.retiring = true;
	if (workers.get(entry.key) === entry) workers.delete(entry.key);
	if (entry.calls.size === 0) void entry.worker.terminate();
}

function wakeUp(wake: SharedArrayBuffer): void {
	const flag = new Int32Array(wake);
	Atomics.store(flag, 0, 1);
	Atomics.notify(flag, 0);
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function failCalls(entry: ToolWorker, error: WireError): void {
	for (const callId of entry.calls) send(errorResult(callId, error));
	entry.calls.clear();
}

async function stop(name: string, error: WireError): Promise<void> {
	if (name === PREFLIGHT_BATCH) {
		for (const failed of batch.failAll({ phase: "load", message: "The preflight load was stopped." }))
			send({ type: "preflight-result", ...failed });
		send({ type: "stopped", tool: name });
		return;
	}
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
		workerData: {
			typeboxPath: options.typeboxPath,
			roots: options.roots,
			unreadable: options.unreadable ?? [],
			limits,
			safeEnv: { ...process.env },
		},
		resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
		stdout: true,
		stderr: true,
	});
	worker.stdout.resume();
	worker.stderr.resume();
	const current: Preflight = { worker, jobs: new Set<number>(), limits };
	worker.on("message", (message: unknown) => {
		// The module's top-level code ran in this worker: only a verdict on a job it was given, as JSON text, goes on.
		if (!isRecord(message) || typeof message.callId !== "number" || !current.jobs.has(message.callId)) return;
		current.jobs.delete(message.callId);
		const fine = typeof message.json === "string" && message.json.length <= MAX_WIRE_CHARS;
		send({
			type: "preflight-result",
			callId: message.callId,
			json: fine
				? (message.json as string)
				: JSON.stringify({
						ok: false,
						error: { phase: "load", message: "The preflight's verdict could not be read." },
					}),
		});
		// One module per worker: what its top-level code changed dies with it. The next one starts now, ready for the next forge.
		if (current.jobs.size === 0) retirePreflight(current);
	});
	const failJobs = (error: WireError) => {
		for (const callId of current.jobs)
			send({ type: "preflight-result", callId, json: JSON.stringify({ ok: false, error }) });
		current.jobs.clear();
		if (preflight === current) preflight = undefined;
	};
	worker.on("error", (error: Error & { code?: string }) =>
		failJobs(
			error.code === "ERR_WORKER_OUT_OF_MEMORY"
				? {
						phase: "load",
						message: `Loading the module used more than ${limits.memoryMb} MB of heap and was stopped: its top-level code must stay small.`,
						hint: "Keep top-level code to the template; the logic runs inside execute.",
					}
				: { phase: "load", message: `The preflight load crashed: ${error.message}` },
		),
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
		const error: WireError = {
			phase: "memory",
			message: `'${name}' used more memory than allowed (the runner passed ${options.rssLimitMb} MB) and was stopped.`,
			hint,
		};
		for (const callId of entry.calls) results.push(errorResult(callId, error));
		entry.calls.clear();
		void entry.worker.terminate();
	}
	if (preflight) {
		const error: WireError = {
			phase: "memory",
			message: `Loading the module used more memory than allowed (the runner passed ${options.rssLimitMb} MB).`,
			hint,
		};
		for (const callId of preflight.jobs)
			results.push({ type: "preflight-result", callId, json: JSON.stringify({ ok: false, error }) });
		preflight.jobs.clear();
		void preflight.worker.terminate();
	}
	const loadError: WireError = {
		phase: "memory",
		message: `Loading the module used more memory than allowed (the runner passed ${options.rssLimitMb} MB).`,
		hint,
	};
	for (const failed of batch.failAll(loadError)) results.push({ type: "preflight-result", ...failed });
	// One message: pi retires this host before anyone learns of the failures, so a call made in answer goes to a new host.
	send({ type: "recycle", results });
}, 100).unref();

process.on("disconnect", () => process.exit(0));
send({ type: "ready" });
