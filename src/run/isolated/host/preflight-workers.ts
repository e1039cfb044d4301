// The runner host's preflight loads: one worker per forge-time load (replaced after each module, and started ahead
// for the next forge), and the batch pool for re-checks of files on disk. Only a verdict on a job a worker was
// given goes on to pi, as JSON text.
import { Worker } from "node:worker_threads";
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import type { FromHost, Limits, PreflightJob } from "../protocol.ts";
import { type HostOptions, isRecord, send, verdictJson } from "./channel.ts";
import { PreflightPool } from "./preflight-pool.ts";

interface Preflight {
	worker: Worker;
	jobs: Set<number>;
	limits: Limits;
}

const LOAD_STOPPED: ForgeErrorData = { phase: "load", message: "The preflight load was stopped." };

export function createPreflightWorkers(options: HostOptions) {
	const spawn = (limits: Limits, shared: boolean) => {
		const worker = new Worker(options.preflightWorker, {
			workerData: {
				typeboxPath: options.typeboxPath,
				roots: options.roots,
				unreadable: options.unreadable ?? [],
				limits,
				safeEnv: { ...process.env },
				...(shared ? { shared: true } : {}),
			},
			resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
			stdout: true,
			stderr: true,
		});
		worker.stdout.resume();
		worker.stderr.resume();
		return worker;
	};
	let preflight: Preflight | undefined;
	/** Re-checks of files on disk: two workers that load module after module (a third core is rarely there to spare). */
	const batch = new PreflightPool({
		size: 2,
		spawn: (limits) => spawn(limits, true),
		verdict: (callId, json) => send({ type: "preflight-result", callId, json: verdictJson(json) }),
	});

	function preflightWorker(limits: Limits): Preflight {
		if (preflight) return preflight;
		const worker = spawn(limits, false);
		const current: Preflight = { worker, jobs: new Set<number>(), limits };
		worker.on("message", (message: unknown) => {
			// The module's top-level code ran in this worker: only a verdict on a job it was given, as JSON text, goes on.
			if (!isRecord(message) || typeof message.callId !== "number" || !current.jobs.has(message.callId)) return;
			current.jobs.delete(message.callId);
			send({ type: "preflight-result", callId: message.callId, json: verdictJson(message.json) });
			// One module per worker: what its top-level code changed dies with it. The next one starts now, ready for the next forge.
			if (current.jobs.size === 0) retirePreflight(current);
		});
		const failJobs = (error: ForgeErrorData) => {
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
		worker.on("exit", () => failJobs(LOAD_STOPPED));
		preflight = current;
		return current;
	}

	function retirePreflight(current: Preflight): void {
		if (preflight !== current) return;
		preflight = undefined;
		void current.worker.terminate();
		preflightWorker(current.limits);
	}

	return {
		/** A forge-time load, or (`batch`) a re-check within `timeoutMs`. */
		load(job: PreflightJob, limits: Limits, batchTimeoutMs?: number): void {
			if (batchTimeoutMs !== undefined) {
				batch.add({ ...job, limits, timeoutMs: batchTimeoutMs });
				return;
			}
			const current = preflightWorker(limits);
			current.jobs.add(job.callId);
			const { callId, stagedPath, code, map, expectedName, file } = job;
			current.worker.postMessage({ callId, stagedPath, code, map, expectedName, file });
		},
		/** Stops the forge-time worker (its load fails as stopped). */
		async stopSingle(): Promise<void> {
			const current = preflight;
			preflight = undefined;
			await current?.worker.terminate();
		},
		/** Fails every load the batch pool holds. */
		stopBatch(): void {
			for (const failed of batch.failAll(LOAD_STOPPED)) send({ type: "preflight-result", ...failed });
		},
		/** Ends every load at once (the host passed its memory limit); their failures are collected into `results`. */
		terminateAll(error: ForgeErrorData, results: FromHost[]): void {
			if (preflight) {
				for (const callId of preflight.jobs)
					results.push({ type: "preflight-result", callId, json: JSON.stringify({ ok: false, error }) });
				preflight.jobs.clear();
				void preflight.worker.terminate();
			}
			for (const failed of batch.failAll(error)) results.push({ type: "preflight-result", ...failed });
		},
	};
}
