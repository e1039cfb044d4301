// Watches a runner for tool code run while the toolbox lock is held: each preflight load, batch preflight load and run
// (a test's or a call's) is recorded when a holder of the lock asked for it (`byHolder`, see lock-guard.ts), and when
// the lock file of `dir` was there as it started (`whileLockFile`: meaningful only with one toolbox on the folder).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readConfig } from "../../src/config.ts";
import type { Runner } from "../../src/run/runner.ts";
import { LOCK_FILE } from "../../src/store/lock.ts";
import { holdsLock } from "../../src/toolbox/lock-guard.ts";
import { createToolbox } from "../../src/toolbox/open-toolbox.ts";
import type { Toolbox } from "../../src/toolbox/toolbox.ts";

export interface LockWatch {
	byHolder: string[];
	whileLockFile: string[];
	/** Every load and run seen, as `<kind> <tool>`. */
	seen: string[];
}

type Kind = "preflight" | "preflightBatch" | "run";

/**
 * Wraps `runner`'s loads and runs in place (the toolbox on it sees the wrapped ones); `onCall` hears each as it starts,
 * with the compiled code it loads or runs.
 */
export function watchRunner(
	runner: Runner,
	dir: string,
	onCall?: (kind: Kind, tool: string, code: string) => void,
): LockWatch {
	const watch: LockWatch = { byHolder: [], whileLockFile: [], seen: [] };
	const note = (kind: Kind, tool: string, code: string) => {
		const what = `${kind} ${tool}`;
		watch.seen.push(what);
		if (holdsLock()) watch.byHolder.push(what);
		if (existsSync(join(dir, LOCK_FILE))) watch.whileLockFile.push(what);
		onCall?.(kind, tool, code);
	};
	const wrap = <F extends (...args: never[]) => unknown>(
		kind: Kind,
		fn: F,
		about: (...args: Parameters<F>) => [string, string],
	) =>
		((...args: Parameters<F>) => {
			note(kind, ...about(...args));
			return fn(...args);
		}) as F;
	const target = runner as { -readonly [K in keyof Runner]: Runner[K] };
	target.preflight = wrap("preflight", runner.preflight.bind(runner), (_path, code, tool) => [tool, code]);
	if (runner.preflightBatch)
		target.preflightBatch = wrap("preflightBatch", runner.preflightBatch.bind(runner), (_path, code, tool) => [
			tool,
			code,
		]);
	target.run = wrap("run", runner.run.bind(runner), (request) => [request.tool.name, request.tool.code.code]);
	return watch;
}

/** Another toolbox on the folder of `cwd` (as another pi process would open it), on `runner`, opened with `options`. */
export async function openAgain(
	cwd: string,
	runner: Runner,
	env: Record<string, string> = {},
	options: { verify?: "now" | "background" } = {},
): Promise<{ toolbox: Toolbox; report: Awaited<ReturnType<Toolbox["open"]>> }> {
	const toolbox = createToolbox(readConfig(cwd, env).config, runner);
	const report = await toolbox.open(options);
	return { toolbox, report };
}
