// Re-checks of tools whose files changed on disk (a start after a `git pull`, hand edits, the watcher): several at once,
// the tools a caller waits for first. Each is first prepared with the toolbox unlocked (a hand edit's preflight load,
// its top-level code, runs then), and then taken in with the lock held, several under one hold. A tool asked for again
// while its re-check runs is re-checked once more after it (its files may have changed since that re-check read them).
// A take-in that finds the files changed again since they were prepared (NotRunBeforeLock) sends the tool back to be
// prepared again; past RECHECK_ROUNDS it is left as it was, and re-checked again after RETRY_AFTER_MS (doubled each time
// it is left so again, up to RETRY_AFTER_MAX_MS: a runner that cannot start fails every load).
import { handedOff, NotRunBeforeLock } from "./lock-guard.ts";

/** How many times a tool whose files keep changing is prepared again before its re-check is left for later. */
export const RECHECK_ROUNDS = 3;
/** How long after its re-check was left for later a tool whose files kept changing is re-checked again. */
export const RETRY_AFTER_MS = 1_000;
export const RETRY_AFTER_MAX_MS = 60_000;

export interface RequestOptions {
	/** Someone waits for this tool now: it goes before the others. */
	first?: boolean;
}

interface Waiting<T> {
	promise: Promise<T>;
	resolve(value: T): void;
	reject(error: unknown): void;
}

export class RecheckQueue<T> {
	/** Asked for and not prepared yet, in the order they are prepared. */
	private readonly waiting = new Map<string, Waiting<T>>();
	/** Being prepared, with the toolbox unlocked. */
	private readonly preparing = new Map<string, Waiting<T>>();
	/** Prepared, waiting to be taken in under the lock, in the order they start. */
	private readonly ready = new Map<string, Waiting<T>>();
	private readonly running = new Map<string, Promise<T>>();
	/** Noticed changes (the watcher's), started after a quiet moment unless someone asks for them sooner. */
	private readonly delayed = new Map<string, NodeJS.Timeout>();
	private draining: Promise<void> | undefined;
	/** Wakes a running drain: a newly prepared tool may fill a free slot. */
	private nudge: (() => void) | undefined;
	private readonly idleWaiters = new Set<() => void>();
	/** Tools sent back to be prepared again, with how many times. */
	private readonly rounds = new Map<string, number>();
	/** Tools left as they were, with how many times in a row. */
	private readonly left = new Map<string, number>();
	/** Cancelled (closing): nothing goes back or is left for later any more. */
	private cancelled = false;

	constructor(
		/** Runs the whole drain (the toolbox holds its lock around it). */
		private readonly hold: (work: () => Promise<void>) => Promise<void>,
		private readonly check: (name: string) => Promise<T>,
		private readonly concurrency: number,
		/** Runs before `check`, outside `hold` (its failure is left to `check` to find); without it, `check` starts at once. */
		private readonly prepare?: (name: string) => Promise<void>,
		/** What a re-check left for later settles with (the tool as it was). */
		private readonly asItWas?: (name: string) => T,
	) {}

	/** Re-checks `name` (the promise settles with the check's outcome). */
	request(name: string, options: RequestOptions = {}): Promise<T> {
		this.cancelDelay(name);
		let waiting = this.waiting.get(name) ?? this.preparing.get(name) ?? this.ready.get(name);
		if (waiting) {
			if (options.first) this.prioritize(name);
		} else {
			let resolve!: (value: T) => void;
			let reject!: (error: unknown) => void;
			const promise = new Promise<T>((res, rej) => {
				resolve = res;
				reject = rej;
			});
			promise.catch(() => undefined);
			waiting = { promise, resolve, reject };
			if (options.first) moveFirst(this.waiting, name, waiting);
			else this.waiting.set(name, waiting);
		}
		this.pump();
		return waiting.promise;
	}

	/** A change noticed by the watcher: re-checked after `delayMs` of quiet for this tool, or at the next `hurry`. */
	notice(name: string, delayMs: number): void {
		this.cancelDelay(name);
		const timer = setTimeout(() => {
			this.delayed.delete(name);
			void this.request(name);
		}, delayMs);
		timer.unref();
		this.delayed.set(name, timer);
	}

	/** Starts every noticed change now. */
	hurry(): void {
		for (const name of [...this.delayed.keys()]) void this.request(name);
	}

	/** Moves `name` to the front if it waits (someone waits for it now). */
	prioritize(name: string): void {
		for (const queue of [this.waiting, this.ready]) {
			const waiting = queue.get(name);
			if (waiting) moveFirst(queue, name, waiting);
		}
	}

	/** The re-check that will tell how `name` is now, if one is asked for or running. */
	pending(name: string): Promise<T> | undefined {
		return (
			(this.waiting.get(name) ?? this.preparing.get(name) ?? this.ready.get(name))?.promise ?? this.running.get(name)
		);
	}

	/** Tools waiting, being prepared, running or noticed. */
	get size(): number {
		return new Set(
			[this.waiting, this.preparing, this.ready, this.running, this.delayed].flatMap((m) => [...m.keys()]),
		).size;
	}

	/** Resolves once nothing is waiting, running or noticed. */
	idle(): Promise<void> {
		if (this.size === 0) return Promise.resolve();
		return new Promise((resolve) => this.idleWaiters.add(resolve));
	}

	/** Drops what has not started (pi is closing: what is left is re-checked at the next start); running checks finish. */
	cancel(): Promise<void> {
		this.cancelled = true;
		for (const timer of this.delayed.values()) clearTimeout(timer);
		this.delayed.clear();
		const dropped = [...this.waiting.values(), ...this.preparing.values(), ...this.ready.values()];
		this.waiting.clear();
		this.preparing.clear();
		this.ready.clear();
		for (const waiting of dropped)
			waiting.reject(new Error("The toolbox was closed before this tool was re-checked."));
		this.wakeIdle();
		return Promise.all([...this.running.values()].map((p) => p.catch(() => undefined))).then(() => undefined);
	}

	private cancelDelay(name: string): void {
		const timer = this.delayed.get(name);
		if (timer === undefined) return;
		clearTimeout(timer);
		this.delayed.delete(name);
	}

	/** Prepares waiting tools, `concurrency` at once, each joining the drain once prepared. */
	private pump(): void {
		while (this.preparing.size < this.concurrency) {
			const next = this.waiting.entries().next();
			if (next.done) return;
			const [name, waiting] = next.value;
			this.waiting.delete(name);
			const { prepare } = this;
			if (!prepare) {
				this.ready.set(name, waiting);
				this.drain();
				continue;
			}
			this.preparing.set(name, waiting);
			// Unlocked, also when a take-in under the hold sent the tool back: the hold does not wait for it.
			void handedOff(() => prepare(name))
				.catch(() => undefined)
				.then(() => {
					// Dropped meanwhile (closing): it is not taken in.
					if (this.preparing.get(name) !== waiting) return;
					this.preparing.delete(name);
					this.ready.set(name, waiting);
					this.pump();
					this.drain();
				});
		}
	}

	private drain(): void {
		if (this.draining) this.nudge?.();
		if (this.draining || this.ready.size === 0) return;
		this.draining = this.hold(() => this.runAll())
			.catch((error: unknown) => {
				// The hold itself failed (the lock could not be taken): what was ready fails with it.
				const dropped = [...this.ready.values()];
				this.ready.clear();
				for (const waiting of dropped) waiting.reject(error);
			})
			.finally(() => {
				this.draining = undefined;
				this.pump();
				if (this.ready.size > 0) this.drain();
				else this.wakeIdle();
			});
	}

	private async runAll(): Promise<void> {
		const inflight = new Set<Promise<void>>();
		for (;;) {
			while (inflight.size < this.concurrency) {
				const name = this.next();
				if (name === undefined) break;
				const job: Promise<void> = this.start(name).then(() => {
					inflight.delete(job);
				});
				inflight.add(job);
			}
			if (inflight.size === 0) return;
			await Promise.race([...inflight, new Promise<void>((resolve) => (this.nudge = resolve))]);
			this.nudge = undefined;
		}
	}

	/** The first prepared tool that is not running now. */
	private next(): string | undefined {
		for (const name of this.ready.keys()) if (!this.running.has(name)) return name;
		return undefined;
	}

	private async start(name: string): Promise<void> {
		const waiting = this.ready.get(name)!;
		this.ready.delete(name);
		this.running.set(name, waiting.promise);
		let again = false;
		try {
			waiting.resolve(await this.check(name));
			this.left.delete(name);
		} catch (error) {
			if (error instanceof NotRunBeforeLock && this.asItWas) again = this.prepareAgain(name, waiting, this.asItWas);
			else waiting.reject(error);
		} finally {
			this.running.delete(name);
			// A tool sent back is prepared once the hold is over (see drain).
			if (!again) this.rounds.delete(name);
			this.wakeIdle();
		}
	}

	/**
	 * The files of `name` changed again after it was prepared: it goes back to be prepared (first), unless it did so
	 * RECHECK_ROUNDS times already; then it settles as it was and is re-checked later. Returns whether it went back.
	 */
	private prepareAgain(name: string, waiting: Waiting<T>, asItWas: (name: string) => T): boolean {
		const rounds = (this.rounds.get(name) ?? 0) + 1;
		if (rounds > RECHECK_ROUNDS || !this.prepare || this.cancelled) {
			waiting.resolve(asItWas(name));
			const times = (this.left.get(name) ?? 0) + 1;
			this.left.set(name, times);
			const later = Math.min(RETRY_AFTER_MS * 2 ** (times - 1), RETRY_AFTER_MAX_MS);
			if (!this.waiting.has(name) && !this.cancelled) this.notice(name, later);
			return false;
		}
		this.rounds.set(name, rounds);
		// Asked for again meanwhile: that re-check, which reads the files afresh, answers this one too.
		const asked = this.waiting.get(name) ?? this.preparing.get(name) ?? this.ready.get(name);
		if (asked) asked.promise.then(waiting.resolve, waiting.reject);
		else moveFirst(this.waiting, name, waiting);
		return true;
	}

	private wakeIdle(): void {
		if (this.size > 0) return;
		const waiters = [...this.idleWaiters];
		this.idleWaiters.clear();
		for (const wake of waiters) wake();
	}
}

/** Puts `name` at the front of `queue`. */
function moveFirst<T>(queue: Map<string, T>, name: string, value: T): void {
	const rest = [...queue].filter(([other]) => other !== name);
	queue.clear();
	queue.set(name, value);
	for (const [other, entry] of rest) queue.set(other, entry);
}
