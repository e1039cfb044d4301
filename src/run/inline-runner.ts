// Runs forged tools inside pi's process: fast, but it cannot stop a synchronous loop (the isolated runner can).
// A module's `console` is its own: what a call prints is kept for that call, not written to pi's terminal.
import { AsyncLocalStorage } from "node:async_hooks";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { createPositionMapper, type PositionMapper } from "../contract/source-map.ts";
import { ConsoleBuffer, createCapturingConsole } from "./console-capture.ts";
import { inlineCallerOperations } from "./inline-caller-operations.ts";
import { preflightLoad } from "./jiti-preflight.ts";
import { coreLibraryRequire, evaluateModule } from "./module-loader.ts";
import { normaliseResult } from "./result.ts";
import type { RunnableTool, Runner, RunOutcome, RunRequest, ToolContext } from "./runner.ts";
import { runtimeError, TIMEOUT_HINT } from "./runtime-error.ts";

type Execute = (params: unknown, pi: unknown, ctx: ToolContext) => unknown;

interface LoadedTool {
	hash: string;
	execute: Execute;
	mapper: PositionMapper;
}

export class InlineRunner implements Runner {
	readonly kind = "inline";
	readonly preflight = preflightLoad;
	readonly preflightReadsFile = true;
	private readonly loaded = new Map<string, LoadedTool>();
	/** The console buffer of the call whose code runs now (timers and promises it starts included). */
	private readonly calls = new AsyncLocalStorage<ConsoleBuffer>();
	private readonly console = createCapturingConsole(() => this.calls.getStore());

	async run(request: RunRequest): Promise<Result<RunOutcome>> {
		const { tool } = request;
		const loaded = this.load(tool);
		if (!loaded.ok) return loaded;
		const { execute, mapper } = loaded.value;

		const controller = new AbortController();
		const abortFromCaller = () => controller.abort(request.signal?.reason);
		request.signal?.addEventListener("abort", abortFromCaller, { once: true });
		let timer: NodeJS.Timeout | undefined;

		const ctx: ToolContext = {
			cwd: request.cwd,
			signal: controller.signal,
			toolName: tool.name,
			hasUI: request.host.hasUI,
			notify: (message, level) => request.host.notify(message, level),
		};
		const stopped = new Promise<never>((_, reject) => {
			timer = setTimeout(() => {
				controller.abort(new Error("deadline"));
				reject(
					new ForgeError(
						"timeout",
						`'${tool.name}' did not finish within ${request.timeoutMs} ms; the call was abandoned.`,
						{
							tool: tool.name,
							hint: TIMEOUT_HINT,
						},
					),
				);
			}, request.timeoutMs);
			controller.signal.addEventListener(
				"abort",
				() => {
					if (request.signal?.aborted)
						reject(new ForgeError("aborted", `'${tool.name}' was cancelled.`, { tool: tool.name }));
				},
				{ once: true },
			);
		});
		if (request.signal?.aborted) abortFromCaller();

		const output = new ConsoleBuffer();
		const pi = withUseTool(request, controller.signal);
		let value: unknown;
		try {
			value = await Promise.race([
				this.calls.run(output, () => Promise.resolve().then(() => execute(request.params, pi, ctx))),
				stopped,
			]);
		} catch (error) {
			const failure =
				error instanceof ForgeError
					? error
					: runtimeError(error, tool, mapper, { params: request.params, cwd: request.cwd });
			const printed = output.text();
			return fail(printed === undefined ? failure : failure.with({ console: printed }));
		} finally {
			clearTimeout(timer);
			request.signal?.removeEventListener("abort", abortFromCaller);
		}
		// The one place an inline call's value becomes pi's content blocks (the isolated runner's worker does it there).
		return ok({ output: normaliseResult(value), console: output.text() });
	}

	private load(tool: RunnableTool): Result<LoadedTool> {
		const key = tool.key ?? tool.name;
		const cached = this.loaded.get(key);
		if (cached?.hash === tool.hash) return ok(cached);
		const mapper = createPositionMapper(tool.code.map);
		try {
			const exports = evaluateModule(tool.code.code, tool.path, coreLibraryRequire(tool.name), this.console);
			if (typeof exports.execute !== "function") {
				return fail(
					new ForgeError("shape", `${tool.file} does not export an \`execute\` function.`, { tool: tool.name }),
				);
			}
			const loaded = { hash: tool.hash, execute: exports.execute as Execute, mapper };
			this.loaded.set(key, loaded);
			return ok(loaded);
		} catch (error) {
			const mapped = runtimeError(error, tool, mapper);
			return fail(
				new ForgeError(
					error instanceof ForgeError ? error.phase : "load",
					`Loading ${tool.file} failed: ${mapped.message}`,
					mapped.details,
				),
			);
		}
	}

	forget(name: string): void {
		this.loaded.delete(name);
	}

	async dispose(): Promise<void> {
		this.loaded.clear();
	}
}

/**
 * The `pi` an inline tool gets: pi's own, with `useTool` when the host offers it (the tools it calls act with pi's
 * access, as an inline tool does).
 */
function withUseTool(request: RunRequest, signal: AbortSignal): unknown {
	const { pi, useTool } = request.host;
	if (!useTool || typeof pi !== "object" || pi === null) return pi;
	const deadline = Date.now() + request.timeoutMs;
	const call = (name: unknown, args: unknown = {}) =>
		useTool.call(request.host, name, args, { ops: inlineCallerOperations, signal, deadline });
	return new Proxy(pi, {
		get: (target, key, receiver) => (key === "useTool" ? call : Reflect.get(target, key, receiver)),
	});
}
