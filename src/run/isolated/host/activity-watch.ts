// While a person is asked for a grant a call's tool did not wait for (an asynchronous request), pi's process stops
// the call's deadline only as long as the tool's worker does nothing: this watches the worker's event loop and says
// when it runs code again ("busy"), so the deadline runs again. A worker that waits (on the answer, a timer, I/O)
// costs no time; one that computes or writes meanwhile gets no free time.
import type { Worker } from "node:worker_threads";
import type { FromHost } from "../protocol.ts";

/** How often the worker's event loop is looked at, and how much running code it may show before it counts as busy. */
const SAMPLE_MS = 50;
const BUSY_MS = 20;

export function createActivityWatch(workerOf: (callId: number) => Worker | undefined, send: (m: FromHost) => void) {
	const watches = new Map<number, NodeJS.Timeout>();
	const end = (callId: number) => {
		clearInterval(watches.get(callId));
		watches.delete(callId);
	};
	return {
		/** Starts (or, with `on` false, ends) watching the worker of a call. */
		hold(callId: number, on: boolean): void {
			end(callId);
			const worker = workerOf(callId);
			if (!on || !worker) return;
			const start = worker.performance.eventLoopUtilization();
			const timer = setInterval(() => {
				const now = workerOf(callId);
				if (now !== worker) return end(callId);
				if (worker.performance.eventLoopUtilization(start).active < BUSY_MS) return;
				end(callId);
				send({ type: "busy", callId });
			}, SAMPLE_MS);
			timer.unref();
			watches.set(callId, timer);
		},
	};
}
