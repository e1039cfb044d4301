// Per-name ordering of the changes that run a candidate's code before they lock the toolbox (forge, roll-back, import):
// each joins the write queue once its own unlocked run has ended and the changes of its name asked for before it have
// joined, so they change the toolbox in the order they were asked for; changes of other names never wait for them.

export class NameTurns {
	/** Per name, where the last change of it joins the write queue. */
	private readonly turns = new Map<string | undefined, Promise<unknown>>();

	/** Calls `join` (which queues the locked half) once `first` has settled and the earlier changes of `name` have joined. */
	inTurn<T>(name: string | undefined, first: Promise<unknown>, join: () => Promise<T>): Promise<T> {
		const joined = (this.turns.get(name) ?? Promise.resolve()).then(async () => {
			await first.catch(() => undefined);
			return { queued: join() };
		});
		const turn = joined.catch(() => undefined);
		this.turns.set(name, turn);
		void turn.then(() => {
			if (this.turns.get(name) === turn) this.turns.delete(name);
		});
		return joined.then(({ queued }) => queued);
	}
}
