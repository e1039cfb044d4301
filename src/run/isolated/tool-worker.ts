// A worker thread in the runner host that runs one forged tool: its code arrives with the worker (it never reads the
// toolbox), its modules are the facades, and what it returns or throws goes back as JSON text made here (wire.ts), with
// what each call printed to the console (the worker's console, global included, writes into the buffer of the call that prints).
import { createRequire } from "node:module";
import * as path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { ForgeError } from "../../contract/forge-error.ts";
import { createPositionMapper } from "../../contract/source-map.ts";
import { ConsoleBuffer, createCapturingConsole } from "../console-capture.ts";
import type { CallInput } from "../error-origin.ts";
import { coreLibraryRequire, evaluateModule } from "../module-loader.ts";
import { type ContentBlock, normaliseResult, type ToolOutput } from "../result.ts";
import type { RunnableTool } from "../runner.ts";
import { runtimeError } from "../runtime-error.ts";
import { installCallScope } from "./call-scope.ts";
import { createChildProcessFacade } from "./facades/child-process.ts";
import { createPiFacade, installEnvironment } from "./facades/environment.ts";
import { createBrokeredFetch } from "./facades/fetch.ts";
import { createFsFacade } from "./facades/fs.ts";
import { harden } from "./harden.ts";
import type { FromWorker, ToolWorkerData, ToWorker, WireError } from "./protocol.ts";
import { toJsonValue, toWireJson } from "./wire.ts";
import { BrokerClient, BrokerError, currentCall } from "./worker-broker.ts";

const data = workerData as ToolWorkerData;
const post = (message: FromWorker) => parentPort!.postMessage(message);
const broker = new BrokerClient(data.port);
const cwd = process.cwd();

harden(data.limits);
installEnvironment(broker, data.safeEnv);
// Kept off the network, a tool still fetches: each host is a capability pi's process decides on, and makes the request.
if (data.limits.networkOff) globalThis.fetch = createBrokeredFetch(broker, () => ({ Request, Response }));

const { fs, promises } = createFsFacade(broker, data.roots, cwd, data.unreadable);
const childProcess = createChildProcessFacade(broker);
const modules: Record<string, unknown> = {
	fs,
	"fs/promises": promises,
	path,
	"path/posix": path.posix,
	"path/win32": path.win32,
	child_process: childProcess,
};
const provide = (specifier: string) => {
	const bare = specifier.replace(/^node:/, "");
	if (Object.hasOwn(modules, bare)) return modules[bare];
	return createRequire(import.meta.url)(data.typeboxPath);
};
const pi = createPiFacade(broker);
const tool: RunnableTool = { ...data.tool, code: { code: data.tool.code, map: data.tool.map } };
const mapper = createPositionMapper(data.tool.map);
const consoles = new Map<number, ConsoleBuffer>();
const capturing = createCapturingConsole(() => consoles.get(currentCall.getStore()?.callId ?? 0));
Object.defineProperty(globalThis, "console", { value: capturing, configurable: true, writable: true });

const calls = new Map<number, AbortController>();
/** A notification is a line for a person, not a channel for data. */
const MAX_NOTIFY_CHARS = 2000;
const later = setImmediate;

parentPort!.on("message", (message: ToWorker) => {
	if (message.type === "cancel") {
		calls.get(message.callId)?.abort(new Error("cancelled"));
		return;
	}
	void run(message.callId, message.params, message.context);
});

// After the worker's own handles exist and before the module's code runs: what the module and its calls start is theirs.
const scope = installCallScope(
	() => currentCall.getStore()?.callId,
	(callId) => calls.has(callId),
	() => calls.size > 0,
);

let execute: ((params: unknown, pi: unknown, ctx: unknown) => unknown) | undefined;
let loadError: WireError | undefined;
try {
	const exports = evaluateModule(
		data.tool.code,
		data.tool.path,
		coreLibraryRequire(data.tool.name, provide),
		capturing,
	);
	if (typeof exports.execute === "function") execute = exports.execute as typeof execute;
	else loadError = { phase: "shape", message: `${data.tool.file} does not export an \`execute\` function.` };
} catch (error) {
	const mapped = toWire(error);
	loadError = {
		...mapped,
		phase: mapped.phase === "runtime" ? "load" : mapped.phase,
		message: `Loading ${data.tool.file} failed: ${mapped.message}`,
	};
}

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
		toolName: data.tool.name,
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
					...toWire(error, { params, cwd: context.cwd }),
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
		const wire: WireError = {
			phase: "runtime",
			message: `The tool's result cannot be read: reading it threw${why ? ` "${why}"` : ""}.`,
			hint: "Return plain data: a string, a JSON value or { content: [...] }.",
			...(printed === undefined ? {} : { console: printed }),
		};
		json = toWireJson({ ok: false, error: wire });
	}
	post({ type: "result", callId, json });
}

function safeMessage(error: unknown): string | undefined {
	try {
		const message = error instanceof Error ? error.message : undefined;
		return typeof message === "string" ? message.slice(0, 500) : undefined;
	} catch {
		return undefined;
	}
}

/** A throw as data; a thrown value that fights being read (throwing getters, a hostile Proxy) still fails the call. */
function toWire(error: unknown, input?: CallInput): WireError {
	try {
		return describeThrow(error, input);
	} catch {
		return {
			phase: "runtime",
			message: "The tool threw a value that cannot be read (reading it throws).",
			hint: "Throw an Error with a plain message.",
		};
	}
}

function describeThrow(error: unknown, input?: CallInput): WireError {
	if (error instanceof ForgeError)
		return { phase: error.phase, message: error.message, hint: error.details.hint, origin: error.details.origin };
	const mapped = runtimeError(error, tool, mapper, input);
	const { location, stack, hint, origin } = mapped.details;
	const wire: WireError = { phase: mapped.phase, message: mapped.message, location, stack, hint, origin };
	if (error instanceof BrokerError) {
		// The broker's own words (a refusal names the grant), kept whole; an fs error it relayed is still read for its origin.
		return {
			...wire,
			phase: error.wire.phase,
			message: error.wire.message,
			hint: error.wire.hint ?? wire.hint,
			notes: error.wire.notes,
			origin: error.wire.phase === "permission" ? "permission" : origin,
		};
	}
	return wire;
}

/** Output beyond the cap (text, images, details together) never crosses the thread boundary (pi truncates further for the model). */
function capOutput(output: ToolOutput, maxBytes: number): ToolOutput {
	let budget = maxBytes;
	const kb = (bytes: number) => Math.round(bytes / 1024);
	// Index loops, not Array.prototype.map: the tool's code may have replaced it in this worker.
	const content: ContentBlock[] = [];
	for (let i = 0; i < output.content.length; i++) {
		const block = output.content[i];
		if (block.type === "image") {
			const bytes = block.data.length;
			if (bytes <= budget) {
				budget -= bytes;
				content[i] = block;
			} else
				content[i] = {
					type: "text",
					text: `[an image of ${kb(bytes)} KB was left out: the output is capped at ${kb(maxBytes)} KB]`,
				};
			continue;
		}
		const bytes = Buffer.byteLength(block.text);
		if (bytes <= budget) {
			budget -= bytes;
			content[i] = block;
			continue;
		}
		const kept = Buffer.from(block.text).subarray(0, Math.max(0, budget)).toString();
		budget = 0;
		content[i] = { type: "text", text: `${kept}\n[output cut at ${kb(maxBytes)} KB of ${kb(bytes)} KB]` };
	}
	if (output.details === undefined) return { content };
	// Details as JSON sees them (functions, symbols, ports and modules are nothing to JSON), bounded in depth.
	const details = toJsonValue(output.details);
	const detailBytes = Buffer.byteLength(toWireJson(details));
	if (detailBytes > budget) {
		content[content.length] = {
			type: "text",
			text: `[details of ${kb(detailBytes)} KB were left out: the output is capped at ${kb(maxBytes)} KB]`,
		};
		return { content };
	}
	return details === undefined ? { content } : { content, details };
}
