// The default runner: forged tools run in a warm host process under Node's permission model, one worker thread per
// tool, with a deadline (a synchronous loop included), a heap cap and capped output. What a tool may not do itself
// is put to the policy gate and done by the broker here, in pi's process. A tool granted "inline" runs in pi's
// process instead. This file wires the parts: the call table, the host supervisor, the broker and the gate.
import type { ForgeConfig } from "../../../contract/config.ts";
import { fail, fromData, ok, type Result } from "../../../contract/forge-error.ts";
import type { ModuleShape, PreflightLoader } from "../../../contract/module-shape.ts";
import type { CallerOperations } from "../../../contract/tool-calls.ts";
import { InlineRunner } from "../../inline-runner.ts";
import type { Runner, RunOutcome, RunRequest } from "../../runner.ts";
import { type BrokerReply, type FromHost, type Limits, PREFLIGHT_BATCH, PREFLIGHT_WORKER } from "../protocol.ts";
import { readWirePreflight, readWireResult } from "../wire.ts";
import { Broker, type BrokerCall, CALL_OVER } from "./broker.ts";
import { callRecord } from "./call-record.ts";
import { CallTable, type PendingCall } from "./call-table.ts";
import { readFromHost, sendReply } from "./host-messages.ts";
import type { HostProcess } from "./host-process.ts";
import { HostSupervisor, STOP_GRACE_MS } from "./host-supervisor.ts";
import type { SandboxStatus } from "./os-sandbox.ts";
import { real } from "./paths.ts";
import type { PolicyGate } from "./policy-gate.ts";
import { ensureToolTempDir, makeTempRoot, removeTempRoot, toolTempDir } from "./private-temp.ts";
import { runnerStartError } from "./runner-problems.ts";
import { hostExitError, preflightFailure, shutdownError } from "./wire-errors.ts";

export interface IsolatedRunnerOptions {
	config: ForgeConfig;
	/** The capability policy (policy/gate.ts builds it). */
	gate: PolicyGate;
	/** Where the host's bundle is built (a folder of the user's, e.g. <agentDir>/forge/runtime). */
	runtimeDir: string;
	/** Files no tool may read, by any way (the toolbox's health file and audit log). */
	unreadable?: string[];
}

export const OUTPUT_CAP_BYTES = 10 * 1024 * 1024;

export class IsolatedRunner implements Runner {
	readonly kind = "isolated";
	private readonly calls = new CallTable();
	private readonly inline = new InlineRunner();
	private readonly broker: Broker;
	private readonly host: HostSupervisor;
	private readonly gate: PolicyGate;
	/** The version number of each hash that ran, for the permission dialog. */
	private readonly versions = new Map<string, number>();
	private readonly limits: Limits;
	/** Worker keys sent a call since they were last forgotten. */
	private readonly called = new Set<string>();

	/** The runner's own folder in the OS temp dir: each tool's private temp dir is in it (private-temp.ts). */
	private readonly tempRoot: string;

	constructor(private readonly options: IsolatedRunnerOptions) {
		const { config, gate } = options;
		this.tempRoot = makeTempRoot(config.realTempDir);
		this.gate = gate;
		this.limits = { memoryMb: config.maxMemoryMb, outputBytes: OUTPUT_CAP_BYTES, networkOff: !gate.network };
		const unreadable = (options.unreadable ?? []).map(real);
		this.broker = new Broker({
			gate,
			projectDir: config.realCwd,
			tempDir: this.tempRoot,
			env: config.env,
			commandEnv: config.safeEnv,
			unreadable,
			runtimeDir: options.runtimeDir,
		});
		this.host = new HostSupervisor({
			config,
			runtimeDir: options.runtimeDir,
			readRoots: [config.realCwd, this.tempRoot, real(config.toolboxDir)],
			tempRoot: this.tempRoot,
			unreadable,
			network: gate.network,
			onMessage: (message, from) => this.onMessage(message, from),
			onExit: (process, reason) => this.onExit(process, reason),
			onSandbox: (sandbox) => this.broker.useSandbox(sandbox),
		});
	}

	/** Starts the host ahead of the first call (the first call then costs a warm call, not a process start). */
	warm(): void {
		this.host.ensure().catch(() => undefined);
	}

	/** The OS sandbox here, found out once. */
	sandbox(): Promise<SandboxStatus> {
		return this.host.sandbox();
	}

	readonly preflight: PreflightLoader = (...args) => this.preflightIn(false, ...args);

	/** Re-checks of files on disk: the host's batch pool, which keeps each load's deadline itself. */
	readonly preflightBatch: PreflightLoader = (...args) => this.preflightIn(true, ...args);

	private async preflightIn(
		batch: boolean,
		...[stagedPath, cjs, expectedName, file, map]: Parameters<PreflightLoader>
	): ReturnType<PreflightLoader> {
		const { timeoutMs } = this.options.config;
		// A batch load may wait behind others in the host: this deadline only covers a host that stopped answering.
		const deadline = batch ? timeoutMs * 8 + 5_000 : timeoutMs;
		const key = batch ? PREFLIGHT_BATCH : PREFLIGHT_WORKER;
		const outcome = await this.dispatch(key, key, "", undefined, deadline, (callId, host) =>
			host.send({
				type: "preflight",
				callId,
				stagedPath,
				code: cjs,
				map,
				expectedName,
				file,
				limits: this.limits,
				...(batch ? { batch: { timeoutMs } } : {}),
			}),
		);
		if (!outcome.ok)
			return fail(
				preflightFailure(outcome.error, file, { timeoutMs, memoryMb: this.limits.memoryMb }) ?? outcome.error,
			);
		return ok(outcome.value as ModuleShape);
	}

	async run(request: RunRequest): Promise<Result<RunOutcome>> {
		const { tool } = request;
		if (await this.gate.runsInline(tool.name, tool.hash)) return this.inline.run(request);
		if (tool.version !== undefined) this.versions.set(tool.hash, tool.version);
		const started = performance.now();
		const key = tool.key ?? tool.name;
		ensureToolTempDir(this.tempRoot, tool.name);
		this.called.add(key);
		const { version: _version, ...sent } = tool;
		const outcome = await this.dispatch(
			tool.name,
			key,
			tool.hash,
			request.host,
			request.timeoutMs,
			(callId, host) =>
				host.send({
					type: "call",
					callId,
					tool: { ...sent, key },
					params: request.params,
					context: { cwd: request.cwd, hasUI: request.host.hasUI },
					limits: this.limits,
				}),
			request.signal,
			request.test,
		);
		this.gate.recordCall(callRecord(tool, started, outcome));
		return outcome as Result<RunOutcome>;
	}

	/** Sends one job to the host and settles it by its result, its deadline, cancellation or the host's death. */
	private async dispatch(
		tool: string,
		/** The worker the job runs in: stopped on a deadline or cancellation. */
		key: string,
		hash: string,
		host: RunRequest["host"] | undefined,
		timeoutMs: number,
		send: (callId: number, host: HostProcess) => void,
		signal?: AbortSignal,
		/** A forge's test: it writes only in its tool's private temp dir. */
		test?: boolean,
	): Promise<Result<unknown>> {
		let process: HostProcess;
		try {
			process = await this.host.ensure();
		} catch (error) {
			const node = await this.host.node();
			return fail(runnerStartError(tool, { error: error as Error, node, runtimeDir: this.options.runtimeDir }));
		}
		return this.calls.open(
			{
				tool,
				hash,
				host,
				timeoutMs,
				process,
				signal,
				...(test ? { test: true } : {}),
				onDeadline: () => this.host.stopTool(key, process),
				onCancel: (callId) => {
					process.send({ type: "cancel", callId });
					setTimeout(() => this.host.stopTool(key, process), STOP_GRACE_MS).unref();
				},
			},
			(callId) => send(callId, process),
		);
	}

	private onMessage(raw: FromHost, from: HostProcess): void {
		// The host runs tools' code: what it sends is checked before anything here acts on it.
		const message = readFromHost(raw);
		if (!message) return;
		switch (message.type) {
			case "result":
			case "preflight-result": {
				const call = this.calls.get(message.callId);
				if (!call) return;
				// JSON text made in the worker, read into checked plain data: nothing a tool returns reaches pi as an object of its own.
				const read = message.type === "result" ? readWireResult(message.json) : readWirePreflight(message.json);
				if (!read.ok) call.finish(fail(fromData(read.error)));
				else call.finish(ok("output" in read ? { output: read.output, console: read.console } : read.shape));
				return;
			}
			case "stopped":
				this.host.stopped(message.tool, from);
				return;
			case "recycle":
				this.host.retire(from);
				for (const result of message.results) this.onMessage(result, from);
				return;
			case "notify":
				this.calls.notify(message.callId, message.message, message.level);
				return;
			case "console":
				this.calls.get(message.callId)?.printed.append(message.text);
				return;
			case "busy":
				this.calls.busy(message.callId);
				return;
			case "broker":
				this.relay(message, from);
				return;
		}
	}

	/**
	 * A tool's request, done for the call it belongs to. A request of a call that is over (its worker raced the
	 * deadline), of another tool's call, or from outside any call (a module's timer) while none of its tool's calls
	 * runs, is not done: a call has no side effects after it ends.
	 */
	private relay(message: Extract<FromHost, { type: "broker" }>, from: HostProcess): void {
		const own = this.calls.get(message.callId);
		const entry =
			message.callId === 0
				? this.calls.running(message.tool, message.hash)
				: own?.tool === message.tool && own.hash === message.hash
					? own
					: undefined;
		const reply = (reply: BrokerReply) => sendReply(from, message.requestId, reply);
		if (!entry) {
			reply({ ok: false, error: CALL_OVER });
			return;
		}
		void this.broker.handle(message.request, this.brokerCall(entry, message.blocking === true)).then(reply);
	}

	/** A request outside any call belongs to a running call of its tool (its deadline, its grants). */
	private brokerCall(entry: PendingCall, blocking: boolean): BrokerCall {
		const useTool = entry.host?.useTool?.bind(entry.host);
		return {
			tool: entry.tool,
			hash: entry.hash,
			version: this.versions.get(entry.hash),
			host: entry.host,
			pause: () => this.calls.pause(entry, blocking),
			children: entry.children,
			alive: () => this.calls.isOpen(entry),
			tempDir: toolTempDir(this.tempRoot, entry.tool),
			...(entry.test ? { test: true } : {}),
			ended: entry.ended,
			refused: (grants: string[]) => entry.grants.push(...grants),
			...(useTool
				? {
						useTool: (name: string, args: unknown, ops: CallerOperations) =>
							useTool(name, args, { ops, signal: entry.ended, deadline: entry.deadline }),
					}
				: {}),
		};
	}

	private onExit(process: HostProcess, reason: string): void {
		this.host.exited(process);
		for (const call of this.calls.all()) {
			if (call.process !== process) continue;
			call.finish(fail(hostExitError(call.tool, reason, this.limits.memoryMb)));
		}
	}

	forget(name: string): void {
		this.inline.forget(name);
		// Only a worker that was given a call can hold the tool (a re-check of 1,000 tools sends no 1,000 stops).
		const host = this.host.current;
		if (host && this.called.delete(name)) host.send({ type: "stop", tool: name });
	}

	async dispose(): Promise<void> {
		for (const call of this.calls.all()) call.finish(fail(shutdownError(call.tool)));
		await this.host.dispose();
		await this.gate.flush();
		await this.inline.dispose();
		removeTempRoot(this.tempRoot);
	}
}
