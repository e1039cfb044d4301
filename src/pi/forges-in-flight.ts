// forge_tool calls of the current assistant message, by tool call id. pi announces every call of a message (its
// tool_call event) before it runs any of them, and runs them concurrently: a call of a forged tool in the same message
// waits here for a forge of the same name, so it runs the version being forged and can say which.

export type ForgeOutcome = { ok: true; version: number } | { ok: false; phase: string };

interface InFlight {
	name: string;
	done: Promise<ForgeOutcome | undefined>;
	settle(outcome: ForgeOutcome | undefined): void;
}

export class ForgesInFlight {
	private readonly calls = new Map<string, InFlight>();

	/** A forge_tool call of this message, about to run. */
	announce(toolCallId: string, name: unknown): void {
		if (typeof name !== "string" || this.calls.has(toolCallId)) return;
		// A promise settles once: a second settle (the call's end after its result) changes nothing.
		let settle!: (outcome: ForgeOutcome | undefined) => void;
		const done = new Promise<ForgeOutcome | undefined>((resolve) => (settle = resolve));
		this.calls.set(toolCallId, { name, done, settle });
	}

	/** The forge's result; `undefined` when it ended without forging anything (blocked, aborted, refused early). */
	settle(toolCallId: string, outcome: ForgeOutcome | undefined): void {
		this.calls.get(toolCallId)?.settle(outcome);
	}

	/**
	 * Waits for every forge of `name` announced in this message; resolves to the outcome of the last one that forged
	 * or failed, or `undefined` when there was none. Stops waiting when `signal` aborts.
	 */
	async waitFor(name: string, signal?: AbortSignal): Promise<ForgeOutcome | undefined> {
		const forges = [...this.calls.values()].filter((call) => call.name === name);
		if (forges.length === 0) return undefined;
		const all = Promise.all(forges.map((call) => call.done));
		const aborted = new Promise<undefined>((resolve) =>
			signal?.addEventListener("abort", () => resolve(undefined), { once: true }),
		);
		const outcomes = await Promise.race([all, aborted]);
		return outcomes?.filter((outcome) => outcome !== undefined).at(-1);
	}

	/** The message's calls are over: forget them. */
	clear(): void {
		for (const call of this.calls.values()) call.settle(undefined);
		this.calls.clear();
	}
}
