// How many brokered requests pi's process runs at once: each may hold up to 10 MB of body, so a tool that fires
// hundreds of requests in parallel waits for a slot instead of filling pi's memory. First come, first served; a request
// whose call ends (or whose time runs out) while it waits leaves the queue.

export class Slots {
	private free: number;
	private readonly queue: (() => void)[] = [];

	constructor(count: number) {
		this.free = count;
	}

	/** Waits for a slot (or rejects with the signal's reason when it aborts first); resolves to the slot's release. */
	async take(signal: AbortSignal): Promise<() => void> {
		if (signal.aborted) throw signal.reason;
		if (this.free > 0) this.free--;
		else
			await new Promise<void>((resolve, reject) => {
				const turn = () => {
					signal.removeEventListener("abort", leave);
					resolve();
				};
				const leave = () => {
					const at = this.queue.indexOf(turn);
					if (at >= 0) this.queue.splice(at, 1);
					reject(signal.reason);
				};
				this.queue.push(turn);
				signal.addEventListener("abort", leave, { once: true });
			});
		let released = false;
		return () => {
			if (released) return;
			released = true;
			// A slot given up goes to the first request waiting, or back to the free ones.
			const next = this.queue.shift();
			if (next) next();
			else this.free++;
		};
	}
}
