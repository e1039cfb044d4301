// A worker thread in the runner host that preflights staged files with jiti, so a forged module's top-level code
// never runs in pi's process. It stays warm: jiti loads once.
import { parentPort, workerData } from "node:worker_threads";
import { createPreflightLoader } from "../../forge/preflight.ts";

interface PreflightJob {
	callId: number;
	stagedPath: string;
	code: string;
	expectedName: string;
	file: string;
}

const load = createPreflightLoader((workerData as { typeboxPath: string }).typeboxPath);

parentPort!.on("message", async (job: PreflightJob) => {
	const result = await load(job.stagedPath, job.code, job.expectedName, job.file);
	parentPort!.postMessage(
		result.ok
			? { type: "preflight-result", callId: job.callId, ok: true, shape: result.value }
			: { type: "preflight-result", callId: job.callId, ok: false, error: { phase: result.error.phase, message: result.error.message, hint: result.error.details.hint } },
	);
});
