// pi's side of brokered capabilities: what a forged tool in the runner host asks for (a write, a read outside the
// project, a command, an environment variable, the in-process API) is put to the policy gate — which decides, asks a
// person through pi's UI where there is one, and audits — and only then done here, in pi's process, through the
// broker's operations.

import type { ChildProcess } from "node:child_process";
import { isAbsolute } from "node:path";
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import type { CallerOperations } from "../../../contract/tool-calls.ts";
import { FS_OPS } from "../fs-ops.ts";
import type { BrokerReply, BrokerRequest, ExecRequest, ExecResult, FsRequest, UseRequest } from "../protocol.ts";
import { fromError, useError } from "./broker-errors.ts";
import { createCallerOperations } from "./caller-operations.ts";
import { capabilitiesOf, changesNothing } from "./capabilities.ts";
import type { Capability } from "./capability.ts";
import { type BrokerOperations, nodeOperations } from "./operations.ts";
import type { SandboxStatus } from "./os-sandbox.ts";
import { isInside } from "./paths.ts";
import { openPlaceholderRecords } from "./placeholders.ts";
import type { GateCall, PolicyGate } from "./policy-gate.ts";

export interface BrokerSettings {
	gate: PolicyGate;
	/** Real paths (symlinks resolved). */
	projectDir: string;
	tempDir: string;
	/** pi's environment: what an environment variable request is answered from, once the gate allowed it. */
	env: Readonly<Record<string, string | undefined>>;
	/** The environment commands start from (the safe variables). */
	commandEnv: Record<string, string>;
	/** Real paths of files no tool may read, by any operation (the toolbox's health file and audit log). */
	unreadable?: readonly string[];
	/** The runner's runtime dir (no tool can write it): the placeholders of running commands are recorded in it. */
	runtimeDir?: string;
	/** The effects (default: Node's). */
	operations?: BrokerOperations;
}

/** The call a request belongs to; absent when the tool asks outside any call (e.g. while its module loads). */
export interface BrokerCall extends GateCall {
	/** Commands started for the call, killed with it. */
	children: Set<ChildProcess>;
	/** A forge's test: it writes only in its tool's private temp dir (`tempDir`), its commands too. */
	test?: boolean;
	/** `pi.useTool` of the call's tool, run by pi's wiring with `ops` acting as the caller; absent where there is none. */
	useTool?(name: string, args: unknown, ops: CallerOperations): Promise<unknown>;
}

/** The reply to a request whose call has ended. */
export const CALL_OVER: ForgeErrorData = {
	phase: "runtime",
	message: "The call this request belongs to is over (it finished, timed out or was cancelled).",
};

export class Broker {
	private fsQueue: Promise<unknown> = Promise.resolve();
	private sandbox: SandboxStatus = { kind: "none", reason: "not yet looked for" };
	private readonly operations: BrokerOperations;
	/** Where running commands' placeholders are recorded; what a pi killed hard left is removed here, at start. */
	private readonly placeholderRecords: string | undefined;

	constructor(private readonly settings: BrokerSettings) {
		this.operations = settings.operations ?? nodeOperations;
		this.placeholderRecords = settings.runtimeDir ? openPlaceholderRecords(settings.runtimeDir) : undefined;
	}

	/** Commands a tool was granted run in this OS sandbox from now on. */
	useSandbox(sandbox: SandboxStatus): void {
		this.sandbox = sandbox;
	}

	async handle(request: BrokerRequest, call: BrokerCall): Promise<BrokerReply> {
		if (request.kind === "use") return this.use(request, call);
		try {
			const capabilities = await this.capabilitiesOf(request);
			const unreadable = capabilities.find(
				(c) => c.kind === "fs-read" && isUnreadable(c.path, this.settings.unreadable ?? []),
			);
			if (unreadable && "path" in unreadable) {
				return {
					ok: false,
					error: {
						phase: "permission",
						message: `'${call.tool}' may not read ${unreadable.path}: it is one of Agent Forge's own files, which no forged tool may read.`,
						code: "EACCES",
					},
				};
			}
			// An own variable only: `toString` and the like are members every object inherits, not variables.
			const { env } = this.settings;
			if (request.kind === "env" && (typeof request.name !== "string" || !Object.hasOwn(env, request.name)))
				return { ok: true, value: undefined };
			const exec = capabilities[0]?.kind === "exec" ? capabilities[0] : undefined;
			// A program that is nowhere to be found fails as spawn would; what runs otherwise is the file that was shown.
			if (request.kind === "exec" && exec && !request.shell) {
				if (!isAbsolute(exec.program))
					return {
						ok: true,
						value: {
							stdout: "",
							stderr: "",
							status: null,
							signal: null,
							error: `spawn ${request.file} ENOENT`,
						} satisfies ExecResult,
					};
				// A program a tool can write runs with the content that was approved, or not at all (exec-command.ts).
				request = { ...request, file: exec.program, programDigest: exec.content } as ExecRequest;
			} else if (request.kind === "exec")
				// A shell line runs with the project files it names as they were approved (exec-command.ts).
				request = { ...request, programDigest: exec?.content } as ExecRequest;
			const pinned = capabilities.find((c) => "path" in c && isPisOwn(c.path));
			if (pinned && "path" in pinned) {
				return {
					ok: false,
					error: {
						phase: "permission",
						message: `'${call.tool}' may not read ${pinned.path}: it is pi's own process (its environment holds pi's keys), which no forged tool may read.`,
						code: "EACCES",
					},
				};
			}
			// Only inside the project and the temp dir: elsewhere, whether a folder exists is itself for the policy to decide.
			const { projectDir } = this.settings;
			const tempDir = call.tempDir ?? this.settings.tempDir;
			const within = capabilities.every(
				(c) => "path" in c && (isInside(c.path, projectDir) || isInside(c.path, tempDir)),
			);
			if (within && (await changesNothing(request, this.operations.isFolder))) return { ok: true, value: undefined };
			// A forge's test writes only in its tool's temp dir: a refused forge changes nothing.
			const testWrite = call.test
				? capabilities.find((c) => c.kind === "fs-write" && !isInside(c.path, call.tempDir ?? ""))
				: undefined;
			if (testWrite && "path" in testWrite) return { ok: false, error: testWriteRefusal(call, testWrite.path) };
			for (const capability of capabilities) {
				const refusal = await this.settings.gate.authorise(capability, call);
				if (refusal) return { ok: false, error: refusal };
			}
			// A person may answer after the call timed out or was cancelled: what it asked for is not done any more.
			if (!call.alive()) return { ok: false, error: CALL_OVER };
			if (request.kind !== "fs") return { ok: true, value: await this.perform(request, call) };
			return await this.performChecked(request, capabilities, call);
		} catch (error) {
			return { ok: false, error: fromError(error) };
		}
	}

	/**
	 * `pi.useTool`: no capability of its own. The tool it calls runs under its own grants; a built-in's file and
	 * command operations are this call's own requests, decided as the caller's (createCallerOperations).
	 */
	private async use(request: UseRequest, call: BrokerCall): Promise<BrokerReply> {
		if (!call.useTool)
			return { ok: false, error: { phase: "runtime", message: "pi.useTool is not available here." } };
		const ops = createCallerOperations({
			request: (asked) => this.handle(asked, call),
			mayWrite: (path) => this.mayWrite(path, call),
			unreadable: (path) =>
				this.settings.unreadable?.some((file) => path === file || path.startsWith(`${file}.`)) ?? false,
		});
		try {
			return { ok: true, value: await call.useTool(request.name, request.args, ops) };
		} catch (error) {
			return { ok: false, error: useError(error) };
		}
	}

	/** Whether the call's tool may write `path` (real path, as a write would be checked), doing nothing. */
	private async mayWrite(path: string, call: BrokerCall): Promise<BrokerReply> {
		try {
			const [capability] = await this.capabilitiesOf({ kind: "fs", action: "writeFile", args: [path] });
			const refusal = await this.settings.gate.authorise(capability!, call);
			return refusal ? { ok: false, error: refusal } : { ok: true, value: undefined };
		} catch (error) {
			return { ok: false, error: fromError(error) };
		}
	}

	private capabilitiesOf(request: BrokerRequest): Promise<Capability[]> {
		const { projectDir, tempDir, commandEnv } = this.settings;
		const writableRoots = [projectDir, tempDir];
		return capabilitiesOf(request, { projectDir, commandEnv, realpath: this.operations.realpath, writableRoots });
	}

	/**
	 * What was checked is what is done: file operations run one at a time (no other brokered operation, of any tool,
	 * can swap a folder for a link in between), on the paths as resolved for the check, which are resolved once more
	 * just before and must not have changed.
	 */
	private performChecked(request: FsRequest, checked: Capability[], call: BrokerCall): Promise<BrokerReply> {
		const run = this.fsQueue.then(async (): Promise<BrokerReply> => {
			// Its turn may come after the call ended (operations queued behind slow ones): then it is not done.
			if (!call.alive()) return { ok: false, error: CALL_OVER };
			const now = await this.capabilitiesOf(request);
			const paths = (capabilities: Capability[]) => capabilities.map((c) => ("path" in c ? c.path : "")).join("\0");
			if (paths(now) !== paths(checked)) {
				return {
					ok: false,
					error: {
						phase: "permission",
						message: `fs.${request.action}: a path changed while it was checked (a folder or link was swapped); nothing was done.`,
						code: "ERR_FORGE_PERMISSION",
					},
				};
			}
			const args = [...request.args];
			FS_OPS[request.action].paths.forEach(([index], i) => {
				args[index] = (checked[i] as { path: string }).path;
			});
			return { ok: true, value: await this.perform({ ...request, args }, call) };
		});
		// One operation that never ends (a file on a stuck mount) holds the queue for a bounded time only.
		let timer: NodeJS.Timeout | undefined;
		const bounded = Promise.race([
			run,
			new Promise<BrokerReply>((resolve) => {
				timer = setTimeout(() => resolve({ ok: false, error: tooSlow(request) }), FS_OPERATION_BOUND_MS);
				timer.unref?.();
			}),
		]).finally(() => clearTimeout(timer));
		this.fsQueue = bounded.catch(() => undefined);
		return bounded;
	}

	private async perform(request: BrokerRequest, call: BrokerCall): Promise<unknown> {
		const { settings, operations } = this;
		switch (request.kind) {
			case "fs":
				return operations.fs(request, settings.unreadable ?? []);
			case "exec":
				return operations.exec(request, {
					writable:
						call.test && call.tempDir ? [call.tempDir] : [settings.projectDir, call.tempDir ?? settings.tempDir],
					readOnly: settings.gate.protectedPaths(),
					unreadable: settings.unreadable ?? [],
					network: settings.gate.network,
					sandbox: this.sandbox,
					cwd: settings.projectDir,
					// The tool's private temp dir is its commands' too.
					env: call.tempDir ? { ...settings.commandEnv, TMPDIR: call.tempDir } : settings.commandEnv,
					children: call.children,
					...(this.placeholderRecords ? { recordDir: this.placeholderRecords } : {}),
				});
			case "env":
				return typeof settings.env[request.name] === "string" ? settings.env[request.name] : undefined;
			case "inline":
				return undefined;
			case "net":
				return operations.fetch(request, () => call.alive(), call.tool);
			case "use":
				return undefined;
		}
	}
}

/** How long one brokered file operation may hold the queue every tool's file operations wait in. */
export const FS_OPERATION_BOUND_MS = 10_000;

function tooSlow(request: FsRequest): ForgeErrorData {
	return {
		phase: "runtime",
		message: `fs.${request.action} took longer than ${FS_OPERATION_BOUND_MS / 1000} s in pi's process and was given up on.`,
		code: "ETIMEDOUT",
	};
}

/** A forge's test writing outside its tool's temp dir: a refused forge must leave the project as it was. */
function testWriteRefusal(call: BrokerCall, path: string): ForgeErrorData {
	return {
		phase: "permission",
		message: `'${call.tool}' may not write ${path} while a forge tests it: a forge's tests write only in the tool's private temp dir (process.env.TMPDIR), so that a forge that is refused changes nothing.`,
		hint: "Have the test's arguments name a path under process.env.TMPDIR (the tool's own temp dir), or test what the tool returns rather than what it writes.",
		code: "ERR_FORGE_PERMISSION",
	};
}

/** One of the files no tool may read, or a sibling named after it (the audit log's older part, a file being written). */
export function isUnreadable(path: string, unreadable: readonly string[]): boolean {
	return unreadable.some((file) => path === file || path.startsWith(`${file}.`));
}

/** pi's own process under /proc (`/proc/self` resolves to it), and any process's environment and memory. */
function isPisOwn(path: string): boolean {
	return (
		isInside(path, `/proc/${process.pid}`) ||
		isInside(path, "/proc/self") ||
		isInside(path, "/proc/thread-self") ||
		PROCESS_SECRETS.test(path)
	);
}

/** Any process's environment and memory (pi's commands inherit its keys): read as pi's own. */
const PROCESS_SECRETS = /^\/proc\/\d+(\/task\/\d+)?\/(environ|mem|auxv)$/;
