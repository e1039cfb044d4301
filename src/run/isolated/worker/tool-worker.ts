// A worker thread in the runner host that runs one forged tool: its code arrives with the worker (it never reads the
// toolbox), its modules are the facades, and what it returns or throws goes back as JSON text made here (wire.ts), with
// what each call printed to the console (the worker's console, global included, writes into the buffer of the call that prints).
import { parentPort, workerData } from "node:worker_threads";
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import { createPositionMapper } from "../../../contract/source-map.ts";
import { ConsoleBuffer, createCapturingConsole } from "../../console-capture.ts";
import { coreLibraryRequire, evaluateModule } from "../../module-loader.ts";
import { normaliseResult } from "../../result.ts";
import { type FromWorker, isSpare, type SpareStart, type ToolWorkerData, type ToWorker } from "../protocol.ts";
import { toWireJson } from "../wire.ts";
import { installCallScope } from "./call-scope.ts";
import { createPiFacade } from "./facades/environment.ts";
import { capOutput } from "./output-cap.ts";
import { safeMessage, thrownData } from "./thrown.ts";
import { BrokerClient, currentCall } from "./worker-broker.ts";
import { startWorker } from "./worker-start.ts";

const post = (message: FromWorker) => parentPort!.postMessage(message);
const consoles = new Map<number, ConsoleBuffer>();
const capturing = createCapturingConsole(() => consoles.get(currentCall.getStore()?.callId ?? 0));
const calls = new Map<number, AbortController>();
/** A notification is a line for a person, not a channel for data. */
const MAX_NOTIFY_CHARS = 2000;
const later = setImmediate;

let data: ToolWorkerData;
let tool: ToolWorkerData["tool"];
let broker: BrokerClient;
let pi: ReturnType<typeof createPiFacade>;
let mapper: ReturnType<typeof createPositionMapper>;
let scope: ReturnType<typeof installCallScope>;
let execute: ((params: unknown, pi: unknown, ctx: unknown) => unknown) | undefined;
let loadError: ForgeErrorData | undefined;

/** Starts the worker for its one tool: hardened, the facades in, the module evaluated, calls taken from then on. */
function begin(start: ToolWorkerData): void {
	data = start;
	tool = data.tool;
	broker = new BrokerClient(data.port);
	const { provide } = startWorker({ ...data, broker, brokeredFetch: true });
	pi = createPiFacade(broker);
	mapper = createPositionMapper(tool.code.map);
	Object.defineProperty(globalThis, "console", { value: capturing, configurable: true, writable: true });

	parentPort!.on("message", (message: ToWorker) => {
		if (message.type === "cancel") {
			calls.get(message.callId)?.abort(new Error("cancelled"));
			return;
		}
		void run(message.callId, message.params, message.context);
	});

	// After the worker's own handles exist and before the module's code runs: what the module and its calls start is theirs.
	scope = installCallScope(
		() => currentCall.getStore()?.callId,
		(callId) => calls.has(callId),
		() => calls.size > 0,
	);

	try {
		const exports = evaluateModule(tool.code.code, tool.path, coreLibraryRequire(tool.name, provide), capturing);
		if (typeof exports.execute === "function") execute = exports.execute as typeof execute;
		else loadError = { phase: "shape", message: `${tool.file} does not export an \`execute\` function.` };
	} catch (error) {
		const mapped = thrownData(error, tool, mapper);
		loadError = {
			...mapped,
			phase: mapped.phase === "runtime" ? "load" : mapped.phase,
			message: `Loading ${tool.file} failed: ${mapped.message}`,
		};
	}
}

// A spare (started ahead of the call that needs it, host/spare-worker.ts) waits for its one tool; its temp dir is set
// before anything reads it. Any other worker starts with its tool.
if (isSpare(workerData))
	parentPort!.once("message", (message: SpareStart) => {
		if (message.tmpdir) process.env.TMPDIR = message.tmpdir;
		begin(message.data);
	});
else begin(workerData as ToolWorkerData);

async function run(
	callId: number,
	params: Record<string, unknown>,
	context: { cwd: string; hasUI: boolean },
): Promise<void> {
	if (!execute) {
		postResult(callId, () => ({ ok: false, error: loadError! }));
		return;
	}
	const controller = new AbortController();
	calls.set(callId, controller);
	const output = new ConsoleBuffer((text) => post({ type: "console", callId, text }));
	consoles.set(callId, output);
	const ctx = {
		cwd: context.cwd,
		signal: controller.signal,
		toolName: tool.name,
		hasUI: context.hasUI,
		notify: (text: unknown, level?: unknown) =>
			post({
				type: "notify",
				callId,
				message: String(text).slice(0, MAX_NOTIFY_CHARS),
				level: level === "warning" || level === "error" ? level : "info",
			}),
	};
	try {
		const value = await currentCall.run({ callId }, () => execute!(params, pi, ctx));
		// The one place a call's value becomes pi's content blocks: pi's process reads them as they are.
		postResult(
			callId,
			() => ({
				ok: true,
				output: capOutput(normaliseResult(value), data.limits.outputBytes),
				console: output.text(),
			}),
			output.text(),
		);
	} catch (error) {
		const printed = output.text();
		postResult(
			callId,
			() => ({
				ok: false,
				error: {
					...thrownData(error, tool, mapper, { params, cwd: context.cwd }),
					...(printed === undefined ? {} : { console: printed }),
				},
			}),
			printed,
		);
	} finally {
		calls.delete(callId);
		consoles.delete(callId);
		if (calls.size === 0) reportIdle();
	}
}

/**
 * Once no call runs (and the microtasks queued by the last one have drained): what is left that could act later. The
 * host replaces a worker that has anything left, or that never gets this far (a loop or a microtask flood after its result).
 */
function reportIdle(): void {
	later(() => {
		if (calls.size > 0) return;
		const left = scope.leftovers();
		if (broker.waiting > 0) left.push(`${broker.waiting} request${broker.waiting === 1 ? "" : "s"} to pi's process`);
		post({ type: "idle", leftovers: left });
	});
}

/**
 * Sends a call's result as JSON text. Reading what the tool returned runs its getters and proxy traps: a value that
 * throws while it is read fails the call with what it threw.
 */
function postResult(callId: number, make: () => unknown, printed?: string): void {
	let json: string;
	try {
		json = toWireJson(make());
	} catch (error) {
		const why = safeMessage(error);
		const wire: ForgeErrorData = {
			phase: "runtime",
			message: `The tool's result cannot be read: reading it threw${why ? ` "${why}"` : ""}.`,
			hint: "Return plain data: a string, a JSON value or { content: [...] }.",
			...(printed === undefined ? {} : { console: printed }),
		};
		json = toWireJson({ ok: false, error: wire });
	}
	post({ type: "result", callId, json });
}
