// The calls and preflight loads sent to the runner host and not settled yet, by call id: each settles once, by its
// result, its deadline (which stops while a person is asked for a grant), its cancellation or its host's death.
// What the call printed and the grant commands the gate offered are added to its error here, in pi's process.
import type { ChildProcess } from "node:child_process";
import { type ForgeError, fail, type Result } from "../../../contract/forge-error.ts";
import { ConsoleBuffer } from "../../console-capture.ts";
import type { RunHost } from "../../runner.ts";
import { killGroup } from "./exec-command.ts";
import type { HostProcess } from "./host-process.ts";
import { cancelledError, deadlineError } from "./wire-errors.ts";

export interface PendingCall {
	callId: number;
	tool: string;
	hash: string;
	host?: RunHost;
	/** The host the job was sent to: when it dies, the job fails; a host started after it is not concerned. */
	process: HostProcess;
	/** Commands the broker started for the call, killed with it. */
	children: Set<ChildProcess>;
	/** The head of the call's console output as it arrives, for a failure that comes from here (deadline, crash). */
	printed: ConsoleBuffer;
	/** The commands that grant what the gate refused during the call (made in pi's process, not by the tool). */
	grants: string[];
	/** Notifications shown for the call so far (a call shows at most MAX_NOTIFICATIONS). */
	notified: number;
	/** Aborted when the call ends, however it ends (a tool it called through pi.useTool stops with it). */
	ended: AbortSignal;
	/** When the call's deadline passes (ms since the epoch, as last armed): what a nested call may use of it. */
	deadline: number;
	/** A forge's test: it writes only in its tool's private temp dir. */
	test?: boolean;
	finish(result: Result<unknown>): void;
}

interface Entry extends PendingCall {
	/** Set while the deadline runs. */
	timer?: NodeJS.Timeout;
	armedAt: number;
	remaining: number;
	/** Dialogs open for the call: those its worker sleeps on (`blocking`), and those it may run code during. */
	holds: { blocking: number; watched: number; busy: boolean };
	onTimeout(): void;
}

export interface CallSpec {
	tool: string;
	hash: string;
	host?: RunHost;
	timeoutMs: number;
	process: HostProcess;
	signal?: AbortSignal;
	/** A forge's test (see PendingCall). */
	test?: boolean;
	/** After a deadline fails the call: stop what runs it. */
	onDeadline(): void;
	/** After a cancellation fails the call: tell the host, stop what runs it. */
	onCancel(callId: number): void;
}

/** Notifications one call may show (a loop of ctx.notify must not flood pi's UI). */
export const MAX_NOTIFICATIONS = 20;

export class CallTable {
	private readonly entries = new Map<number, Entry>();
	private nextId = 1;

	/** Opens a call, hands its id to `send`, and resolves with how it ended. */
	open(spec: CallSpec, send: (callId: number) => void): Promise<Result<unknown>> {
		const callId = this.nextId++;
		const { tool, signal } = spec;
		return new Promise<Result<unknown>>((resolve) => {
			const ended = new AbortController();
			const entry: Entry = {
				callId,
				tool,
				hash: spec.hash,
				host: spec.host,
				armedAt: 0,
				remaining: spec.timeoutMs,
				holds: { blocking: 0, watched: 0, busy: false },
				children: new Set(),
				process: spec.process,
				printed: new ConsoleBuffer(),
				grants: [],
				notified: 0,
				ended: ended.signal,
				deadline: Date.now() + spec.timeoutMs,
				...(spec.test ? { test: true } : {}),
				finish: (result) => {
					if (!this.entries.has(callId)) return;
					this.entries.delete(callId);
					ended.abort();
					clearTimeout(entry.timer);
					signal?.removeEventListener("abort", onAbort);
					for (const child of entry.children) killGroup(child);
					resolve(withCallNotes(result, entry));
				},
				onTimeout: () => {
					entry.finish(fail(deadlineError(tool, spec.timeoutMs)));
					spec.onDeadline();
				},
			};
			const onAbort = () => {
				spec.onCancel(callId);
				entry.finish(fail(cancelledError(tool)));
			};
			this.entries.set(callId, entry);
			this.arm(entry);
			if (signal?.aborted) return onAbort();
			signal?.addEventListener("abort", onAbort, { once: true });
			send(callId);
		});
	}

	get(callId: number): PendingCall | undefined {
		return this.entries.get(callId);
	}

	/** Whether the call is still the one open under its id. */
	isOpen(call: PendingCall): boolean {
		return this.entries.get(call.callId) === call;
	}

	/** A running call of this version of a tool (a request from outside any call belongs to it). */
	running(tool: string, hash: string): PendingCall | undefined {
		for (const entry of this.entries.values()) if (entry.tool === tool && entry.hash === hash) return entry;
		return undefined;
	}

	/** A call's notification, while it has not shown MAX_NOTIFICATIONS; then one note that the rest are dropped. */
	notify(callId: number, text: string, level?: "info" | "warning" | "error"): void {
		const call = this.entries.get(callId);
		if (!call?.host) return;
		const shown = ++call.notified;
		if (shown <= MAX_NOTIFICATIONS) call.host.notify(text, level);
		else if (shown === MAX_NOTIFICATIONS + 1)
			call.host.notify(
				`'${call.tool}' sent more than ${MAX_NOTIFICATIONS} notifications in one call; the rest of this call's are not shown.`,
				"warning",
			);
	}

	/** Every open call (a copy: finishing one while walking is safe). */
	all(): PendingCall[] {
		return [...this.entries.values()];
	}

	/**
	 * The deadline stops while a person is asked for a grant, as long as the tool's code cannot use the time: its worker
	 * sleeps on the answer (`blocking`), or — watched by the host (hold/busy) — does nothing else meanwhile. A command
	 * of the call running meanwhile keeps it running. Returns the function that ends this pause.
	 */
	pause(call: PendingCall, blocking: boolean): () => void {
		const entry = this.entries.get(call.callId);
		if (!entry || entry !== call) return () => undefined;
		const { holds } = entry;
		if (blocking) holds.blocking++;
		else if (holds.watched++ === 0) entry.process.send({ type: "hold", callId: entry.callId, on: true });
		this.settle(entry);
		let resumed = false;
		return () => {
			if (resumed || this.entries.get(entry.callId) !== entry) return;
			resumed = true;
			if (blocking) holds.blocking--;
			else if (--holds.watched === 0) {
				holds.busy = false;
				entry.process.send({ type: "hold", callId: entry.callId, on: false });
			}
			this.settle(entry);
		};
	}

	/** The host saw the worker of a held call run code: its deadline runs for the rest of the dialog. */
	busy(callId: number): void {
		const entry = this.entries.get(callId);
		if (!entry || entry.holds.watched === 0) return;
		entry.holds.busy = true;
		this.settle(entry);
	}

	/** Stops or restarts the deadline as the call's dialogs, worker and commands say. */
	private settle(entry: Entry): void {
		const { blocking, watched, busy } = entry.holds;
		const stopped = entry.children.size === 0 && (blocking > 0 || (watched > 0 && !busy));
		if (stopped && entry.timer) {
			clearTimeout(entry.timer);
			entry.timer = undefined;
			entry.remaining -= Date.now() - entry.armedAt;
		} else if (!stopped && !entry.timer) this.arm(entry);
	}

	private arm(entry: Entry): void {
		entry.armedAt = Date.now();
		// What a nested call may use moves with the pauses: the time a person took to answer is given back.
		entry.deadline = entry.armedAt + entry.remaining;
		entry.timer = setTimeout(entry.onTimeout, entry.remaining);
	}
}

/** A failure gets what the call printed (when the error has none of its own) and the grant commands offered. */
function withCallNotes(result: Result<unknown>, entry: Entry): Result<unknown> {
	if (result.ok) return result;
	const error: ForgeError = result.error;
	const printed = error.details.console !== undefined ? undefined : entry.printed.text();
	const grants = [...new Set(entry.grants)];
	if (printed === undefined && grants.length === 0) return result;
	return fail(
		error.with({
			...(printed === undefined ? {} : { console: printed }),
			...(grants.length ? { grants } : {}),
		}),
	);
}
