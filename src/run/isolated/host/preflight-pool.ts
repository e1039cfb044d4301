// In the runner host: batch preflight loads (re-checks of tool files already on disk, many at once after a `git pull`)
// in a small pool of workers that each load module after module — no new worker per module — until one module changes
// what the next would share (the worker says so: it is replaced, and a job it refused goes to a fresh one). Each load
// has its own deadline here: a module whose top-level code never ends takes its worker down, not the other loads.

import type { Worker } from "node:worker_threads";
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import type { Limits, PreflightJob } from "../protocol.ts";

export interface BatchJob extends PreflightJob {
	limits: Limits;
	/** How long the module's top-level code may run. */
	timeoutMs: number;
}

interface Slot {
	worker: Worker;
	job?: BatchJob;
	timer?: NodeJS.Timeout;
}

export interface PoolOptions {
	size: number;
	/** A batch worker for these limits (the preflight worker with `shared: true`). */
	spawn(limits: Limits): Worker;
	/** Passes a verdict on (JSON text of a WirePreflight) to pi. */
	verdict(callId: number, json: string): void;
}

const failure = (error: ForgeErrorData) => JSON.stringify({ ok: false, error });

export class PreflightPool {
	private readonly queue: BatchJob[] = [];
	private readonly slots = new Set<Slot>();

	constructor(private readonly options: PoolOptions) {}

	add(job: BatchJob): void {
		this.queue.push(job);
		this.pump();
	}

	/** Fails every job, queued or loading, and ends the workers (pi gave up on them, or the host is recycled). */
	failAll(error: ForgeErrorData): Array<{ callId: number; json: string }> {
		const failed = [...this.queue.splice(0), ...[...this.slots].flatMap((slot) => slot.job ?? [])].map((job) => ({
			callId: job.callId,
			json: failure(error),
		}));
		for (const slot of [...this.slots]) this.retire(slot);
		return failed;
	}

	private pump(): void {
		for (const slot of this.slots) if (!slot.job && this.queue.length) this.give(slot, this.queue.shift()!);
		while (this.queue.length && this.slots.size < this.options.size)
			this.give(this.spawn(this.queue[0].limits), this.queue.shift()!);
	}

	private give(slot: Slot, job: BatchJob): void {
		slot.job = job;
		slot.timer = setTimeout(() => {
			this.finish(
				slot,
				failure({ phase: "timeout", message: `Loading ${job.file} did not finish within ${job.timeoutMs} ms.` }),
			);
			this.retire(slot);
			this.pump();
		}, job.timeoutMs);
		const { callId, stagedPath, code, map, expectedName, file } = job;
		slot.worker.postMessage({ callId, stagedPath, code, map, expectedName, file });
	}

	private finish(slot: Slot, json: string): void {
		const job = slot.job;
		clearTimeout(slot.timer);
		slot.job = undefined;
		slot.timer = undefined;
		if (job) this.options.verdict(job.callId, json);
	}

	private spawn(limits: Limits): Slot {
		const worker = this.options.spawn(limits);
		const slot: Slot = { worker };
		this.slots.add(slot);
		worker.on("message", (message: unknown) => {
			const { callId, type, json, clean } = (
				typeof message === "object" && message !== null ? message : {}
			) as Record<string, unknown>;
			if (!slot.job || callId !== slot.job.callId) return;
			if (type === "preflight-tainted") {
				// Refused before loading: the job goes first to a fresh worker.
				this.queue.unshift(slot.job);
				clearTimeout(slot.timer);
				slot.job = undefined;
				this.retire(slot);
			} else {
				this.finish(
					slot,
					typeof json === "string"
						? json
						: failure({ phase: "load", message: "The preflight's verdict could not be read." }),
				);
				if (clean !== true) this.retire(slot);
			}
			this.pump();
		});
		const lost = (error: ForgeErrorData) => {
			this.finish(slot, failure(error));
			this.retire(slot);
			this.pump();
		};
		worker.on("error", (error: Error & { code?: string }) =>
			lost(
				error.code === "ERR_WORKER_OUT_OF_MEMORY"
					? {
							phase: "memory",
							message: `Loading the module used more than ${limits.memoryMb} MB of heap and was stopped.`,
						}
					: { phase: "load", message: `The preflight load crashed: ${error.message}` },
			),
		);
		worker.on("exit", () => lost({ phase: "load", message: "The preflight load was stopped." }));
		return slot;
	}

	private retire(slot: Slot): void {
		if (!this.slots.delete(slot)) return;
		clearTimeout(slot.timer);
		void slot.worker.terminate();
	}
}
