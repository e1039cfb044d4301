// What a worker takes away from its `process` before any forged code runs: everything that reaches past the worker
// (native bindings, signals to other processes, exiting, the working directory, channels to other tools' workers), and
// the network under strict policy.
// Both the tool workers and the preflight worker call it, so a module's top-level code meets the same walls as its logic.
import type { Limits } from "../protocol.ts";

/** Members of `process` a forged tool never gets. `_kill` is what `kill` calls: it signals any process (pi's included). */
const REFUSED_PROCESS_MEMBERS = [
	"binding",
	"_linkedBinding",
	"dlopen",
	"getBuiltinModule",
	"kill",
	"_kill",
	"abort",
	"reallyExit",
	"_debugProcess",
	"_debugEnd",
	"_startProfilerIdleNotifier",
	"_stopProfilerIdleNotifier",
	"loadEnvFile",
	"setuid",
	"setgid",
	"seteuid",
	"setegid",
	"setgroups",
	"initgroups",
	"chdir",
];

/**
 * Channels between the workers of one host: a tool could hand what it was granted (a secret, a file's content) to
 * another tool, or drive it, with no brokered request and no audit line. Each worker is its tool's alone.
 */
const CROSS_WORKER_GLOBALS = ["BroadcastChannel"];

/** The ways out to the network a worker has; `fetch` comes back brokered where the tool worker installs it. */
const NETWORK_GLOBALS = ["fetch", "WebSocket", "EventSource"];

export function harden(limits: Limits): void {
	const refuse = (name: string, advice: string) => () => {
		throw Object.assign(new Error(`process.${name} is not available to forged tools: ${advice}`), {
			code: "ERR_FORGE_UNSUPPORTED",
		});
	};
	const proc = process as unknown as Record<string, unknown>;
	for (const name of REFUSED_PROCESS_MEMBERS) {
		if (name in proc) lock(proc, name, refuse(name, "it reaches outside the tool."));
	}
	lock(proc, "exit", refuse("exit", "return a value to finish, or throw an Error to fail."));
	for (const name of CROSS_WORKER_GLOBALS) delete (globalThis as Record<string, unknown>)[name];
	if (limits.networkOff) {
		for (const name of NETWORK_GLOBALS) delete (globalThis as Record<string, unknown>)[name];
	}
	// A rejection nobody awaited, or a throw from a timer, must not take the worker (and other calls) down.
	process.on("unhandledRejection", () => undefined);
	process.on("uncaughtException", () => undefined);
}

/** Replaced for good: a tool cannot put the original back (it never had it) nor redefine the member. */
function lock(target: Record<string, unknown>, name: string, value: unknown): void {
	Object.defineProperty(target, name, { value, writable: false, configurable: false, enumerable: false });
}
