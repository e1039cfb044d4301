// The runner host's life seen from pi's process: started on demand (once, however many calls wait for it), in the
// OS sandbox where there is one, on the Node the config names; a worker stopped on request, and the whole host
// retired when a stop is not done within the grace period or the host asks to be recycled.
import type { ForgeConfig } from "../../../contract/config.ts";
import { locateTypebox } from "../../typebox.ts";
import type { FromHost } from "../protocol.ts";
import { hostBundle } from "./bundle.ts";
import { HostProcess } from "./host-process.ts";
import { nodeVersionOf } from "./node-flags.ts";
import { detectSandbox, type SandboxStatus } from "./os-sandbox.ts";

/** How long a stopped worker may take to go before the whole host is killed. */
export const STOP_GRACE_MS = 250;

export interface SupervisorOptions {
	config: ForgeConfig;
	/** Where the host's bundle is built. */
	runtimeDir: string;
	/** Real paths the host may read besides the project and the temp dir (the toolbox). */
	readRoots: string[];
	/** Real paths of files no tool may read. */
	unreadable: string[];
	/** The runner's temp folder: each tool's TMPDIR is its own folder in it. */
	tempRoot?: string;
	/** Whether tools keep the network. */
	network: boolean;
	onMessage(message: FromHost, from: HostProcess): void;
	onExit(process: HostProcess, reason: string): void;
	/** Told the OS sandbox before the first host starts (the broker runs commands in it). */
	onSandbox(sandbox: SandboxStatus): void;
}

export class HostSupervisor {
	private host: HostProcess | undefined;
	private starting: Promise<HostProcess> | undefined;
	private readonly stopping = new Map<string, { process: HostProcess; timer: NodeJS.Timeout }>();
	private sandboxStatus: Promise<SandboxStatus> | undefined;
	private nodeInfo: Promise<{ path: string; version: string }> | undefined;

	constructor(private readonly options: SupervisorOptions) {}

	/** The running host, if there is one. */
	get current(): HostProcess | undefined {
		return this.host?.alive ? this.host : undefined;
	}

	ensure(): Promise<HostProcess> {
		if (this.host?.alive) return Promise.resolve(this.host);
		this.starting ??= this.start().finally(() => {
			this.starting = undefined;
		});
		return this.starting;
	}

	/** The OS sandbox here, found out once (a trial run of bubblewrap). */
	sandbox(): Promise<SandboxStatus> {
		this.sandboxStatus ??= detectSandbox(this.options.config.sandbox);
		return this.sandboxStatus;
	}

	/** The Node that runs the host: PI_FORGE_NODE's, asked for its version once, or the one running pi. */
	node(): Promise<{ path: string; version: string }> {
		const path = this.options.config.nodePath;
		this.nodeInfo ??= path
			? nodeVersionOf(path).then(
					(version) => ({ path, version }),
					() => ({ path, version: "unknown" }),
				)
			: Promise.resolve({ path: process.execPath, version: process.version });
		return this.nodeInfo;
	}

	/** Stops a tool's worker; if it is not gone within the grace period, the whole host goes. */
	stopTool(tool: string, process: HostProcess): void {
		if (!process.alive || this.stopping.get(tool)?.process === process) return;
		process.send({ type: "stop", tool });
		const timer = setTimeout(() => {
			if (this.stopping.get(tool)?.timer === timer) this.stopping.delete(tool);
			this.retire(process);
		}, STOP_GRACE_MS);
		timer.unref();
		this.stopping.set(tool, { process, timer });
	}

	/** The host said a worker it was asked to stop is gone. */
	stopped(tool: string, from: HostProcess): void {
		const stop = this.stopping.get(tool);
		if (stop?.process !== from) return;
		clearTimeout(stop.timer);
		this.stopping.delete(tool);
	}

	/** Ends a host at once: the calls still on it fail as it exits, and the next call starts a fresh one. */
	retire(process: HostProcess): void {
		if (this.host === process) this.host = undefined;
		process.kill();
	}

	/** A host exited: nothing waits for its stops any more. */
	exited(process: HostProcess): void {
		if (this.host === process) this.host = undefined;
		for (const [tool, stop] of this.stopping) {
			if (stop.process !== process) continue;
			clearTimeout(stop.timer);
			this.stopping.delete(tool);
		}
	}

	/** Kills the host; one still starting (warm() at session start) is waited for, then killed, so it cannot outlive pi. */
	async dispose(): Promise<void> {
		const starting = this.starting?.catch(() => undefined);
		this.host?.kill();
		this.host = undefined;
		(await starting)?.kill();
		this.host = undefined;
	}

	private async start(): Promise<HostProcess> {
		const { config, readRoots } = this.options;
		const [node, sandbox] = await Promise.all([this.node(), this.sandbox()]);
		this.options.onSandbox(sandbox);
		const bundle = await hostBundle(this.options.runtimeDir);
		const host: HostProcess = new HostProcess(
			(message) => this.options.onMessage(message, host),
			(reason) => this.options.onExit(host, reason),
		);
		const typebox = locateTypebox();
		await host.start({
			node,
			bundle,
			cwd: config.cwd,
			readRoots: [...readRoots, typebox.root],
			unreadable: this.options.unreadable,
			network: this.options.network,
			sandbox,
			env: config.safeEnv,
			typeboxPath: typebox.entry,
			homeDir: config.homeDir,
			tempDir: config.realTempDir,
			...(this.options.tempRoot ? { tempRoot: this.options.tempRoot } : {}),
			rssLimitMb: config.maxMemoryMb + 512,
		});
		this.host = host;
		return host;
	}
}
