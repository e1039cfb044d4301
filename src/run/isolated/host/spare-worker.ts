// A tool worker started ahead of the call that needs it: its thread is up and its bundle loaded (most of a tool's first
// call), and it waits, doing nothing else, for its one tool (tool-worker.ts). The next tool that needs a worker with the
// same heap cap takes it; it is never given a second tool, and another spare is started after it is taken.
import { Worker } from "node:worker_threads";
import type { SpareWorkerData } from "../protocol.ts";

export class SpareWorker {
	private spare: { worker: Worker; memoryMb: number } | undefined;
	private closed = false;

	constructor(private readonly script: string) {}

	/** The spare, if one is ready for this heap cap (one for another cap is ended); the caller gives it its tool. */
	take(memoryMb: number): Worker | undefined {
		const spare = this.spare;
		this.spare = undefined;
		if (spare?.memoryMb === memoryMb) return spare.worker;
		void spare?.worker.terminate();
		return undefined;
	}

	/** Starts a spare once the current turn of the event loop is over (a call's own worker goes first). */
	prepare(memoryMb: number, env: NodeJS.ProcessEnv): void {
		setImmediate(() => {
			if (this.closed || this.spare) return;
			const workerData: SpareWorkerData = { spare: true };
			const worker = new Worker(this.script, {
				workerData,
				env,
				resourceLimits: { maxOldGenerationSizeMb: memoryMb },
				stdout: true,
				stderr: true,
			});
			worker.stdout.resume();
			worker.stderr.resume();
			const forget = () => {
				if (this.spare?.worker === worker) this.spare = undefined;
			};
			worker.on("error", forget);
			worker.on("exit", forget);
			this.spare = { worker, memoryMb };
		});
	}

	/** Ends the spare; none is started after this. */
	close(): void {
		this.closed = true;
		void this.spare?.worker.terminate();
		this.spare = undefined;
	}
}
