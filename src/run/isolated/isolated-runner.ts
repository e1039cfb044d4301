// The default runner: forged tools run in a warm host process under Node's permission model, one worker thread per
// tool, with a deadline (a synchronous loop included), a heap cap and capped output. What a tool may not do itself
// is brokered here under the capability policy. A tool granted "inline" runs in pi's process instead.
import type { ChildProcess } from "node:child_process";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { ForgeConfig } from "../../config.ts";
import { ForgeError, fail, ok, type Result } from "../../contract/forge-error.ts";
import type { ModuleShape, PreflightLoader } from "../../forge/preflight.ts";
import type { AuditLog } from "../../policy/audit-log.ts";
import { safeEnvironment } from "../../policy/capability.ts";
import type { GrantsStore } from "../../policy/grants-store.ts";
import { protectedLocations } from "../../policy/protected.ts";
import { ConsoleBuffer } from "../console-capture.ts";
import { InlineRunner } from "../inline-runner.ts";
import type { RunHost, Runner, RunOutcome, RunRequest } from "../runner.ts";
import { TIMEOUT_HINT } from "../runtime-error.ts";
import { locateTypebox } from "../typebox.ts";
import { Broker, CALL_OVER, killGroup } from "./broker.ts";
import { hostBundle } from "./bundle.ts";
import { HostProcess } from "./host-process.ts";
import { nodeVersionOf } from "./node-flags.ts";
import { detectSandbox, type SandboxStatus } from "./os-sandbox.ts";
import { type FromHost, type Limits, PREFLIGHT_BATCH, PREFLIGHT_WORKER, type WireError } from "./protocol.ts";
import { runnerStartError } from "./runner-problems.ts";
import { readWirePreflight, readWireResult } from "./wire.ts";

export interface IsolatedRunnerOptions {
	config: ForgeConfig;
	grants: GrantsStore;
	audit: AuditLog;
	/** Where the host's bundle is built (a folder of the user's, e.g. <agentDir>/forge/runtime). */
	runtimeDir: string;
	/** Extra directories no tool may write (the forge's config and grants). */
	protectedDirs?: string[];
	/** Files no tool may read, by any way (the toolbox's health file and audit log). */
	unreadable?: string[];
}

/** How long a stopped worker may take to go before the whole host is killed. */
export const STOP_GRACE_MS = 250;
export const OUTPUT_CAP_BYTES = 10 * 1024 * 1024;

interface Pending {
	callId: number;
	tool: string;
	hash: string;
	host?: RunHost;
	finish(result: Result<unknown>): void;
	timer?: NodeJS.Timeout;
	armedAt: number;
	remaining: number;
	pauses: number;
	children: Set<ChildProcess>;
	/** The host the job was sent to: when it dies, the job fails; a host started after it is not concerned. */
	process: HostProcess;
	onTimeout(): void;
	/** The head of the call's console output as it arrives, for a failure that comes from here (deadline, crash). */
	printed: ConsoleBuffer;
	/** The commands that grant what the broker refused during the call (made here, in pi's process, not by the tool). */
	grants: string[];
}

export class IsolatedRunner implements Runner {
	readonly kind = "isolated";
	private host: HostProcess | undefined;
	private starting: Promise<HostProcess> | undefined;
	private readonly pending = new Map<number, Pending>();
	private readonly stopping = new Map<string, { process: HostProcess; timer: NodeJS.Timeout }>();
	private nextId = 1;
	private readonly inline = new InlineRunner();
	private readonly broker: Broker;
	/** The version number of each hash that ran, for the permission dialog. */
	private readonly versions = new Map<string, number>();
	private readonly projectDir: string;
	private readonly tempDir: string;
	private readonly limits: Limits;

	constructor(private readonly options: IsolatedRunnerOptions) {
		const { config } = options;
		this.projectDir = real(config.cwd);
		this.tempDir = real(tmpdir());
		this.limits = {
			memoryMb: config.maxMemoryMb,
			outputBytes: OUTPUT_CAP_BYTES,
			networkOff: config.policy !== "permissive",
		};
		this.broker = new Broker({
			policy: config.policy,
			projectDir: this.projectDir,
			tempDir: this.tempDir,
			// Protected whoever builds the runner: the forge's own files, and what pi, git and other agents run or trust.
			protected: protectedLocations({
				projectDir: this.projectDir,
				tempDir: this.tempDir,
				agentDir: real(config.agentDir),
				toolboxDir: real(config.toolboxDir),
				forgeHome: real(config.forgeHome),
				extra: [
					...new Set(
						[dirname(config.projectConfigFile), options.runtimeDir, ...(options.protectedDirs ?? [])].map(real),
					),
				],
			}),
			grants: options.grants,
			audit: options.audit,
			commandEnv: safeEnvironment(process.env),
			unreadable: (options.unreadable ?? []).map(real),
			network: config.policy === "permissive",
		});
	}

	/** Starts the host ahead of the first call (the first call then costs a warm call, not a process start). */
	warm(): void {
		this.ensureHost().catch(() => undefined);
	}

	private async inlineGranted(tool: string, hash: string): Promise<boolean> {
		if (this.options.config.policy === "strict") return false;
		await this.options.grants.refresh();
		return this.options.grants.get(this.projectDir, tool, hash).allow.includes("inline");
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
		if (!outcome.ok) {
			const hint = "Keep top-level code to the template; the logic runs inside execute.";
			const { phase } = outcome.error;
			const error =
				phase === "timeout"
					? new ForgeError(
							"load",
							`Loading ${file} did not finish within ${this.options.config.timeoutMs} ms: its top-level code never ends.`,
							{ hint },
						)
					: phase === "memory"
						? new ForgeError(
								"load",
								`Loading ${file} used more memory than allowed (PI_FORGE_MAX_MEMORY_MB=${this.limits.memoryMb}): its top-level code must stay small.`,
								{ hint },
							)
						: outcome.error;
			return fail(error);
		}
		return ok(outcome.value as ModuleShape);
	}

	async run(request: RunRequest): Promise<Result<RunOutcome>> {
		const { tool } = request;
		if (await this.inlineGranted(tool.name, tool.hash)) return this.inline.run(request);
		if (tool.version !== undefined) this.versions.set(tool.hash, tool.version);
		const started = performance.now();
		const key = tool.key ?? tool.name;
		this.called.add(key);
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
					tool: {
						name: tool.name,
						key,
						hash: tool.hash,
						file: tool.file,
						path: tool.path,
						code: tool.code.code,
						map: tool.code.map,
					},
					params: request.params,
					context: { cwd: request.cwd, hasUI: request.host.hasUI },
					limits: this.limits,
				}),
			request.signal,
		);
		this.options.audit.append({
			at: new Date().toISOString(),
			tool: tool.name,
			version: tool.hash,
			durationMs: Math.round(performance.now() - started),
			outcome: outcome.ok
				? "ok"
				: outcome.error.phase === "timeout" || outcome.error.phase === "aborted" || outcome.error.phase === "memory"
					? outcome.error.phase
					: "error",
			// Cut by the audit log once secrets are redacted: a cut here could halve a key past recognition.
			...(outcome.ok ? {} : { detail: outcome.error.message }),
		});
		return outcome as Result<RunOutcome>;
	}

	/** Sends one job to the host and settles it by its result, its deadline, cancellation or the host's death. */
	private async dispatch(
		tool: string,
		/** The worker the job runs in: stopped on a deadline or cancellation. */
		key: string,
		hash: string,
		host: RunHost | undefined,
		timeoutMs: number,
		send: (callId: number, host: HostProcess) => void,
		signal?: AbortSignal,
	): Promise<Result<unknown>> {
		let process: HostProcess;
		try {
			process = await this.ensureHost();
		} catch (error) {
			return fail(
				runnerStartError(tool, {
					error: error as Error,
					node: await this.node(),
					runtimeDir: this.options.runtimeDir,
				}),
			);
		}
		const callId = this.nextId++;
		return new Promise<Result<unknown>>((resolve) => {
			const entry: Pending = {
				callId,
				tool,
				hash,
				host,
				armedAt: 0,
				remaining: timeoutMs,
				pauses: 0,
				children: new Set(),
				process,
				printed: new ConsoleBuffer(),
				grants: [],
				finish: (result) => {
					if (!this.pending.has(callId)) return;
					this.pending.delete(callId);
					clearTimeout(entry.timer);
					signal?.removeEventListener("abort", onAbort);
					for (const child of entry.children) killGroup(child);
					const printed =
						result.ok || result.error.details.console !== undefined ? undefined : entry.printed.text();
					const grants = [...new Set(entry.grants)];
					resolve(
						result.ok || (printed === undefined && grants.length === 0)
							? result
							: fail(
									result.error.with({
										...(printed === undefined ? {} : { console: printed }),
										...(grants.length ? { grants } : {}),
									}),
								),
					);
				},
				onTimeout: () => {
					entry.finish(
						fail(
							new ForgeError("timeout", `'${tool}' did not finish within ${timeoutMs} ms and was stopped.`, {
								hint: TIMEOUT_HINT,
							}),
						),
					);
					this.stopTool(key, process);
				},
			};
			const onAbort = () => {
				process.send({ type: "cancel", callId });
				entry.finish(fail(new ForgeError("aborted", `'${tool}' was cancelled.`)));
				setTimeout(() => this.stopTool(key, process), STOP_GRACE_MS).unref();
			};
			this.pending.set(callId, entry);
			this.armDeadline(entry);
			if (signal?.aborted) return onAbort();
			signal?.addEventListener("abort", onAbort, { once: true });
			send(callId, process);
		});
	}

	private armDeadline(entry: Pending): void {
		entry.armedAt = Date.now();
		entry.timer = setTimeout(entry.onTimeout, entry.remaining);
	}

	/** The deadline does not run while a person is asked for a grant. */
	private pause(entry: Pending): () => void {
		if (entry.pauses++ === 0) {
			clearTimeout(entry.timer);
			entry.remaining -= Date.now() - entry.armedAt;
		}
		let resumed = false;
		return () => {
			if (resumed) return;
			resumed = true;
			if (--entry.pauses === 0 && this.pending.get(entry.callId) === entry) this.armDeadline(entry);
		};
	}

	/** Stops a tool's worker; if it is not gone within the grace period, the whole host goes. */
	private stopTool(tool: string, process: HostProcess): void {
		if (!process.alive || this.stopping.get(tool)?.process === process) return;
		process.send({ type: "stop", tool });
		const timer = setTimeout(() => {
			if (this.stopping.get(tool)?.timer === timer) this.stopping.delete(tool);
			this.retire(process);
		}, STOP_GRACE_MS);
		timer.unref();
		this.stopping.set(tool, { process, timer });
	}

	/** Ends a host at once: the calls still on it fail as it exits, and the next call starts a fresh one. */
	private retire(process: HostProcess): void {
		if (this.host === process) this.host = undefined;
		process.kill();
	}

	private onMessage(message: FromHost, from: HostProcess): void {
		switch (message.type) {
			case "result":
			case "preflight-result": {
				const entry = this.pending.get(message.callId);
				if (!entry) return;
				// JSON text made in the worker, read into checked plain data: nothing a tool returns reaches pi as an object of its own.
				const read = message.type === "result" ? readWireResult(message.json) : readWirePreflight(message.json);
				if (!read.ok) entry.finish(fail(toForgeError(read.error)));
				else entry.finish(ok("output" in read ? { value: read.output, console: read.console } : read.shape));
				return;
			}
			case "stopped": {
				const stop = this.stopping.get(message.tool);
				if (stop?.process !== from) return;
				clearTimeout(stop.timer);
				this.stopping.delete(message.tool);
				return;
			}
			case "recycle":
				this.retire(from);
				for (const result of message.results) this.onMessage(result, from);
				return;
			case "notify":
				this.pending.get(message.callId)?.host?.notify(message.message, message.level);
				return;
			case "console":
				this.pending.get(message.callId)?.printed.append(message.text);
				return;
			case "broker": {
				const own = this.pending.get(message.callId);
				const running = [...this.pending.values()].find((p) => p.tool === message.tool && p.hash === message.hash);
				// A request of a call that is over (its worker raced the deadline), of another tool's call, or from outside any
				// call (a module's timer) while none of its tool's calls runs, is not done: a call has no side effects after it ends.
				const entry =
					message.callId === 0
						? running
						: own?.tool === message.tool && own.hash === message.hash
							? own
							: undefined;
				if (!entry) {
					from.send({
						type: "broker-reply",
						requestId: message.requestId,
						reply: { ok: false, error: CALL_OVER },
					});
					return;
				}
				// A request outside any call (a module's top-level code) belongs to a running call of its tool: its deadline, its grants.
				const call = {
					tool: entry?.tool ?? message.tool,
					hash: entry?.hash ?? message.hash,
					version: this.versions.get(entry?.hash ?? message.hash),
					host: entry?.host,
					pause: entry ? () => this.pause(entry) : () => () => undefined,
					children: entry?.children ?? new Set<ChildProcess>(),
					alive: () => !entry || this.pending.get(entry.callId) === entry,
					refused: (grants: string[]) => entry?.grants.push(...grants),
				};
				void this.broker.handle(message.request, call).then((reply) => {
					try {
						from.send({ type: "broker-reply", requestId: message.requestId, reply });
					} catch (error) {
						from.send({
							type: "broker-reply",
							requestId: message.requestId,
							reply: {
								ok: false,
								error: {
									phase: "runtime",
									message: `The answer could not be sent back: ${(error as Error).message}`,
								},
							},
						});
					}
				});
				return;
			}
		}
	}

	private onExit(process: HostProcess, reason: string): void {
		if (this.host === process) this.host = undefined;
		for (const [tool, stop] of this.stopping) {
			if (stop.process !== process) continue;
			clearTimeout(stop.timer);
			this.stopping.delete(tool);
		}
		// V8 ends the whole process when a worker's heap overflows inside a garbage collection task.
		const outOfMemory = /heap out of memory|Reached heap limit|Allocation failed/i.test(reason);
		for (const entry of [...this.pending.values()]) {
			if (entry.process !== process) continue;
			entry.finish(
				fail(
					outOfMemory
						? new ForgeError(
								"memory",
								`'${entry.tool}' ran out of memory (PI_FORGE_MAX_MEMORY_MB=${this.limits.memoryMb}) and its runner was stopped: ${reason}.`,
								{
									hint: "Process the input in smaller pieces, or raise PI_FORGE_MAX_MEMORY_MB. The runner restarts on the next call.",
								},
							)
						: new ForgeError("runtime", `The tool's runner stopped: ${reason}.`, {
								hint: "The runner restarts on the next call; if this repeats, the tool may be exhausting memory.",
							}),
				),
			);
		}
	}

	private ensureHost(): Promise<HostProcess> {
		if (this.host?.alive) return Promise.resolve(this.host);
		this.starting ??= this.startHost().finally(() => {
			this.starting = undefined;
		});
		return this.starting;
	}

	/** The OS sandbox here, found out once (a trial run of bubblewrap). */
	private sandboxStatus: Promise<SandboxStatus> | undefined;
	sandbox(): Promise<SandboxStatus> {
		this.sandboxStatus ??= detectSandbox(this.options.config.sandbox);
		return this.sandboxStatus;
	}

	/** The Node that runs the host: PI_FORGE_NODE's, asked for its version once, or the one running pi. */
	private nodeInfo: Promise<{ path: string; version: string }> | undefined;
	private node(): Promise<{ path: string; version: string }> {
		const path = this.options.config.nodePath;
		this.nodeInfo ??= path
			? nodeVersionOf(path).then(
					(version) => ({ path, version }),
					() => ({ path, version: "unknown" }),
				)
			: Promise.resolve({ path: process.execPath, version: process.version });
		return this.nodeInfo;
	}

	private async startHost(): Promise<HostProcess> {
		const { config } = this.options;
		const [node, sandbox] = await Promise.all([this.node(), this.sandbox()]);
		this.broker.useSandbox(sandbox);
		const bundle = await hostBundle(this.options.runtimeDir);
		const host: HostProcess = new HostProcess(
			(message) => this.onMessage(message, host),
			(reason) => this.onExit(host, reason),
		);
		const typebox = locateTypebox();
		await host.start({
			node,
			bundle,
			cwd: config.cwd,
			readRoots: [this.projectDir, this.tempDir, real(config.toolboxDir), typebox.root],
			unreadable: (this.options.unreadable ?? []).map(real),
			network: !this.limits.networkOff,
			sandbox,
			env: safeEnvironment(process.env),
			typeboxPath: typebox.entry,
			rssLimitMb: config.maxMemoryMb + 512,
		});
		this.host = host;
		return host;
	}

	forget(name: string): void {
		this.inline.forget(name);
		// Only a worker that was given a call can hold the tool (a re-check of 1,000 tools sends no 1,000 stops).
		if (this.host?.alive && this.called.delete(name)) this.host.send({ type: "stop", tool: name });
	}
	/** Worker keys sent a call since they were last forgotten. */
	private readonly called = new Set<string>();

	async dispose(): Promise<void> {
		for (const entry of [...this.pending.values()])
			entry.finish(fail(new ForgeError("aborted", `'${entry.tool}' was stopped: pi is shutting down.`)));
		// A host still starting (warm() at session start) would outlive pi and keep it from exiting: wait for it, then kill it.
		const starting = this.starting?.catch(() => undefined);
		this.host?.kill();
		this.host = undefined;
		(await starting)?.kill();
		this.host = undefined;
		await this.options.audit.flush();
		await this.inline.dispose();
	}
}

function toForgeError(error: WireError): ForgeError {
	return new ForgeError(error.phase, error.message, {
		location: error.location,
		stack: error.stack,
		hint: error.hint,
		notes: error.notes,
		origin: error.origin,
		console: error.console,
	});
}

/** Symlinks resolved (macOS's /tmp is /private/tmp); for a path that does not exist yet, its nearest existing parent's. */
function real(path: string): string {
	try {
		return realpathSync.native(path);
	} catch {
		const parent = dirname(path);
		return parent === path ? path : join(real(parent), basename(path));
	}
}
