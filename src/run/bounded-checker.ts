// Runs what a model wrote as a regular expression (a test's `matches`, a schema's `pattern`) or a glob (find's
// pattern through pi.useTool) off pi's main thread, in a worker thread with a deadline and a heap limit: catastrophic
// backtracking, a brace expansion that explodes, or a schema whose `$ref`s validate in exponential time, costs that
// worker (terminated, and started again for the next job), never pi's event loop.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { BoundedValidator, ValidationVerdict } from "../schema/bounded-validator.ts";

export type { ValidationVerdict } from "../schema/bounded-validator.ts";
export type MatchVerdict = boolean | "timeout" | { error: string };
export type GlobVerdict = boolean[] | "timeout" | { error: string };

type Job =
	| { kind: "matches"; pattern: string; text: string }
	| { kind: "glob"; pattern: string; subjects: string[] }
	| { kind: "validate"; schema: Record<string, unknown>; data: unknown };

// CommonJS in the worker (eval): Ajv configured as src/schema/ajv.ts configures pi's own, validators cached by schema text.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const AjvModule = require(workerData.ajvPath);
const Ajv = AjvModule.Ajv ?? AjvModule.default ?? AjvModule;
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true, validateSchema: true });
const { Minimatch } = require(workerData.minimatchPath);
const compiled = new Map();
const globs = new Map();
parentPort.on("message", ({ id, job }) => {
	try {
		if (job.kind === "matches") return parentPort.postMessage({ id, verdict: new RegExp(job.pattern).test(job.text) });
		if (job.kind === "glob") {
			let glob = globs.get(job.pattern);
			if (!glob) {
				if (globs.size >= 50) globs.clear();
				glob = new Minimatch(job.pattern, { dot: true });
				globs.set(job.pattern, glob);
			}
			return parentPort.postMessage({ id, verdict: job.subjects.map((subject) => glob.match(subject)) });
		}
		const key = JSON.stringify(job.schema);
		let validate = compiled.get(key);
		if (!validate) {
			if (compiled.size >= 200) compiled.clear();
			validate = ajv.compile(job.schema);
			compiled.set(key, validate);
		}
		const data = job.data;
		const valid = validate(data);
		parentPort.postMessage({ id, verdict: valid ? { valid: true, data } : { valid: false, errors: JSON.parse(JSON.stringify(validate.errors ?? [])) } });
	} catch (error) {
		parentPort.postMessage({ id, verdict: { error: String(error && error.message || error) } });
	}
});
`;

/** The checking worker's heap: a job that needs more (a brace expansion of millions of patterns) ends that worker. */
const CHECKER_HEAP_MB = 256;
const TIMED_OUT_KEPT = 200;
/** Jobs longer than this as text are not remembered when they time out. */
const MAX_KEY_LENGTH = 64 * 1024;

/** A job as text, to remember that it timed out; undefined for one too large to keep (or to write as JSON). */
function jobKey(job: Job): string | undefined {
	try {
		const key = JSON.stringify(job);
		return key.length <= MAX_KEY_LENGTH ? key : undefined;
	} catch {
		return undefined;
	}
}

export class BoundedChecker implements BoundedValidator {
	private worker: Worker | undefined;
	/** Jobs that ran out of time, by their text (the latest TIMED_OUT_KEPT). */
	private readonly timedOut = new Set<string>();
	private queue: Promise<unknown> = Promise.resolve();
	private nextId = 1;

	/** Whether `pattern` matches `text`, decided within `timeoutMs`. */
	matches(pattern: string, text: string, timeoutMs: number, signal?: AbortSignal): Promise<MatchVerdict> {
		return this.run({ kind: "matches", pattern, text }, timeoutMs, signal) as Promise<MatchVerdict>;
	}

	/** Which of `subjects` (paths or names) the glob `pattern` matches (minimatch, dot files included), within `timeoutMs`. */
	globMatches(pattern: string, subjects: string[], timeoutMs: number, signal?: AbortSignal): Promise<GlobVerdict> {
		return this.run({ kind: "glob", pattern, subjects }, timeoutMs, signal) as Promise<GlobVerdict>;
	}

	/** Validates (and coerces, as pi's own validation does) a copy of `data` against `schema`, within `timeoutMs`. */
	validate(
		schema: Record<string, unknown>,
		data: unknown,
		timeoutMs: number,
		signal?: AbortSignal,
	): Promise<ValidationVerdict> {
		return this.run({ kind: "validate", schema, data }, timeoutMs, signal) as Promise<ValidationVerdict>;
	}

	/**
	 * One job at a time: a job's deadline counts its own work, not a queue in front of it. A job whose call is over
	 * (`signal`) by its turn is not run, and a job that ran out of time once answers "timeout" at once when asked again,
	 * so a tool that queues many slow checks holds the others up for its own call at most.
	 */
	private run(job: Job, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
		const key = jobKey(job);
		if (key !== undefined && this.timedOut.has(key)) return Promise.resolve("timeout");
		const result = this.queue.then(async () => {
			if (signal?.aborted) return { error: "the call ended before its check ran" };
			const verdict = await this.runNow(job, timeoutMs);
			if (verdict === "timeout" && key !== undefined) {
				if (this.timedOut.size >= TIMED_OUT_KEPT) this.timedOut.delete(this.timedOut.values().next().value!);
				this.timedOut.add(key);
			}
			return verdict;
		});
		this.queue = result.catch(() => undefined);
		return result;
	}

	private runNow(job: Job, timeoutMs: number): Promise<unknown> {
		const worker = this.ensureWorker();
		const id = this.nextId++;
		return new Promise((resolve) => {
			const done = (verdict: unknown) => {
				clearTimeout(timer);
				worker.off("message", onMessage);
				worker.off("error", onError);
				worker.off("exit", onError);
				resolve(verdict);
			};
			const onMessage = (message: { id: number; verdict: unknown }) => {
				if (message.id === id) done(message.verdict);
			};
			const onError = (error?: Error & { code?: string }) => {
				this.forgetWorker(worker);
				done({
					error:
						error?.code === "ERR_WORKER_OUT_OF_MEMORY"
							? `the check needed more than ${CHECKER_HEAP_MB} MB of memory`
							: "the checking worker stopped",
				});
			};
			const timer = setTimeout(() => {
				this.forgetWorker(worker);
				void worker.terminate();
				done("timeout");
			}, timeoutMs);
			worker.on("message", onMessage);
			worker.on("error", onError);
			worker.on("exit", onError);
			try {
				worker.postMessage({ id, job });
			} catch (error) {
				done({ error: (error as Error).message });
			}
		});
	}

	private ensureWorker(): Worker {
		if (this.worker) return this.worker;
		const resolveModule = createRequire(import.meta.url).resolve;
		const workerData = { ajvPath: resolveModule("ajv"), minimatchPath: resolveModule("minimatch") };
		// Its output is piped and never read (it prints nothing: a schema check or a regular expression): a read stream
		// would keep pi's process alive after its last run, where the unref'd worker does not.
		const worker = new Worker(WORKER_SOURCE, {
			eval: true,
			workerData,
			stdout: true,
			stderr: true,
			resourceLimits: { maxOldGenerationSizeMb: CHECKER_HEAP_MB },
		});
		// An idle checker never keeps pi from exiting.
		worker.unref();
		// A worker dropped after its deadline may still report running out of memory as it ends: with no job listening
		// any more, that is nobody's error (an 'error' event without a listener would end pi's process).
		worker.on("error", () => undefined);
		this.worker = worker;
		return worker;
	}

	private forgetWorker(worker: Worker): void {
		if (this.worker === worker) this.worker = undefined;
	}

	async dispose(): Promise<void> {
		const worker = this.worker;
		this.worker = undefined;
		await worker?.terminate();
	}
}

let shared: BoundedChecker | undefined;

/** The process's checker (one worker for every toolbox in it). */
export function sharedChecker(): BoundedChecker {
	shared ??= new BoundedChecker();
	return shared;
}
