// Process and memory limits of a granted command, so that a fork bomb or a memory hog fails in the command and not
// in the machine: util-linux's prlimit, run inside bubblewrap, sets RLIMIT_NPROC (counted per user namespace, so only
// the command's own processes and threads count) and RLIMIT_DATA (a process's private writable memory: a reservation
// that Node or V8 makes without touching it does not count, as it would under RLIMIT_AS). The kernel does not apply
// RLIMIT_NPROC to root, and a setuid bubblewrap makes no user namespace (the limit would count all the user's
// processes): there, and where prlimit is missing, a watch counts the command's processes and stops it past the limit.
import { readdirSync, readFileSync } from "node:fs";
import { totalmem } from "node:os";

export interface CommandLimits {
	/** Processes and threads the command may have at once. */
	processes: number;
	/** Private writable memory of each of its processes, in MB. */
	dataMb: number;
}

/** Enough for a parallel build (a process per core, each with its threads); far from a machine's pid space. */
const PROCESSES = 1024;

export function defaultCommandLimits(): CommandLimits {
	const machineMb = Math.floor(totalmem() / 1024 / 1024);
	return { processes: PROCESSES, dataMb: Math.max(256, Math.min(4096, Math.floor(machineMb / 2))) };
}

/** How the limits are kept here: prlimit's path (undefined: none), and whether the process count needs the watch. */
export interface LimitSupport {
	prlimit?: string;
	/** The process count is kept by the watch, not by RLIMIT_NPROC (pi runs as root, or bubblewrap is setuid). */
	watch: boolean;
}

/** `command args…` under the limits, through prlimit when there is one. */
export function limited(
	support: LimitSupport,
	limits: CommandLimits,
	command: string,
	args: string[],
): { command: string; args: string[] } {
	if (!support.prlimit) return { command, args };
	const data = limits.dataMb * 1024 * 1024;
	return {
		command: support.prlimit,
		args: [
			...(support.watch ? [] : [`--nproc=${limits.processes}`]),
			`--data=${data}`,
			"--core=0",
			"--",
			command,
			...args,
		],
	};
}

/** How often the watch counts (it reads /proc: a few reads per running process). */
const WATCH_MS = 50;

/**
 * Counts the processes and threads under `pid` every WATCH_MS and calls `over` once when there are more than `limit`;
 * returns what stops the watch.
 */
export function watchProcesses(pid: number, limit: number, over: () => void): () => void {
	const timer = setInterval(() => {
		if (countTasks(pid, limit) <= limit) return;
		clearInterval(timer);
		over();
	}, WATCH_MS);
	timer.unref();
	return () => clearInterval(timer);
}

/** The tasks (threads) of `pid` and of everything below it, counted up to just past `limit`. */
export function countTasks(pid: number, limit: number): number {
	let count = 0;
	const queue = [pid];
	while (queue.length && count <= limit) {
		const next = queue.pop()!;
		let tasks: string[];
		try {
			tasks = readdirSync(`/proc/${next}/task`);
		} catch {
			continue; // gone meanwhile
		}
		count += tasks.length;
		for (const task of tasks) {
			try {
				const children = readFileSync(`/proc/${next}/task/${task}/children`, "utf8").trim();
				if (children) for (const child of children.split(" ")) queue.push(Number(child));
			} catch {
				// gone meanwhile
			}
		}
	}
	return count;
}

/** One line for a person: the limits and how they are kept. */
export function describeLimits(support: LimitSupport, limits: CommandLimits): string {
	const processes = `at most ${limits.processes} processes and threads`;
	if (!support.prlimit)
		return `Granted commands: ${processes} (counted by pi every ${WATCH_MS} ms); no memory limit (util-linux's prlimit was not found).`;
	const how = support.watch ? "the process count kept by pi, where the kernel cannot keep it" : "kernel-enforced";
	return `Granted commands: ${processes}, ${limits.dataMb} MB of data per process (${how}).`;
}
