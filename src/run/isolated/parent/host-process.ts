// pi's handle on the runner host: starts it under Node's permission model in a process group of its own,
// passes messages, and kills the whole group when it must.
import { type ChildProcess, spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import type { FromHost, ToHost } from "../protocol.ts";
import type { HostBundle } from "./bundle.ts";
import { parseNodeVersion, permissionFlags } from "./node-flags.ts";
import { type SandboxStatus, sandboxed } from "./os-sandbox.ts";
import { isInside } from "./paths.ts";
import { sharedTempDirs } from "./shared-dirs.ts";

export interface HostSpawnOptions {
	/** The Node binary to run, and its version (which picks the permission flags). */
	node: { path: string; version: string };
	bundle: HostBundle;
	cwd: string;
	/** Directories the host may read (the project, the temp dir, the toolbox, typebox); it may write none. */
	readRoots: string[];
	/** Files inside those no tool may read (the toolbox's health file and audit log): refused by the fs facade. */
	unreadable?: string[];
	/** Whether tools may use the network (Node 25 and later deny it otherwise; so does the OS sandbox). */
	network: boolean;
	/** The OS sandbox the host runs in, when there is one. */
	sandbox: SandboxStatus;
	env: Record<string, string>;
	typeboxPath: string;
	/** The user's home folder: hidden in the OS sandbox but for what the host reads there. */
	homeDir: string;
	/** The shared OS temp dir: hidden in the OS sandbox too, but for what the host reads there (its tools' temp dirs). */
	tempDir?: string;
	/** The runner's temp folder (each tool's TMPDIR is a folder in it). */
	tempRoot?: string;
	rssLimitMb: number;
}

const STDERR_TAIL = 4096;
/** What V8 prints when an isolate (a worker's included: its fatal errors end the whole process) runs out of heap. */
const OUT_OF_MEMORY = /FATAL ERROR: .*(heap out of memory|Reached heap limit|Allocation failed)/;

/** The end of what the host printed, for an exit reason: V8's out-of-memory verdict rather than its native stack. */
function describeStderr(tail: string): string {
	const fatal = OUT_OF_MEMORY.exec(tail);
	if (fatal) return `: ${fatal[0].replace(/^FATAL ERROR: /, "")}`;
	return tail ? `: ${tail.trim().split("\n").slice(-3).join(" | ")}` : "";
}

export class HostProcess {
	private child: ChildProcess | undefined;
	private stderrTail = "";
	private exited = false;
	/** Set as soon as a kill is sent: a host on its way out takes no more messages. */
	private killed = false;

	constructor(
		private readonly onMessage: (message: FromHost) => void,
		private readonly onExit: (reason: string) => void,
	) {}

	/** Starts the host and resolves once it said it is ready. */
	start(options: HostSpawnOptions): Promise<void> {
		const { bundle } = options;
		const hostOptions = JSON.stringify({
			roots: options.readRoots,
			unreadable: options.unreadable ?? [],
			typeboxPath: options.typeboxPath,
			toolWorker: bundle.toolWorker,
			preflightWorker: bundle.preflightWorker,
			rssLimitMb: options.rssLimitMb,
			...(options.tempRoot ? { tempRoot: options.tempRoot } : {}),
		});
		const permissions = permissionFlags(parseNodeVersion(options.node.version), {
			readRoots: [...options.readRoots, bundle.dir],
			network: options.network,
		});
		const nodeArgs = [
			...permissions,
			// eval and new Function throw in the host and every worker: no code can be made from text at run time.
			"--disallow-code-generation-from-strings",
			"--no-warnings",
			bundle.hostMain,
			hostOptions,
		];
		// The host writes nothing itself (writes are brokered to pi): in the OS sandbox the whole file system is read-only,
		// and the user's home is an empty folder but for what the host reads there (the project, its code, Node).
		// So are the shared temp dirs and the user's runtime dir (other projects, other sessions' files, sockets): the
		// tools' own temp dirs are bound back. Outer folders first: one inside another is hidden within the outer one.
		const { hidden, visible } = hostView(
			[options.homeDir, options.tempDir ?? "", ...sharedTempDirs()],
			[...options.readRoots, bundle.dir, nodeRoot(options.node.path)],
		);
		const { command, args } = sandboxed(
			options.sandbox,
			{ writable: [], readOnly: [], network: options.network, hidden, visible },
			options.node.path,
			nodeArgs,
		);
		const child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env,
			stdio: ["ignore", "ignore", "pipe", "ipc"],
			serialization: "advanced",
			detached: true,
		});
		this.child = child;
		child.stderr!.on("data", (chunk: Buffer) => {
			this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL);
		});
		return new Promise((resolve, reject) => {
			child.on("message", (message: FromHost) => {
				if (message.type === "ready") return resolve();
				// A message that cannot be handled must not become an uncaught exception in pi's process.
				try {
					this.onMessage(message);
				} catch {
					// The call it was about fails at its deadline.
				}
			});
			child.on("exit", (code, signal) => {
				this.exited = true;
				const reason = `the runner host exited (${signal ?? `code ${code}`})${describeStderr(this.stderrTail)}`;
				reject(new Error(reason));
				this.onExit(reason);
			});
			child.on("error", (error) => reject(error));
		});
	}

	get alive(): boolean {
		return !!this.child && !this.exited && !this.killed;
	}

	send(message: ToHost): void {
		if (this.alive) this.child!.send(message);
	}

	/** SIGKILL to the host's whole process group: nothing it started survives. */
	kill(): void {
		if (!this.child?.pid || this.exited) return;
		this.killed = true;
		try {
			process.kill(-this.child.pid, "SIGKILL");
		} catch {
			this.child.kill("SIGKILL");
		}
	}
}

/** The installation a Node binary belongs to (`…/node-v24/bin/node` → `…/node-v24`): its libraries sit beside it. */
function nodeRoot(nodePath: string): string {
	let real = nodePath;
	try {
		real = realpathSync(nodePath);
	} catch {
		// not there: the start fails and says so
	}
	return dirname(dirname(real));
}

/**
 * What the host sees of the folders it is kept out of (`outOfSight`: the home, the temp dirs): each is hidden unless it
 * lies inside something the host reads, outer folders first; of `reads`, those inside a hidden folder are shown again.
 */
export function hostView(outOfSight: string[], reads: string[]): { hidden: string[]; visible: string[] } {
	const hidden = [...new Set(outOfSight)]
		.filter((dir) => dir && dir !== "/" && !reads.some((root) => isInside(dir, root)))
		.sort((a, b) => a.length - b.length);
	return { hidden, visible: reads.filter((path) => hidden.some((dir) => isInside(path, dir))) };
}
