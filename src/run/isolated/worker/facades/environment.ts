// `process.env` and `pi` in the isolated runner: the safe variables are there; any other is asked of pi's process
// (policy, prompt, audit) the first time a call reads it. `pi` offers `exec` and `useTool`; the rest of the ExtensionAPI needs
// the inline grant.
import type { ExecResult } from "../../protocol.ts";
import { type Brokered, currentCall } from "../worker-broker.ts";

/** Calls whose answers are kept (a worker runs one call at a time, or a few at once). */
const MAX_CALLS_REMEMBERED = 8;

export function installEnvironment(broker: Brokered, safeEnv: Record<string, string>): void {
	const known: Record<string, string | undefined> = { ...safeEnv };
	// What pi answered, per call: a grant or a revocation made since holds from the next call; a refusal throws and is
	// not kept, so the next read asks again.
	const answers = new Map<number, Map<string, string | undefined>>();
	const env = new Proxy(known, {
		get(target, key) {
			if (typeof key !== "string") return undefined;
			if (Object.hasOwn(target, key)) return target[key];
			// What every object inherits (toString, constructor…) is no variable: String(process.env) asks nobody.
			if (key in Object.prototype) return Reflect.get(target, key);
			const callId = currentCall.getStore()?.callId ?? 0;
			const answered = answers.get(callId);
			if (answered?.has(key)) return answered.get(key);
			const value = broker.sync({ kind: "env", name: key }) as string | undefined;
			if (!answered) {
				if (answers.size >= MAX_CALLS_REMEMBERED) answers.delete(answers.keys().next().value as number);
				answers.set(callId, new Map([[key, value]]));
			} else answered.set(key, value);
			return value;
		},
		set(target, key, value) {
			if (typeof key === "string") target[key] = String(value);
			return true;
		},
	});
	Object.defineProperty(process, "env", { value: env, configurable: true, writable: true });
}

export function createPiFacade(broker: Brokered): unknown {
	const facade = {
		async exec(command: string, args: string[] = [], options: { cwd?: string; timeout?: number } = {}) {
			const result = (await broker.async({
				kind: "exec",
				file: command,
				args: args.map(String),
				shell: false,
				cwd: options.cwd,
				timeoutMs: options.timeout,
			})) as ExecResult;
			return {
				stdout: result.stdout,
				stderr: result.stderr,
				code: result.status ?? 1,
				killed: result.signal !== null,
			};
		},
		/** Another forged tool or one of pi's built-ins, run for this tool by pi's process: resolves to what it returned. */
		useTool(name: unknown, args: unknown = {}) {
			return broker.async({ kind: "use", name: String(name), args });
		},
	};
	return new Proxy(facade, {
		get(target, key) {
			if (typeof key !== "string" || key === "then") return undefined;
			if (Object.hasOwn(target, key)) return target[key as keyof typeof target];
			// Only a member pi's ExtensionAPI has needs the inline grant; any other name is simply not there.
			if (!EXTENSION_API_MEMBERS.has(key)) return undefined;
			return broker.sync({ kind: "inline", member: key });
		},
	});
}

/** The members of pi's ExtensionAPI (both lines) besides exec: reaching one asks for the inline grant. */
const EXTENSION_API_MEMBERS: ReadonlySet<string> = new Set([
	"appendEntry",
	"events",
	"getActiveTools",
	"getAllTools",
	"getCommands",
	"getFlag",
	"getSessionName",
	"getThinkingLevel",
	"on",
	"registerCommand",
	"registerEntryRenderer",
	"registerFlag",
	"registerMarkdownTransformer",
	"registerMessageRenderer",
	"registerProvider",
	"registerShortcut",
	"registerTool",
	"sendMessage",
	"sendUserMessage",
	"setActiveTools",
	"setLabel",
	"setModel",
	"setSessionName",
	"setThinkingLevel",
	"unregisterProvider",
]);
