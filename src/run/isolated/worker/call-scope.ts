// Inside a tool's worker: a call's code ends with the call. Installed before any forged code runs, this keeps track of
// what could act later (timers and immediates, unref'd ones included; AbortSignal.timeout, Atomics.waitAsync, message
// ports and FinalizationRegistry, which schedule by themselves; open handles such as sockets), skips a timer's callback
// once the call that set it is over (a module's own timers run only while one of its calls does), and says what is left
// when the worker falls idle (the host then replaces the worker). The network globals are left alone: reading them loads
// Node's fetch (about 20 ms on every worker's start), and a request a leftover makes is cut off with its worker.

type AnyFn = (...args: unknown[]) => unknown;

export interface CallScope {
	/** What is still scheduled or open now that no call runs (empty: nothing can act any more). */
	leftovers(): string[];
}

/**
 * `owner()` is the call the code running now belongs to (undefined at the module's top level); `running(id)` whether
 * that call still runs; `anyRunning()` whether any call does.
 */
export function installCallScope(
	owner: () => number | undefined,
	running: (callId: number) => boolean,
	anyRunning: () => boolean,
): CallScope {
	const g = globalThis as unknown as Record<string, unknown>;
	const { apply, construct } = Reflect;
	const live = new Set<object>();
	const tainted = new Set<string>();
	const allowed = (callId: number | undefined) => (callId === undefined ? anyRunning() : running(callId));

	const track = (startName: string, clearName: string, repeating: boolean) => {
		const start = g[startName] as AnyFn;
		const clear = g[clearName] as AnyFn;
		g[startName] = function scheduled(this: unknown, callback: unknown, ...rest: unknown[]) {
			if (typeof callback !== "function") return apply(start, this, [callback, ...rest]);
			const callId = owner();
			let handle: object;
			const run = function (this: unknown, ...args: unknown[]) {
				if (!repeating) live.delete(handle);
				if (!allowed(callId)) {
					live.delete(handle);
					apply(clear, undefined, [handle]);
					return undefined;
				}
				return apply(callback as AnyFn, this, args);
			};
			handle = apply(start, this, [run, ...rest]) as object;
			live.add(handle);
			return handle;
		};
		g[clearName] = function cleared(this: unknown, handle: unknown) {
			if (typeof handle === "object" && handle !== null) live.delete(handle);
			else if (handle !== undefined && handle !== null)
				for (const item of live) if (Number(item) === Number(handle)) live.delete(item);
			return apply(clear, this, [handle]);
		};
	};
	track("setTimeout", "clearTimeout", false);
	track("setInterval", "clearInterval", true);
	track("setImmediate", "clearImmediate", false);

	const taint = (name: string) => tainted.add(name);
	const abortTimeout = AbortSignal.timeout;
	AbortSignal.timeout = function timeout(this: unknown, ...args: unknown[]) {
		taint("AbortSignal.timeout");
		return apply(abortTimeout, this, args) as AbortSignal;
	};
	const waitAsync = (Atomics as unknown as { waitAsync?: AnyFn }).waitAsync;
	if (waitAsync) {
		(Atomics as unknown as { waitAsync: AnyFn }).waitAsync = function (this: unknown, ...args: unknown[]) {
			taint("Atomics.waitAsync");
			return apply(waitAsync, this, args);
		};
	}
	// Each schedules work on its own (a port's messages, a registry's clean-ups), unref'd or not.
	for (const name of ["FinalizationRegistry", "MessageChannel", "BroadcastChannel"]) {
		const original = g[name];
		if (typeof original !== "function") continue;
		g[name] = new Proxy(original, {
			construct(target, args, newTarget) {
				// Node's own modules make these too (its fetch does, when a tool first uses it): those are not the tool's.
				if (!/^\s*at .*\(?node:/.test(new Error().stack?.split("\n")[2] ?? "")) taint(name);
				return construct(target as new (...a: unknown[]) => object, args, newTarget);
			},
		});
	}

	const resources = () => process.getActiveResourcesInfo().length;
	const baseline = resources();
	return {
		leftovers() {
			const left: string[] = [...tainted];
			if (live.size > 0) left.push(`${live.size} timer${live.size === 1 ? "" : "s"}`);
			const open = resources() - baseline;
			if (open > 0) left.push(`${open} open handle${open === 1 ? "" : "s"}`);
			return left;
		},
	};
}
