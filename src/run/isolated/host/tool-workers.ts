// The runner host's tool workers: one worker thread per tool (per key: a staged version has its own), started with
// the tool's code and a heap cap; what each posts is passed on to pi only as far as it is well formed and about a
// call it runs, and what it asks of pi's process is relayed as plain data. A worker that leaves anything running
// after its calls is replaced.
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import type { RunnableTool } from "../../runner.ts";
import type { BrokerReply, BrokerRequest, FromHost, Limits, SpareStart, ToolWorkerData } from "../protocol.ts";
import { toolTempDir } from "../temp-dirs.ts";
import { MAX_WIRE_CHARS, NotPlainData, plainData } from "../wire.ts";
import { errorResult, type HostOptions, isRecord, send, wakeUp } from "./channel.ts";
import { SpareWorker } from "./spare-worker.ts";

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
const NOTIFY_LEVELS: ReadonlySet<unknown> = new Set(["info", "warning", "error"]);
/** What one console message may carry (the call's buffer in pi keeps only a head and a tail anyway). */
const MAX_CONSOLE_CHARS = 64 * 1024;

export function createToolWorkers(options: HostOptions) {
	const workers = new Map<string, ToolWorker>();
	const spares = new SpareWorker(options.toolWorker);
	const relayed = new Map<number, { port: MessagePort; localId: number; wake?: SharedArrayBuffer }>();
	let nextRelayId = 1;

	/** Sends a call to its tool's worker, started first if there is none for this version. */
	function call(tool: RunnableTool, limits: Limits, message: { callId: number; params: unknown; context: unknown }) {
		const entry = workerFor(tool, limits);
		clearTimeout(entry.quiet);
		entry.quiet = undefined;
		entry.calls.add(message.callId);
		entry.worker.postMessage({ type: "call", ...message });
	}

	function workerFor(tool: RunnableTool, limits: Limits): ToolWorker {
		const key = tool.key ?? tool.name;
		const existing = workers.get(key);
		if (existing?.hash === tool.hash) return existing;
		if (existing)
			void stop(key, { phase: "runtime", message: "Stopped: the tool was re-forged while this call ran." });

		const { port1, port2 } = new MessageChannel();
		const tempDir = options.tempRoot ? toolTempDir(options.tempRoot, tool.name) : undefined;
		const tempEnv = tempDir ? { TMPDIR: tempDir } : {};
		const workerData: ToolWorkerData = {
			tool,
			limits,
			// Its own temp dir only, of the runner's temp folder: another tool's temp files are read as outside ones.
			roots: options.roots.map((root) => (root === options.tempRoot && tempDir ? tempDir : root)),
			unreadable: options.unreadable ?? [],
			port: port2,
			safeEnv: { ...process.env, ...tempEnv } as Record<string, string>,
			typeboxPath: options.typeboxPath,
		};
		// A spare started ahead takes the tool (its temp dir set before it starts); else a worker starts with it.
		const spare = spares.take(limits.memoryMb);
		const start: SpareStart = { type: "tool", data: workerData, ...(tempDir ? { tmpdir: tempDir } : {}) };
		if (spare) spare.postMessage(start, [port2]);
		const worker =
			spare ??
			new Worker(options.toolWorker, {
				workerData,
				transferList: [port2],
				// os.tmpdir() of the tool: its own folder (read from the worker's environment, not the host's).
				env: { ...process.env, ...tempEnv },
				resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
				stdout: true,
				stderr: true,
			});
		if (!spare) {
			worker.stdout.resume();
			worker.stderr.resume();
		}
		spares.prepare(limits.memoryMb, { ...process.env });
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
	function relayRequest(entry: ToolWorker, tool: RunnableTool, port: MessagePort, message: unknown): void {
		if (!isRecord(message) || typeof message.requestId !== "number") return;
		const wake = message.wake instanceof SharedArrayBuffer && message.wake.byteLength >= 4 ? message.wake : undefined;
		const answer = (error: ForgeErrorData) => {
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
		send({
			type: "broker",
			requestId,
			callId,
			tool: tool.name,
			hash: tool.hash,
			request,
			...(wake ? { blocking: true } : {}),
		});
	}

	/** pi's answer to a relayed request, passed back to the worker that asked (woken if it sleeps on it). */
	function reply(requestId: number, answer: BrokerReply): void {
		const target = relayed.get(requestId);
		relayed.delete(requestId);
		if (!target) return;
		target.port.postMessage({ requestId: target.localId, reply: answer });
		if (target.wake) wakeUp(target.wake);
	}

	/** Takes a worker out of service: new calls go to a fresh one; it ends now, or once the calls it still runs are done. */
	function retire(entry: ToolWorker): void {
		clearTimeout(entry.quiet);
		entry.quiet = undefined;
		entry.retiring = true;
		if (workers.get(entry.key) === entry) workers.delete(entry.key);
		if (entry.calls.size === 0) void entry.worker.terminate();
	}

	function failCalls(entry: ToolWorker, error: ForgeErrorData): void {
		for (const callId of entry.calls) send(errorResult(callId, error));
		entry.calls.clear();
	}

	/** Stops a tool's worker: its calls fail with `error`; pi is told once it is gone. */
	async function stop(name: string, error: ForgeErrorData): Promise<void> {
		const entry = workers.get(name);
		if (entry) {
			workers.delete(name);
			failCalls(entry, error);
			await entry.worker.terminate();
		}
		send({ type: "stopped", tool: name });
	}

	return {
		call,
		reply,
		stop,
		/** The worker running a call. */
		workerOf(callId: number): Worker | undefined {
			for (const entry of workers.values()) if (entry.calls.has(callId)) return entry.worker;
			return undefined;
		},
		/** Passes a cancellation to the worker running the call. */
		cancel(message: { type: "cancel"; callId: number }): void {
			for (const entry of workers.values()) if (entry.calls.has(message.callId)) entry.worker.postMessage(message);
		},
		/** Ends every worker at once; each running call's failure (made by `error`) is collected into `results`. */
		terminateAll(error: (name: string) => ForgeErrorData, results: FromHost[]): void {
			spares.close();
			for (const [name, entry] of workers) {
				const failure = error(name);
				for (const callId of entry.calls) results.push(errorResult(callId, failure));
				entry.calls.clear();
				void entry.worker.terminate();
			}
		},
	};
}
