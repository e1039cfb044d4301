// `process.env` and `pi` in the isolated runner: the safe variables are there; any other is asked of pi's process
// (policy, prompt, audit) the first time it is read. `pi` offers `exec`; the rest of the ExtensionAPI needs the inline grant.
import type { ExecResult } from "../protocol.ts";
import type { Brokered } from "../worker-broker.ts";

export function installEnvironment(broker: Brokered, safeEnv: Record<string, string>): void {
	const known: Record<string, string | undefined> = { ...safeEnv };
	const asked = new Set<string>();
	const env = new Proxy(known, {
		get(target, key) {
			if (typeof key !== "string") return undefined;
			if (Object.hasOwn(target, key) || asked.has(key)) return Object.hasOwn(target, key) ? target[key] : undefined;
			// What every object inherits (toString, constructor…) is no variable: String(process.env) asks nobody.
			if (key in Object.prototype) return Reflect.get(target, key);
			// A refusal throws and is not remembered: the next read asks again, so a grant given since holds.
			const value = broker.sync({ kind: "env", name: key }) as string | undefined;
			asked.add(key);
			if (value !== undefined) target[key] = value;
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
			const result = (await broker.async({ kind: "exec", file: command, args: args.map(String), shell: false, cwd: options.cwd, timeoutMs: options.timeout })) as ExecResult;
			return { stdout: result.stdout, stderr: result.stderr, code: result.status ?? 1, killed: result.signal !== null };
		},
	};
	return new Proxy(facade, {
		get(target, key) {
			if (typeof key !== "string" || key === "then") return undefined;
			if (Object.hasOwn(target, key)) return target[key as keyof typeof target];
			return broker.sync({ kind: "inline", member: key });
		},
	});
}
