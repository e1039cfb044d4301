// The runner of the user toolbox: the project toolbox's own runner (one host process for both), with the user
// toolbox's tools loaded under keys of their own.
import type { Runner } from "../run/runner.ts";

/**
 * The runner of the user toolbox: the project's, with every loaded copy under a key of its own (`user:<name>`), so a
 * user tool and a project tool of the same name never run each other's code. Closing the user toolbox leaves it running.
 * Everything else (the preflights, what the runner says of itself) is the shared runner's own.
 */
export function userRunner(runner: Runner): Runner {
	const key = (name: string) => `user:${name}`;
	const own: Pick<Runner, "run" | "forget" | "dispose"> = {
		run: (request) =>
			runner.run({ ...request, tool: { ...request.tool, key: key(request.tool.key ?? request.tool.name) } }),
		forget: (name) => runner.forget(key(name)),
		dispose: async () => undefined,
	};
	return new Proxy(runner, {
		get(target, property) {
			if (Object.hasOwn(own, property)) return own[property as keyof typeof own];
			const value: unknown = Reflect.get(target, property, target);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}
