// What a forged tool prints with `console`, kept per call: a bounded buffer per call, and a console that writes into
// the buffer of the call whose code is printing (both runners decide which one that is, with AsyncLocalStorage).
import { Console } from "node:console";

/** Kept from the start of a call's output. */
export const CONSOLE_HEAD_CHARS = 6000;
/** Kept from its end (the last lines before a failure matter most). */
export const CONSOLE_TAIL_CHARS = 2000;

/**
 * One call's console output: the head and the tail are kept, the middle of a flood is counted, not stored. The head
 * is also handed to `onHead` as it is written (the isolated runner sends it on at once, so that a call stopped at its
 * deadline, a synchronous loop included, still has it).
 */
export class ConsoleBuffer {
	private head = "";
	private tail = "";
	private dropped = 0;

	constructor(private readonly onHead?: (text: string) => void) {}

	append(text: string): void {
		if (this.head.length < CONSOLE_HEAD_CHARS) {
			const room = CONSOLE_HEAD_CHARS - this.head.length;
			const kept = text.slice(0, room);
			this.head += kept;
			this.onHead?.(kept);
			text = text.slice(room);
			if (!text) return;
		}
		const tail = this.tail + text;
		const excess = tail.length - CONSOLE_TAIL_CHARS;
		if (excess > 0) this.dropped += excess;
		this.tail = excess > 0 ? tail.slice(excess) : tail;
	}

	/** The output, without its final newline; undefined when nothing was printed. */
	text(): string | undefined {
		const text =
			this.dropped > 0
				? `${this.head}\n… (${this.dropped} characters of console output left out) …\n${this.tail}`
				: this.head + this.tail;
		const trimmed = text.replace(/\n$/, "");
		return trimmed.length > 0 ? trimmed : undefined;
	}
}

/**
 * A console (every method: log, error, table, dir, time, group…) whose output goes to `current()`, the buffer of the
 * call running now; output with no call to belong to (a module's top-level code) is dropped.
 */
export function createCapturingConsole(current: () => ConsoleBuffer | undefined): Console {
	const sink = {
		write: (chunk: unknown) => {
			current()?.append(String(chunk));
			return true;
		},
	} as unknown as NodeJS.WritableStream;
	return new Console({ stdout: sink, stderr: sink, ignoreErrors: false, colorMode: false });
}
