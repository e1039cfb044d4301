// A worker thread in the runner host that preflights a staged module at forge time: its top-level code runs here,
// exactly as it will in a tool's worker (the same module loader, the same facades, the same hardened process),
// except that nothing is asked of pi's process while a module loads (no writes, commands, outside reads or variables).
// A worker serves one module and is then replaced, so what one module's top-level code changes (a prototype, a
// global) is never seen by the next. A batch worker (`shared`: re-checks of files on disk, many at once) serves
// modules until one changes what the next would share (shared-state.ts), and says so with each verdict.

import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import { ForgeError, type ForgeErrorData } from "../../../contract/forge-error.ts";
import { checkShape } from "../../../contract/module-shape.ts";
import { createPositionMapper } from "../../../contract/source-map.ts";
import { mapStack } from "../../../contract/stack.ts";
import { coreLibraryRequire, evaluateModule } from "../../module-loader.ts";
import type { Limits, PreflightJob } from "../protocol.ts";
import { toWireJson } from "../wire.ts";
import { settleLazyGlobals, watchSharedState } from "./shared-state.ts";
import { BrokerError, RefusingBroker } from "./worker-broker.ts";
import { startWorker } from "./worker-start.ts";

export interface PreflightWorkerData {
	typeboxPath: string;
	roots: string[];
	/** Files inside the roots no tool may read. */
	unreadable?: string[];
	limits: Limits;
	safeEnv: Record<string, string>;
	/** A batch worker: several modules in turn, as long as none changes what they share. */
	shared?: boolean;
}

const data = workerData as PreflightWorkerData;
let typebox: unknown;
const { modules, provide } = startWorker({
	...data,
	broker: new RefusingBroker(),
	// A batch worker watches TypeBox's module object too: it is loaded now, while Node may still read its own variables.
	beforeEnvironment: () => {
		if (!data.shared) return;
		typebox = createRequire(import.meta.url)(data.typeboxPath);
		settleLazyGlobals();
	},
});

const unchanged = data.shared ? watchSharedState([...Object.values(modules), typebox]) : undefined;
let served = 0;

// The verdict goes back as JSON text: a module's metadata is the module's own object, never cloned into pi.
parentPort!.on("message", (job: PreflightJob) => {
	// Something a module left running changed the shared state since the last verdict: this job goes to a fresh worker.
	if (unchanged && served++ > 0 && !unchanged()) {
		parentPort!.postMessage({ type: "preflight-tainted", callId: job.callId });
		return;
	}
	let json: string;
	try {
		json = toWireJson(load(job));
	} catch {
		json = toWireJson({
			ok: false,
			error: {
				phase: "shape",
				message: `${job.file}'s metadata cannot be read (reading it throws).`,
				hint: "Keep metadata to the template: { name, description, parameters } as plain data.",
			},
		});
	}
	parentPort!.postMessage({
		type: "preflight-result",
		callId: job.callId,
		json,
		...(unchanged ? { clean: unchanged() } : {}),
	});
});

function load(job: PreflightJob): { ok: true; shape: unknown } | { ok: false; error: ForgeErrorData } {
	let exports: Record<string, unknown>;
	try {
		exports = evaluateModule(job.code, job.stagedPath, coreLibraryRequire(job.expectedName, provide));
	} catch (error) {
		return { ok: false, error: loadError(error, job) };
	}
	const shape = checkShape(exports, job.expectedName, job.file);
	if (!shape.ok)
		return {
			ok: false,
			error: { phase: shape.error.phase, message: shape.error.message, hint: shape.error.details.hint },
		};
	return { ok: true, shape: shape.value };
}

function loadError(error: unknown, job: PreflightJob): ForgeErrorData {
	if (error instanceof ForgeError) return { phase: error.phase, message: error.message, hint: error.details.hint };
	const text =
		error instanceof Error
			? error.name && error.name !== "Error" && !(error instanceof BrokerError)
				? `${error.name}: ${error.message}`
				: error.message
			: String(error);
	const mapped =
		job.map && error instanceof Error
			? mapStack(error.stack, job.stagedPath, createPositionMapper(job.map), job.file)
			: undefined;
	return {
		phase: "load",
		location: mapped?.location,
		stack: mapped?.frames,
		message: `Loading ${job.file} failed: ${text.split(job.stagedPath).join(job.file)}`,
		hint:
			error instanceof BrokerError && error.data.hint
				? error.data.hint
				: "The module throws while it loads: keep top-level code to the template and move work into the logic.",
	};
}
