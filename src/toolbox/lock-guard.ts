// Whether the code running now runs for a holder of the toolbox lock: the parts that take the lock run their work as
// its holder, and the places that would run a tool's code for it (a preflight load, a candidate's tests) check it and
// refuse (NotRunBeforeLock), so no tool code runs while the lock is held: the holder lets the lock go, the code runs
// unlocked, and the holder tries again.
import { AsyncLocalStorage } from "node:async_hooks";
import type { PreflightLoader } from "../contract/module-shape.ts";

const holder = new AsyncLocalStorage<boolean>();

/** A run of a tool's code asked for by a holder of the lock and not made before: it is made unlocked first. */
export class NotRunBeforeLock extends Error {
	constructor(tool: string) {
		super(`'${tool}' changed after its code ran unlocked: it runs again before the toolbox is locked.`);
	}
}

/** Runs `work`, called with the toolbox lock held, as the lock's holder. */
export function asLockHolder<T>(work: () => Promise<T>): Promise<T> {
	return holder.run(true, work);
}

/** Whether the code running now runs for a holder of the toolbox lock. */
export function holdsLock(): boolean {
	return holder.getStore() === true;
}

/** Starts `work` that a holder of the lock hands off and does not wait for: it runs as unlocked code. */
export function handedOff<T>(work: () => T): T {
	return holder.exit(work);
}

/** `load`, refused (NotRunBeforeLock) when a holder of the lock asks for it. */
export function unlockedOnly(load: PreflightLoader): PreflightLoader {
	return (path, code, tool, file, map) =>
		holdsLock() ? Promise.reject(new NotRunBeforeLock(tool)) : load(path, code, tool, file, map);
}
