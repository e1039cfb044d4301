// Re-checks of tools whose files changed on disk (a start after a `git pull`, hand edits, the watcher): several at once,
// under one hold of the toolbox lock, the tools a caller waits for first. A tool asked for again while its re-check
// runs is re-checked once more after it (its files may have changed since that re-check read them).
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
	/** Asked for and not started yet, in the order they start. */
	private readonly waiting = new Map<string, Waiting<T>>();
	private readonly running = new Map<string, Promise<T>>();
	/** Noticed changes (the watcher's), started after a quiet moment unless someone asks for them sooner. */
	private readonly delayed = new Map<string, NodeJS.Timeout>();
	private draining: Promise<void> | undefined;
	/** Wakes a running drain: a new request may fill a free slot. */
	private nudge: (() => void) | undefined;
	private readonly idleWaiters = new Set<() => void>();

	constructor(
		/** Runs the whole drain (the toolbox holds its lock around it). */
		private readonly hold: (work: () => Promise<void>) => Promise<void>,
		private readonly check: (name: string) => Promise<T>,
		private readonly concurrency: number,
	) {}

	/** Re-checks `name` (the promise settles with the check's outcome). */
	request(name: string, options: RequestOptions = {}): Promise<T> {
		this.cancelDelay(name);
		let waiting = this.waiting.get(name);
		if (waiting) {
			if (options.first) this.moveFirst(name, waiting);
		} else {
			let resolve!: (value: T) => void;
			let reject!: (error: unknown) => void;
			const promise = new Promise<T>((res, rej) => {
				resolve = res;
				reject = rej;
			});
			promise.catch(() => undefined);
			waiting = { promise, resolve, reject };
			if (options.first) this.moveFirst(name, waiting);
			else this.waiting.set(name, waiting);
		}
		this.drain();
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
		const waiting = this.waiting.get(name);
		if (waiting) this.moveFirst(name, waiting);
	}

	/** The re-check that will tell how `name` is now, if one is asked for or running. */
	pending(name: string): Promise<T> | undefined {
		return this.waiting.get(name)?.promise ?? this.running.get(name);
	}

	/** Tools waiting, running or noticed. */
	get size(): number {
		return new Set([...this.waiting.keys(), ...this.running.keys(), ...this.delayed.keys()]).size;
	}

	/** Resolves once nothing is waiting, running or noticed. */
	idle(): Promise<void> {
		if (this.size === 0) return Promise.resolve();
		return new Promise((resolve) => this.idleWaiters.add(resolve));
	}

	/** Drops what has not started (pi is closing: what is left is re-checked at the next start); running checks finish. */
	cancel(): Promise<void> {
		for (const timer of this.delayed.values()) clearTimeout(timer);
		this.delayed.clear();
		const dropped = [...this.waiting.values()];
		this.waiting.clear();
		for (const waiting of dropped)
			waiting.reject(new Error("The toolbox was closed before this tool was re-checked."));
		this.wakeIdle();
		return Promise.all([...this.running.values()].map((p) => p.catch(() => undefined))).then(() => undefined);
	}

	private moveFirst(name: string, waiting: Waiting<T>): void {
		const rest = [...this.waiting].filter(([other]) => other !== name);
		this.waiting.clear();
		this.waiting.set(name, waiting);
		for (const [other, entry] of rest) this.waiting.set(other, entry);
	}

	private cancelDelay(name: string): void {
		const timer = this.delayed.get(name);
		if (timer === undefined) return;
		clearTimeout(timer);
		this.delayed.delete(name);
	}

	private drain(): void {
		if (this.draining) this.nudge?.();
		if (this.draining || this.waiting.size === 0) return;
		this.draining = this.hold(() => this.runAll())
			.catch((error: unknown) => {
				// The hold itself failed (the lock could not be taken): what waited fails with it.
				const dropped = [...this.waiting.values()];
				this.waiting.clear();
				for (const waiting of dropped) waiting.reject(error);
			})
			.finally(() => {
				this.draining = undefined;
				if (this.waiting.size > 0) this.drain();
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

	/** The first waiting tool that is not running now. */
	private next(): string | undefined {
		for (const name of this.waiting.keys()) if (!this.running.has(name)) return name;
		return undefined;
	}

	private async start(name: string): Promise<void> {
		const waiting = this.waiting.get(name)!;
		this.waiting.delete(name);
		this.running.set(name, waiting.promise);
		try {
			waiting.resolve(await this.check(name));
		} catch (error) {
			waiting.reject(error);
		} finally {
			this.running.delete(name);
			this.wakeIdle();
		}
	}

	private wakeIdle(): void {
		if (this.waiting.size > 0 || this.running.size > 0 || this.delayed.size > 0) return;
		const waiters = [...this.idleWaiters];
		this.idleWaiters.clear();
		for (const wake of waiters) wake();
	}
}
