// Per-name ordering of the changes that run a candidate's code before they lock the toolbox (forge, roll-back, import):
// each joins the write queue once its own unlocked run has ended and the changes of its name asked for before it are
// over, so they change the toolbox in the order they were asked for (even one that lets the lock go to run its
// candidate again); changes of other names never wait for them.

export class NameTurns {
	/** Per name, when the last change of it asked for is over. */
	private readonly turns = new Map<string | undefined, Promise<unknown>>();

	/** Calls `join` (the change's locked half) once `first` has settled and the earlier changes of `name` are over. */
	inTurn<T>(name: string | undefined, first: Promise<unknown>, join: () => Promise<T>): Promise<T> {
		const done = (this.turns.get(name) ?? Promise.resolve()).then(async () => {
			await first.catch(() => undefined);
			return join();
		});
		const turn = done.catch(() => undefined);
		this.turns.set(name, turn);
		void turn.then(() => {
			if (this.turns.get(name) === turn) this.turns.delete(name);
		});
		return done;
	}
}
