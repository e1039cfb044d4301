// A hand edit of a tool that is not taken in yet (or a `forge-<name>.ts` dropped in without metadata), checked before
// the toolbox is locked: its preflight load (the file's top-level code) runs now, and what passed goes into the compile
// cache, where taking the edit in under the lock finds it and loads nothing. An edit that fails is left to the take-in,
// which records it as broken (loading it again).
import { hashSource } from "../contract/tool-files.ts";
import { verifyToolFile } from "../forge/check-source.ts";
import { parseRegistry, sameStamps, staleNames } from "../store/registry.ts";
import type { ToolboxContext } from "./context.ts";

export async function precheckEdit(box: ToolboxContext, name: string): Promise<void> {
	if (box.readOnly || box.closing) return;
	const entry = box.registry.get(name);
	if (entry && sameStamps(entry.stamps, await box.store.stampsOf(name))) return;
	const { source, meta } = await box.store.readTool(name, { tolerant: true });
	if (source === undefined) return;
	const hash = hashSource(source);
	if ((meta?.ok && meta.value.hash === hash) || (await box.cache.checked(hash))?.shape?.name === name) return;
	const preflight = box.runner.preflightBatch ?? box.runner.preflight;
	const verified = await verifyToolFile(name, box.store.tsPath(name), source, preflight);
	if (verified.ok) await box.cache.store(hash, verified.value.transpiled.cjs, verified.value.shape);
}

/** Prechecks the tools whose files differ from the registry on disk (all of them, without one), `concurrency` at once. */
export async function precheckStale(box: ToolboxContext, concurrency: number): Promise<void> {
	const [text, onDisk] = await Promise.all([box.store.readRegistry(), box.store.listStamps()]);
	const registry = parseRegistry(text);
	const queue = registry ? staleNames(registry, onDisk) : [...onDisk.keys()];
	const worker = async () => {
		for (let name = queue.shift(); name !== undefined; name = queue.shift())
			await precheckEdit(box, name).catch(() => undefined);
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
}
