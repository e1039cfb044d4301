// Checks every tool of a toolbox as the forge would — metadata, hash, syntax, imports, a preflight load in the
// runner, its tests — without changing anything. For `agent-forge check` (CI of a shared toolbox) and `/forge`.
// Several tools at once, their loads in the runner's batch workers (as the re-checks at pi's start).
import { ForgeError, type ForgeErrorData, storedData, toData } from "../contract/forge-error.ts";
import type { PreflightLoader } from "../contract/module-shape.ts";
import { hashSource, jsonFileOf, tsFileOf } from "../contract/tool-files.ts";
import { type TestVerdict, testFailure } from "../contract/tool-tests.ts";
import { verifyToolFile } from "../forge/check-source.ts";
import type { ToolboxStore } from "../store/toolbox-store.ts";
import type { TestRunner } from "./forge-pipeline.ts";

export interface ToolVerdict {
	name: string;
	ok: boolean;
	version?: number;
	/** The file was edited by hand since the forge wrote it (it may still be valid). */
	edited?: boolean;
	/** How many tests ran (and passed, when `ok`); absent for a draft, which has none. */
	tests?: number;
	error?: ForgeErrorData;
}

/** What a check reads and runs: the toolbox's files, the runner's preflight, and its tests' runner. */
export interface CheckParts {
	store: ToolboxStore;
	preflight: PreflightLoader;
	runTests: (...args: Parameters<TestRunner>) => Promise<TestVerdict[]>;
}

const CHECK_CONCURRENCY = 8;

export async function checkToolbox(parts: CheckParts, names?: string[]): Promise<ToolVerdict[]> {
	const onDisk = [...(await parts.store.listStamps()).keys()].sort();
	const wanted = names?.length ? onDisk.filter((name) => names.includes(name)) : onDisk;
	const verdicts: ToolVerdict[] = new Array(wanted.length);
	let next = 0;
	const worker = async () => {
		for (let i = next++; i < wanted.length; i = next++) verdicts[i] = await checkTool(parts, wanted[i]);
	};
	await Promise.all(Array.from({ length: CHECK_CONCURRENCY }, worker));
	for (const name of names ?? []) {
		if (!onDisk.includes(name))
			verdicts.push({
				name,
				ok: false,
				error: { phase: "not-found", message: `There is no forged tool named '${name}'.` },
			});
	}
	return verdicts;
}

async function checkTool(parts: CheckParts, name: string): Promise<ToolVerdict> {
	const { source, metaText, meta } = await parts.store.readTool(name);
	const broken = (error: ForgeError, extra: Partial<ToolVerdict> = {}): ToolVerdict => ({
		name,
		ok: false,
		...extra,
		error: storedData(toData(error)),
	});
	if (source === undefined) return broken(new ForgeError("load", `${tsFileOf(name)} is missing.`));
	if (metaText === undefined || !meta) return broken(new ForgeError("load", `${jsonFileOf(name)} is missing.`));
	if (!meta.ok) return broken(meta.error);
	const edited = meta.value.hash !== hashSource(source);
	const verified = await verifyToolFile(name, parts.store.tsPath(name), source, parts.preflight);
	if (!verified.ok) return broken(verified.error, { version: meta.value.version, edited });
	const tests = meta.value.tests ?? [];
	if (tests.length === 0) return { name, ok: true, version: meta.value.version, edited };
	// The tests run against the file as it is now: its own schema and hash, whatever the metadata says.
	const candidate = {
		...meta.value,
		hash: hashSource(source),
		parameters: JSON.parse(JSON.stringify(verified.value.shape.parameters)) as Record<string, unknown>,
	};
	const verdicts = await parts.runTests(verified.value.transpiled.cjs, candidate);
	const failure = testFailure(verdicts, name, source);
	if (failure) {
		const failed = verdicts.filter((v) => !v.pass).length;
		const message = `${failed} of ${verdicts.length} test${verdicts.length === 1 ? "" : "s"} failed${edited ? " on the file as edited by hand" : ""}: ${failure.details.notes?.[0] ?? ""}`;
		return broken(new ForgeError("tests", message, failure.details), {
			version: meta.value.version,
			edited,
			tests: verdicts.length,
		});
	}
	return { name, ok: true, version: meta.value.version, edited, tests: verdicts.length };
}
