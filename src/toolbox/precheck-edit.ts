// A hand edit of a tool that is not taken in yet (or a `forge-<name>.ts` dropped in without metadata), checked before
// the toolbox is locked: its preflight load (the file's top-level code) runs now. What passed goes into the compile
// cache, where taking the edit in under the lock finds it and loads nothing; what failed is kept in `FailedLoads`, which
// answers the take-in's load of that same code at once.
import type { Result } from "../contract/forge-error.ts";
import type { ModuleShape, PreflightLoader } from "../contract/module-shape.ts";
import { hashSource } from "../contract/tool-files.ts";
import { verifyToolFile } from "../forge/check-source.ts";
import { parseRegistry, sameStamps, staleNames } from "../store/registry.ts";
import type { ToolboxContext } from "./context.ts";
import { unlockedOnly } from "./lock-guard.ts";

export interface PrecheckOptions {
	/** Check it even if its stamps are the ones recorded (its content was found to differ). */
	force?: boolean;
	/** Where a failed load is kept for the take-in. */
	failed?: FailedLoads;
}

export async function precheckEdit(box: ToolboxContext, name: string, options: PrecheckOptions = {}): Promise<void> {
	if (box.readOnly || box.closing) return;
	const entry = box.registry.get(name);
	if (entry && !options.force && sameStamps(entry.stamps, await box.store.stampsOf(name))) return;
	const { source, meta } = await box.store.readTool(name, { tolerant: true });
	if (source === undefined) return;
	const hash = hashSource(source);
	if ((meta?.ok && meta.value.hash === hash) || (await box.cache.checked(hash))?.shape?.name === name) return;
	const load = unlockedOnly(box.runner.preflightBatch ?? box.runner.preflight);
	const preflight: PreflightLoader = async (path, code, tool, file, map) => {
		const shape = await load(path, code, tool, file, map);
		options.failed?.remember(tool, code, shape);
		return shape;
	};
	const verified = await verifyToolFile(name, box.store.tsPath(name), source, preflight);
	if (verified.ok) await box.cache.store(hash, verified.value.transpiled.cjs, verified.value.shape);
}

/** Prechecks the tools whose files differ from the registry on disk (all of them, without one), `concurrency` at once. */
export async function precheckStale(box: ToolboxContext, concurrency: number, failed?: FailedLoads): Promise<void> {
	const [text, onDisk] = await Promise.all([box.store.readRegistry(), box.store.listStamps()]);
	const registry = parseRegistry(text);
	const queue = registry ? staleNames(registry, onDisk) : [...onDisk.keys()];
	const worker = async () => {
		for (let name = queue.shift(); name !== undefined; name = queue.shift())
			await precheckEdit(box, name, { failed }).catch(() => undefined);
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
}

/** The prechecks' loads that failed, by tool and compiled code, each answered once to the take-in under the lock. */
export class FailedLoads {
	private readonly failed = new Map<string, Result<ModuleShape>>();

	remember(tool: string, code: string, shape: Result<ModuleShape>): void {
		// A runner that could not start says nothing of the code: the take-in tries again.
		if (!shape.ok && shape.error.phase !== "runner") this.failed.set(`${tool}\0${code}`, shape);
	}

	/** `load`, but a load of code that failed in a precheck is answered with that failure at once. */
	preflight(load: PreflightLoader): PreflightLoader {
		return (path, code, tool, file, map) => {
			const key = `${tool}\0${code}`;
			const known = this.failed.get(key);
			this.failed.delete(key);
			return known ? Promise.resolve(known) : load(path, code, tool, file, map);
		};
	}
}
