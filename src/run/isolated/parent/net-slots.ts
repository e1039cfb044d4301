// How many brokered requests pi's process runs at once: each may hold up to 10 MB of body, so a tool that fires
// hundreds of requests in parallel waits for a slot instead of filling pi's memory. Shared fairly between tools: one
// tool holds at most `share` of the slots, so the rest are free for another tool's first request, and a slot given
// up goes to the waiting tool that holds fewest (in turn among equals; each tool's own requests first come, first
// served), so a tool with hundreds of requests queued makes another wait behind one of them at most, not all. A
// request whose call ends (or whose time runs out) while it waits leaves the queue.

export class Slots {
	private free: number;
	private readonly held = new Map<string, number>();
	/** Each tool's waiting requests; the map's order is the order tools get their turn in. */
	private readonly waiting = new Map<string, (() => void)[]>();

	/** `count` slots in all; at most `share` held by one tool (all of them for requests of no tool). */
	constructor(
		count: number,
		private readonly share = count,
	) {
		this.free = count;
	}

	/**
	 * Waits for a slot for `tool` (or rejects with the signal's reason when it aborts first); resolves to the slot's
	 * release. Requests of no tool (`undefined`) share one queue, which may hold every slot.
	 */
	async take(signal: AbortSignal, tool?: string): Promise<() => void> {
		if (signal.aborted) throw signal.reason;
		const key = tool ?? "";
		if (this.free > 0 && !this.waiting.has(key) && this.heldBy(key) < this.limit(key)) this.grant(key);
		else
			await new Promise<void>((resolve, reject) => {
				const turn = () => {
					signal.removeEventListener("abort", leave);
					resolve();
				};
				const leave = () => {
					const queue = this.waiting.get(key) ?? [];
					const at = queue.indexOf(turn);
					if (at >= 0) queue.splice(at, 1);
					if (!queue.length) this.waiting.delete(key);
					reject(signal.reason);
				};
				const queue = this.waiting.get(key);
				if (queue) queue.push(turn);
				else this.waiting.set(key, [turn]);
				signal.addEventListener("abort", leave, { once: true });
			});
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.held.set(key, this.heldBy(key) - 1);
			if (!this.heldBy(key)) this.held.delete(key);
			this.free++;
			this.dispatch();
		};
	}

	/** Free slots to waiting requests: the first of the tool that holds fewest (of those under their share; in turn). */
	private dispatch(): void {
		while (this.free > 0) {
			let chosen: string | undefined;
			for (const key of this.waiting.keys())
				if (this.heldBy(key) < this.limit(key) && (chosen === undefined || this.heldBy(key) < this.heldBy(chosen)))
					chosen = key;
			if (chosen === undefined) return;
			const queue = this.waiting.get(chosen)!;
			const next = queue.shift()!;
			// To the back of the turn order (or out of it, with nothing left to wait for).
			this.waiting.delete(chosen);
			if (queue.length) this.waiting.set(chosen, queue);
			this.grant(chosen);
			next();
		}
	}

	private grant(key: string): void {
		this.free--;
		this.held.set(key, this.heldBy(key) + 1);
	}

	private heldBy(key: string): number {
		return this.held.get(key) ?? 0;
	}

	private limit(key: string): number {
		return key === "" ? Number.POSITIVE_INFINITY : this.share;
	}
}
