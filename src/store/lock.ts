// One writer at a time per toolbox, across processes: a lock (proper-lockfile) in the toolbox folder, refreshed while
// held and taken over when its owner died without releasing it (stale).
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { kindOf, NotFollowed } from "./safe-fs.ts";

export const LOCK_FILE = ".forge.lock";
/** The registry has a lock of its own, so forges never wait for a registry save. */
export const REGISTRY_LOCK_FILE = ".forge-registry.lock";

export interface LockOptions {
	/**
	 * What is locked, in the toolbox folder (default: the toolbox itself). proper-lockfile keeps held locks by this
	 * target, so two locks need two targets; the lock file is `<target>.lock`-like: `.forge.lock`, `.forge-registry.lock`.
	 */
	target?: "toolbox" | "registry";
	/** A lock not refreshed for this long belongs to a dead process and is taken over. */
	staleMs?: number;
	/** How long to keep trying before giving up. */
	waitMs?: number;
}

export async function withToolboxLock<T>(dir: string, run: () => Promise<T>, options: LockOptions = {}): Promise<T> {
	const staleMs = Math.max(options.staleMs ?? 5_000, 2_000);
	const waitMs = options.waitMs ?? 30_000;
	const registry = options.target === "registry";
	const lockPath = join(dir, registry ? REGISTRY_LOCK_FILE : LOCK_FILE);
	// A lock is a folder; a link or a file there is no process's lock and is never followed: refused at once.
	const kind = await kindOf(lockPath);
	if (kind !== "missing" && kind !== "directory")
		throw new NotFollowed(
			lockPath,
			`${kind === "link" ? "a symbolic link" : "not a folder"}, not a lock Agent Forge made (remove it to use the toolbox)`,
		);
	const release = await lockfile.lock(registry ? join(dir, "forge-registry.json") : dir, {
		lockfilePath: lockPath,
		realpath: false,
		stale: staleMs,
		update: Math.min(staleMs / 5, 5_000),
		retries: { retries: Math.ceil(waitMs / 100), factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true },
		// A compromised lock (taken over after a stall) must not crash pi: the next write re-checks the files.
		onCompromised: () => undefined,
	});
	try {
		return await run();
	} finally {
		await release().catch(() => undefined);
	}
}
