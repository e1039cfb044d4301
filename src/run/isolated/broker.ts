// pi's side of brokered capabilities: what a forged tool in the runner host asks for (a write, a read outside the
// project, a command, an environment variable, the in-process API) is decided by the policy — asking a person through
// pi's UI where there is one — written to the audit log, and only then done here, in pi's process.
import { type ChildProcess, spawn } from "node:child_process";
import { constants as fsConstants, readdirSync } from "node:fs";
import * as fsPromises from "node:fs/promises";
import { basename, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ForgePolicy } from "../../config.ts";
import type { AuditLog } from "../../policy/audit-log.ts";
import {
	type Capability,
	capabilityKey,
	describeCapability,
	digestKey,
	type EnvChange,
} from "../../policy/capability.ts";
import { type Decision, decide, grantCommands, REASONS, refusalHint } from "../../policy/decide.ts";
import { permissionTitle } from "../../policy/display.ts";
import type { GrantsStore } from "../../policy/grants-store.ts";
import { INSTRUCTION_FILES, type ProtectedLocation } from "../../policy/protected.ts";
import { shellQuote } from "../../policy/terminal-text.ts";
import { redactSecrets, sensitiveEnvValues } from "../../security/redact.ts";
import type { RunHost } from "../runner.ts";
import { type EncodedDirents, type EncodedStats, FS_OPS, isFsOp } from "./fs-ops.ts";
import { type SandboxStatus, sandboxed } from "./os-sandbox.ts";
import type {
	BrokerReply,
	BrokerRequest,
	ExecRequest,
	ExecResult,
	FsRequest,
	NetRequest,
	NetResult,
	WireError,
} from "./protocol.ts";
import { resolveProgram } from "./resolve-program.ts";

export interface BrokerSettings {
	policy: ForgePolicy;
	/** Real paths (symlinks resolved). */
	projectDir: string;
	tempDir: string;
	/** Locations no tool may write (see policy/protected.ts). */
	protected: readonly ProtectedLocation[];
	grants: GrantsStore;
	audit: AuditLog;
	/** The environment commands start from (the safe variables). */
	commandEnv: Record<string, string>;
	/** Whether commands keep the network (in the OS sandbox; without one they always have it). */
	network: boolean;
	/** Real paths of files no tool may read, by any operation (the toolbox's health file and audit log). */
	unreadable?: readonly string[];
}

/** The call a request belongs to; absent when the tool asks outside any call (e.g. while its module loads). */
export interface BrokerCall {
	tool: string;
	hash: string;
	host?: RunHost;
	/** Stops the call's deadline while a person decides; returns the function that restarts it. */
	pause(): () => void;
	/** Commands started for the call, killed with it. */
	children: Set<ChildProcess>;
	/** False once the call is over (finished, timed out, cancelled): nothing more is done for it. */
	alive(): boolean;
	/** The tool's version number, when known (the dialog names it). */
	version?: number;
	/** Told the commands that would grant what was just refused (kept in pi's process for the call's error). */
	refused?(grants: string[]): void;
}

/** The reply to a request whose call has ended. */
export const CALL_OVER: WireError = {
	phase: "runtime",
	message: "The call this request belongs to is over (it finished, timed out or was cancelled).",
};

export const ASK_OPTIONS = { once: "Allow once", always: "Always allow for this tool", deny: "Deny" } as const;
const MAX_EXEC_OUTPUT = 10 * 1024 * 1024;

export class Broker {
	private prompts: Promise<unknown> = Promise.resolve();
	private fsQueue: Promise<unknown> = Promise.resolve();
	private sandbox: SandboxStatus = { kind: "none", reason: "not yet looked for" };

	/** Secret values are hidden in what a dialog shows (a screen may be shared). */
	private readonly redact: (text: string) => string;

	constructor(private readonly settings: BrokerSettings) {
		const secrets = sensitiveEnvValues(process.env);
		this.redact = (text) => redactSecrets(text, secrets);
	}

	/** Commands a tool was granted run in this OS sandbox from now on. */
	useSandbox(sandbox: SandboxStatus): void {
		this.sandbox = sandbox;
	}

	async handle(request: BrokerRequest, call: BrokerCall): Promise<BrokerReply> {
		try {
			const capabilities = await this.capabilitiesOf(request);
			const unreadable = capabilities.find(
				(c) => c.kind === "fs-read" && this.settings.unreadable?.includes(c.path),
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
			if (request.kind === "env" && (typeof request.name !== "string" || !Object.hasOwn(process.env, request.name)))
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
				request = { ...request, file: exec.program };
			}
			// A recursive mkdir of a folder that is already there changes nothing (the project itself, say): nothing to decide.
			if (await existingFolder(request)) return { ok: true, value: undefined };
			for (const capability of capabilities) {
				const refusal = await this.authorise(capability, call);
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
	 * What was checked is what is done: file operations run one at a time (no other brokered operation, of any tool,
	 * can swap a folder for a link in between), on the paths as resolved for the check, which are resolved once more
	 * just before and must not have changed.
	 */
	private performChecked(request: FsRequest, checked: Capability[], call: BrokerCall): Promise<BrokerReply> {
		const run = this.fsQueue.then(async (): Promise<BrokerReply> => {
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
		this.fsQueue = run.catch(() => undefined);
		return run;
	}

	private async capabilitiesOf(request: BrokerRequest): Promise<Capability[]> {
		switch (request.kind) {
			case "fs": {
				if (!isFsOp(request.action))
					throw Object.assign(new Error(`fs.${request.action} is not available to forged tools.`), {
						code: "ERR_FORGE_UNSUPPORTED",
					});
				checkReadOnly(request);
				const capabilities: Capability[] = [];
				for (const [index, access] of FS_OPS[request.action].paths) {
					const path = request.args[index];
					if (typeof path !== "string" || !isAbsolute(path))
						throw Object.assign(new Error(`fs.${request.action} needs a path`), { code: "ERR_INVALID_ARG_TYPE" });
					// An operation on a link itself (unlink, rename, lstat…) is checked, and done, on the link, in its real folder.
					const resolved = FS_OPS[request.action].onLink
						? join(await realPath(dirname(path)), basename(path))
						: await realPath(path);
					capabilities.push({ kind: access === "read" ? "fs-read" : "fs-write", path: resolved });
				}
				return capabilities;
			}
			case "exec": {
				const { commandEnv, projectDir } = this.settings;
				const cwd = request.cwd ? await realPath(request.cwd) : projectDir;
				const env: EnvChange[] = Object.entries(request.env ?? {})
					.filter(([name, value]) => commandEnv[name] !== value)
					.map(([name, value]) =>
						name in commandEnv ? { name, value, previous: commandEnv[name] } : { name, value },
					);
				const path = request.env?.PATH ?? commandEnv.PATH;
				const exec: Capability = request.shell
					? {
							kind: "exec",
							program: "/bin/sh",
							commandLine: [request.file, ...request.args].join(" "),
							shell: true,
							env,
							cwd,
						}
					: {
							kind: "exec",
							program: resolveProgram(request.file, { cwd, path }) ?? request.file,
							commandLine: [request.file, ...request.args].map(shellWord).join(" "),
							env,
							cwd,
						};
				return request.cwd ? [exec, { kind: "fs-read", path: cwd }] : [exec];
			}
			case "env":
				return [{ kind: "env", name: request.name }];
			case "inline":
				return [{ kind: "inline" }];
			case "net":
				return [{ kind: "net", host: netHost(request.url) }];
		}
	}

	/** Undefined when allowed; the refusal otherwise. Every decision is audited. */
	private async authorise(capability: Capability, call: BrokerCall): Promise<WireError | undefined> {
		const { settings } = this;
		// A grant given since (agent-forge grant, /forge grant, a hand edit) holds from this decision on.
		await settings.grants.refresh();
		const grants = settings.grants.get(settings.projectDir, call.tool, call.hash);
		let decision: Decision = decide(capability, {
			policy: settings.policy,
			projectDir: settings.projectDir,
			tempDir: settings.tempDir,
			protected: settings.protected,
			grants,
		});
		let audited: "allow" | "deny" | "ask-allow-once" | "ask-allow-always" | "ask-deny" | undefined;
		if (decision.verdict === "ask") {
			const answer = await this.ask(capability, call);
			if (answer === "always")
				await settings.grants
					.remember(settings.projectDir, call.tool, this.grantKey(capability), "allow", call.hash)
					.catch(() => undefined);
			// With nobody to ask, nobody answered: the audit says "deny" (reason: no UI to ask), not "ask-deny".
			audited =
				answer === "once"
					? "ask-allow-once"
					: answer === "always"
						? "ask-allow-always"
						: answer === "deny"
							? "ask-deny"
							: undefined;
			decision =
				answer === "deny"
					? { verdict: "deny", reason: REASONS.deniedByUser }
					: answer === undefined
						? { verdict: "deny", reason: "no UI to ask" }
						: { verdict: "allow", reason: "allowed by the user" };
		}
		if (capability.kind === "inline" && decision.verdict === "allow" && audited !== "ask-allow-always") {
			await settings.grants
				.remember(settings.projectDir, call.tool, "inline", "allow", call.hash)
				.catch(() => undefined);
		}
		const verdict = decision.verdict === "allow" ? "allow" : "deny";
		settings.audit.append({
			at: new Date().toISOString(),
			tool: call.tool,
			version: call.hash,
			capability: capabilityKey(capability),
			decision: audited ?? verdict,
			reason: "reason" in decision ? decision.reason : undefined,
		});
		if (decision.verdict === "allow" && capability.kind !== "inline") return undefined;
		if (decision.verdict === "allow") {
			return {
				phase: "permission",
				message: `'${call.tool}' needs pi's in-process API; it may now run inside pi's process.`,
				hint: "Call the tool again: from now on it runs inline, with the full ExtensionAPI.",
			};
		}
		const hint = refusalHint(call.tool, settings.policy, settings.grants.file, decision);
		// What a person just refused is not offered back as a command to run.
		if (!isFinalDenial(decision) && decision.reason !== REASONS.deniedByUser) {
			const commands = grantCommands(call.tool, this.grantKey(capability), {
				node: process.execPath,
				bin: AGENT_FORGE_BIN,
			});
			call.refused?.([
				commands.cli,
				`without agent-forge on the PATH: ${commands.direct}`,
				`in pi's TUI: ${commands.tui}`,
			]);
		}
		return {
			phase: "permission",
			message: `'${call.tool}' may not ${describeCapability(capability)}: ${decision.reason}.`,
			hint,
			code: "ERR_FORGE_PERMISSION",
		};
	}

	/** The key a grant of `capability` is kept and printed under: its digest when the key holds a secret. */
	private grantKey(capability: Capability): string {
		const key = capabilityKey(capability);
		return this.redact(key) === key ? key : digestKey(key);
	}

	/** Asks a person (one dialog at a time); undefined when there is nobody to ask. */
	private ask(capability: Capability, call: BrokerCall): Promise<"once" | "always" | "deny" | undefined> {
		const select = call.host?.hasUI ? call.host.select : undefined;
		if (!select) return Promise.resolve(undefined);
		const options =
			capability.kind === "inline"
				? [ASK_OPTIONS.always, ASK_OPTIONS.deny]
				: [ASK_OPTIONS.once, ASK_OPTIONS.always, ASK_OPTIONS.deny];
		const asked = this.prompts.then(async () => {
			const resume = call.pause();
			try {
				const title = permissionTitle(capability, { tool: call.tool, version: call.version, redact: this.redact });
				const answer = await select(title, options);
				return answer === ASK_OPTIONS.once ? "once" : answer === ASK_OPTIONS.always ? "always" : "deny";
			} finally {
				resume();
			}
		});
		this.prompts = asked.catch(() => undefined);
		return asked;
	}

	private async perform(request: BrokerRequest, call: BrokerCall): Promise<unknown> {
		switch (request.kind) {
			case "fs":
				return encode(
					await (fsPromises as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[
						request.action
					](...fsArguments(request, this.settings.unreadable ?? [])),
				);
			case "exec":
				return runCommand(request, this.settings, call, this.sandbox);
			case "env":
				return typeof process.env[request.name] === "string" ? process.env[request.name] : undefined;
			case "inline":
				return undefined;
			case "net":
				return makeRequest(request, call);
		}
	}
}

/** The host a URL names, as its capability does: the port only when it is not the scheme's default. */
export function netHost(url: string): string {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw Object.assign(new TypeError(`fetch: ${JSON.stringify(url).slice(0, 200)} is not a URL`), {
			code: "ERR_INVALID_URL",
		});
	}
	if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
		throw Object.assign(new TypeError(`fetch: only http: and https: (${parsed.protocol})`), {
			code: "ERR_FORGE_UNSUPPORTED",
		});
	return parsed.host.toLowerCase();
}

/** This package's command line, for a grant command that runs whether or not `agent-forge` is on the PATH. */
const AGENT_FORGE_BIN = fileURLToPath(new URL("../../../bin/agent-forge.mjs", import.meta.url));

const NET_TIMEOUT_MS = 30_000;
/** The code of a brokered request that failed on the way (its cause's fields follow the message's first line). */
export const FETCH_FAILED = "ERR_FORGE_FETCH_FAILED";
const MAX_NET_BODY = 10 * 1024 * 1024;

/**
 * An HTTP request made in pi's process for a tool kept off the network, after its host was allowed. Redirects are not
 * followed (another host is another capability); the body is capped; the call's end aborts it.
 */
async function makeRequest(request: NetRequest, call: BrokerCall): Promise<NetResult> {
	const signal = AbortSignal.timeout(NET_TIMEOUT_MS);
	let response: Response;
	try {
		response = await fetch(request.url, {
			method: request.method,
			headers: request.headers,
			...(request.body !== undefined ? { body: Buffer.from(request.body, "base64") } : {}),
			redirect: "manual",
			signal,
		});
	} catch (error) {
		// The cause (ECONNREFUSED at an address, ENOTFOUND of a host…) goes back as data: the tool's fetch rethrows it as
		// fetch would, with the same fields.
		const cause = (error as { cause?: Record<string, unknown> }).cause ?? {};
		const fields = Object.fromEntries(
			["message", "code", "syscall", "address", "port", "hostname"]
				.map((key) => [key, cause[key]])
				.filter(([, value]) => typeof value === "string" || typeof value === "number"),
		);
		fields.code ??= (error as { name?: string }).name ?? "unknown";
		throw Object.assign(new Error(`${(error as Error).message}\n${JSON.stringify(fields)}`), { code: FETCH_FAILED });
	}
	const chunks: Buffer[] = [];
	let size = 0;
	if (response.body) {
		for await (const chunk of response.body) {
			size += chunk.byteLength;
			if (size > MAX_NET_BODY || !call.alive()) {
				await response.body.cancel().catch(() => undefined);
				if (!call.alive())
					throw Object.assign(new Error("the call ended while its request was running"), {
						code: "ERR_FORGE_CALL_OVER",
					});
				throw Object.assign(new Error(`fetch: the response body is over ${MAX_NET_BODY} bytes`), {
					code: "ERR_FORGE_TOO_LARGE",
				});
			}
			chunks.push(Buffer.from(chunk));
		}
	}
	return {
		status: response.status,
		statusText: response.statusText,
		headers: [...response.headers],
		body: Buffer.concat(chunks).toString("base64"),
		url: request.url,
	};
}

/** A refusal no grant can lift (a protected location, a relative path): no command to grant it is offered. */
function isFinalDenial(decision: Decision): boolean {
	return (
		decision.verdict === "deny" &&
		(decision.reason === REASONS.notAbsolute || decision.reason.endsWith(REASONS.protected))
	);
}

/** An argument as a shell would need it to mean the same, so the command shown reads as what runs. */
function shellWord(word: string): string {
	return word === "" ? "''" : shellQuote(word);
}

/** Whether the request is a recursive mkdir of a folder that exists. */
async function existingFolder(request: BrokerRequest): Promise<boolean> {
	if (request.kind !== "fs" || request.action !== "mkdir") return false;
	const [path, options] = request.args;
	if (
		typeof path !== "string" ||
		!(options && typeof options === "object" && (options as { recursive?: unknown }).recursive === true)
	)
		return false;
	return fsPromises.stat(path).then(
		(stats) => stats.isDirectory(),
		() => false,
	);
}

/** The real path of `path`, or for a path that does not exist yet the real path of its nearest existing parent joined with the rest. */
export async function realPath(path: string): Promise<string> {
	try {
		return await fsPromises.realpath(path);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if ((code !== "ENOENT" && code !== "ENOTDIR") || dirname(path) === path) return path;
		return join(await realPath(dirname(path)), basename(path));
	}
}

/**
 * A granted command, in the OS sandbox where there is one: the project and the temp dir writable except the protected
 * locations in them (read-only binds: the kernel refuses those writes), the network only if the policy lets tools have
 * it. A shell command line is run by /bin/sh inside the sandbox.
 */
function runCommand(
	request: ExecRequest,
	settings: BrokerSettings,
	call: BrokerCall,
	sandbox: SandboxStatus,
): Promise<ExecResult> {
	const maxBuffer = Math.min(request.maxBuffer ?? MAX_EXEC_OUTPUT, MAX_EXEC_OUTPUT);
	const spec = {
		writable: [settings.projectDir, settings.tempDir],
		readOnly: [...settings.protected.map((location) => location.path), ...instructionFilesIn(settings.projectDir)],
		network: settings.network,
	};
	const shellLine = [request.file, ...request.args].join(" ");
	const { command, args } =
		sandbox.kind === "bubblewrap"
			? sandboxed(
					sandbox,
					spec,
					request.shell ? "/bin/sh" : request.file,
					request.shell ? ["-c", shellLine] : request.args,
				)
			: { command: request.file, args: request.args };
	return new Promise((resolve) => {
		const child = spawn(command, args, {
			cwd: request.cwd ?? settings.projectDir,
			env: { ...settings.commandEnv, ...request.env },
			shell: sandbox.kind === "bubblewrap" ? false : request.shell,
			detached: true,
			stdio: ["pipe", "pipe", "pipe"],
		});
		call.children.add(child);
		let stdout = "";
		let stderr = "";
		let error: string | undefined;
		const collect = (append: (text: string) => void) => (chunk: Buffer) => {
			if (stdout.length + stderr.length + chunk.length > maxBuffer) {
				error ??= `output exceeded ${maxBuffer} bytes; the command was stopped`;
				killGroup(child);
				return;
			}
			append(chunk.toString());
		};
		child.stdout!.on(
			"data",
			collect((text) => (stdout += text)),
		);
		child.stderr!.on(
			"data",
			collect((text) => (stderr += text)),
		);
		// A command that exits without reading its input closes the pipe: EPIPE is no error of the tool's (and an
		// unheard stream error would be an uncaught exception in pi's process).
		child.stdin!.on("error", () => undefined);
		child.stdin!.end(request.input ?? "");
		const timer = request.timeoutMs
			? setTimeout(() => {
					error ??= `timed out after ${request.timeoutMs} ms`;
					killGroup(child);
				}, request.timeoutMs)
			: undefined;
		child.on("error", (spawnError) => {
			error ??= spawnError.message;
		});
		child.on("close", (status, signal) => {
			clearTimeout(timer);
			call.children.delete(child);
			resolve({ stdout, stderr, status, signal, ...(error ? { error } : {}) });
		});
	});
}

/** The agent instruction files at the top of the project, whatever their case (bound read-only for commands). */
function instructionFilesIn(dir: string): string[] {
	try {
		return readdirSync(dir)
			.filter((name) => INSTRUCTION_FILES.includes(name.toLowerCase()))
			.map((name) => join(dir, name));
	} catch {
		return [];
	}
}

export function killGroup(child: ChildProcess): void {
	if (!child.pid || child.exitCode !== null) return;
	try {
		process.kill(-child.pid, "SIGKILL");
	} catch {
		child.kill("SIGKILL");
	}
}

const READ_ONLY_FLAGS: ReadonlySet<unknown> = new Set(["r", "rs", "sr", fsConstants.O_RDONLY]);

/** A read is authorised as a read: readFile with a flag that opens for writing ("w" truncates) would be a write. */
function checkReadOnly(request: FsRequest): void {
	if (request.action !== "readFile") return;
	const options = request.args[1];
	const flag = options && typeof options === "object" ? (options as { flag?: unknown }).flag : undefined;
	if (flag !== undefined && !READ_ONLY_FLAGS.has(flag)) {
		throw Object.assign(
			new Error(
				`fs.readFile opens files for reading only (flag ${JSON.stringify(flag)} refused): write with fs.writeFile or fs.appendFile.`,
			),
			{ code: "ERR_FORGE_UNSUPPORTED" },
		);
	}
}

/**
 * The arguments pi's process runs an operation with. A recursive copy neither follows links (only the source folder's
 * own path was checked, and a link inside it may point anywhere) nor copies them (a copied link is a made link), and
 * leaves out the files no tool may read.
 */
function fsArguments(request: FsRequest, unreadable: readonly string[]): unknown[] {
	if (request.action !== "cp") return request.args;
	const [source, destination, options] = request.args;
	const refuseLinks = async (path: string) => {
		if (unreadable.includes(path)) return false;
		// A file that went while the copy ran (a lock file, say) is not copied.
		const stats = await fsPromises.lstat(path).catch(() => undefined);
		if (!stats) return false;
		if (stats.isSymbolicLink())
			throw Object.assign(new Error(`fs.cp: ${path} is a link; forged tools may not copy or make links.`), {
				code: "ERR_FORGE_UNSUPPORTED",
			});
		return true;
	};
	const { filter: _ignored, ...rest } =
		options && typeof options === "object" ? (options as Record<string, unknown>) : {};
	return [source, destination, { ...rest, dereference: false, filter: refuseLinks }];
}

/** Values that do not survive structured cloning as themselves go back tagged (see the fs facade's decode). */
function encode(value: unknown): unknown {
	if (
		value &&
		typeof value === "object" &&
		typeof (value as { isFile?: unknown }).isFile === "function" &&
		"mode" in value
	) {
		const stats = value as unknown as Record<string, unknown> & {
			isFile(): boolean;
			isDirectory(): boolean;
			isSymbolicLink(): boolean;
		};
		const fields = Object.fromEntries(
			Object.entries(stats).filter(([, v]) => typeof v === "number" || typeof v === "string"),
		) as Record<string, number | string>;
		fields.type = stats.isFile()
			? "file"
			: stats.isDirectory()
				? "directory"
				: stats.isSymbolicLink()
					? "symlink"
					: "other";
		return { __stats: fields } satisfies EncodedStats;
	}
	if (Array.isArray(value) && value.length > 0 && typeof value[0]?.isDirectory === "function") {
		return {
			__dirents: value.map(
				(d: { name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }) => ({
					name: d.name,
					type: d.isFile() ? "file" : d.isDirectory() ? "directory" : d.isSymbolicLink() ? "symlink" : "other",
				}),
			),
		} satisfies EncodedDirents;
	}
	return value;
}

function fromError(error: unknown): WireError {
	const code = (error as NodeJS.ErrnoException)?.code;
	const message = error instanceof Error ? error.message : String(error);
	return { phase: "runtime", message, ...(code ? { code } : {}) };
}
