// The OS sandbox around what forged tools run: bubblewrap on Linux (Debian's `bubblewrap` package), the outer layer
// around Node's permission model. The runner host runs in it with the whole file system read-only and, where the policy
// keeps tools off the network, no network at all; a command a tool was granted runs in it with the project and the
// temp dir writable except the protected locations in them, bound read-only (the kernel refuses those writes, so no
// race between a check and a write can reach them). Where bubblewrap is missing or cannot make its namespaces
// (containers that forbid them, Windows), the sandbox is reported as unavailable and the Node layer stands alone.
// On macOS the same spec becomes a Seatbelt profile for sandbox-exec (seatbelt.ts).
// A granted command is limited in processes and memory too, where util-linux's prlimit is there (command-limits.ts);
// on macOS it is not limited.
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { defaultCommandLimits, describeLimits, type LimitSupport } from "./command-limits.ts";
import { detectSeatbelt, type SeatbeltNames, sandboxedSeatbelt } from "./seatbelt.ts";

export type SandboxStatus =
	| {
			kind: "bubblewrap";
			path: string;
			version: string;
			/** util-linux's prlimit, which sets a granted command's limits inside the sandbox (command-limits.ts). */
			prlimit?: string;
			/** pi runs as root: the kernel does not apply a process limit to it, so pi watches the count. */
			root?: boolean;
			/** bubblewrap is setuid: it makes no user namespace, so a process limit would count all the user's processes. */
			setuid?: boolean;
	  }
	| { kind: "seatbelt"; path: string }
	| { kind: "none"; reason: string };

export interface SandboxSpec {
	/** Folders bound read-write (everything else is read-only). */
	writable: string[];
	/** Paths inside the writable folders that stay read-only (bound only if they exist). */
	readOnly: string[];
	/** Whether the process keeps the network (otherwise it gets a network namespace of its own, with nothing in it). */
	network: boolean;
	/** Folders replaced by an empty one (the user's home: keys, credentials, other projects)… */
	hidden?: string[];
	/** …each of at most this many MB (what is written there is memory: a command could fill it past its own limits). */
	hiddenMb?: number;
	/** …except these paths inside them, bound back read-only (the project, the runner's code, Node itself). */
	visible?: string[];
	/** A command's program (or a shell line's files) as approved: bytes read by bubblewrap from `fd`, bound over `path`. */
	pinned?: { path: string; fd: number }[];
	/** Protected paths that do not exist: an empty read-only folder is put there (made in the real folder). */
	placeholders?: string[];
	/** Folders shown read-only with only `keep` of their entries (the rest, files no tool may read, are not there). */
	masked?: { dir: string; keep: string[] }[];
	/** Sockets replaced by /dev/null (nothing to connect to): those outside the writable folders (system-sockets.ts). */
	nulled?: string[];
	/** Protected names denied at any depth in the writable folders: by name on macOS; bubblewrap has no such rule. */
	protectedNames?: SeatbeltNames;
	/** The writable folders those names are denied in (all of them when not given; not a tool's own temp dir). */
	namesIn?: string[];
}

const CANDIDATES = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];
const PRLIMIT = ["/usr/bin/prlimit", "/bin/prlimit", "/usr/local/bin/prlimit"];

/**
 * Whether bubblewrap can sandbox here: found, and able to make the namespaces a sandbox needs (a trial run); on macOS,
 * whether sandbox-exec runs Node under a profile (seatbelt.ts). `setting` is PI_FORGE_SANDBOX: "off" turns it off.
 */
export async function detectSandbox(
	setting: "auto" | "off" = "auto",
	platform = process.platform,
): Promise<SandboxStatus> {
	if (setting === "off") return { kind: "none", reason: "turned off (PI_FORGE_SANDBOX=off)" };
	if (platform === "darwin") return detectSeatbelt({ platform });
	if (platform !== "linux")
		return {
			kind: "none",
			reason: `no OS sandbox is supported on ${platform} yet (bubblewrap on Linux, sandbox-exec on macOS)`,
		};
	const path = CANDIDATES.find((candidate) => existsSync(candidate));
	if (!path)
		return {
			kind: "none",
			reason: "bubblewrap (bwrap) is not installed; on Debian or Ubuntu: apt-get install bubblewrap",
		};
	const trial = await run(path, [...bwrapArgs({ writable: [], readOnly: [], network: false }), "--", "true"]);
	if (!trial.ok)
		return {
			kind: "none",
			reason: `bubblewrap cannot make its namespaces here (${trial.detail}); unprivileged user namespaces may be disabled`,
		};
	const version = await run(path, ["--version"]);
	const prlimit = PRLIMIT.find((candidate) => existsSync(candidate));
	return {
		kind: "bubblewrap",
		path,
		version: version.ok ? version.detail.replace(/^bubblewrap\s*/, "") : "unknown",
		...(prlimit ? { prlimit } : {}),
		root: process.getuid?.() === 0,
		setuid: (statSync(path).mode & 0o4000) !== 0,
	};
}

/** bubblewrap's arguments for `spec`, up to (not including) the `--` before the command. */
export function bwrapArgs(spec: SandboxSpec): string[] {
	const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
	const size = spec.hiddenMb ? ["--size", String(spec.hiddenMb * 1024 * 1024)] : [];
	for (const path of spec.hidden ?? []) args.push(...size, "--tmpfs", path);
	for (const path of spec.visible ?? []) args.push("--ro-bind-try", path, path);
	for (const path of spec.writable) args.push("--bind", path, path);
	// After the writable folders, so they win inside them; a path that does not exist cannot be bound (and so is not).
	for (const path of spec.readOnly) args.push("--ro-bind-try", path, path);
	for (const path of spec.placeholders ?? []) args.push("--tmpfs", path, "--remount-ro", path);
	for (const { dir, keep } of spec.masked ?? []) {
		args.push("--tmpfs", dir);
		// An entry may go between the listing and the binding (a lock file): one that is gone is not bound.
		for (const path of keep) args.push("--ro-bind-try", path, path);
		args.push("--remount-ro", dir);
	}
	for (const { path, fd } of spec.pinned ?? []) args.push("--perms", "0555", "--ro-bind-data", String(fd), path);
	for (const path of spec.nulled ?? []) args.push("--ro-bind", "/dev/null", path);
	if (!spec.network) args.push("--unshare-net");
	// Its own pid namespace (no signals to pi or anything else), a new session (no typing into pi's terminal), and
	// gone with pi.
	args.push("--unshare-pid", "--unshare-ipc", "--new-session", "--die-with-parent");
	return args;
}

/** `command args…` inside the sandbox, when there is one; unchanged otherwise. */
export function sandboxed(
	status: SandboxStatus,
	spec: SandboxSpec,
	command: string,
	args: string[],
): { command: string; args: string[] } {
	if (status.kind === "seatbelt") return sandboxedSeatbelt(status, spec, command, args);
	if (status.kind !== "bubblewrap") return { command, args };
	return { command: status.path, args: [...bwrapArgs(spec), "--", command, ...args] };
}

/** One line for a person: what confines forged tools here, and how granted commands are limited. */
export function describeSandbox(status: SandboxStatus): string {
	if (status.kind === "seatbelt")
		return "OS sandbox: sandbox-exec (macOS Seatbelt, kernel-enforced; Node's permission model inside it). Granted commands have no process or memory limits on macOS (no prlimit there).";
	return status.kind === "bubblewrap"
		? `OS sandbox: bubblewrap ${status.version} (kernel-enforced; Node's permission model inside it). ${describeLimits(limitSupport(status), defaultCommandLimits())}`
		: `No OS sandbox: ${status.reason}. Forged tools are confined by Node's permission model and the broker only.`;
}

/** Whether this bubblewrap can bound a tmpfs's size (`--size`, from 0.6.0 on). */
export function boundsTmpfs(status: SandboxStatus): boolean {
	if (status.kind !== "bubblewrap") return false;
	const [major = 0, minor = 0] = status.version.split(".").map(Number);
	return major > 0 || minor >= 6;
}

/** How a granted command's limits are kept in this sandbox. */
export function limitSupport(status: SandboxStatus): LimitSupport {
	if (status.kind !== "bubblewrap") return { watch: false };
	const watch = !!status.root || !!status.setuid || !status.prlimit;
	return { ...(status.prlimit ? { prlimit: status.prlimit } : {}), watch };
}

function run(file: string, args: string[]): Promise<{ ok: boolean; detail: string }> {
	return new Promise((resolve) => {
		execFile(file, args, { timeout: 5_000 }, (error, stdout, stderr) => {
			resolve(
				error
					? { ok: false, detail: (stderr || error.message).trim().split("\n")[0] }
					: { ok: true, detail: stdout.trim() },
			);
		});
	});
}
