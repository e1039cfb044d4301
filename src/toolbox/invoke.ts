// The call path: resolve a tool as its files are now, validate the arguments, run it in the runner, count the call in
// its health, normalise what it returned. Also a live tool's tests run on demand.
import { ForgeError, fail, ok, type Result, storedData, toData } from "../contract/forge-error.ts";
import { parseMeta, tsFileOf } from "../contract/tool-files.ts";
import type { TestVerdict } from "../contract/tool-tests.ts";
import { sharedChecker } from "../run/bounded-checker.ts";
import { type ToolOutput, withConsole } from "../run/result.ts";
import type { RunHost } from "../run/runner.ts";
import type { Changes } from "./changes.ts";
import type { ToolboxContext } from "./context.ts";
import { brokenToolError } from "./messages.ts";
import type { Reconciler } from "./reconcile.ts";
import { checkBoundMs, type TestCases } from "./test-cases.ts";
import type { CompiledTool } from "./tool-cache.ts";

export interface UseOptions {
	signal?: AbortSignal;
	host: RunHost;
	/** Scrubs what the call printed to the console before it becomes output the model reads. */
	redact?: (text: string) => string;
	/** A shorter deadline for this call (what is left of a composing call's); never more than PI_FORGE_TIMEOUT_MS. */
	timeoutMs?: number;
	/** A call made by a forge's test (a callee of the candidate): it writes only in its temp dir, as the test does. */
	test?: boolean;
	/**
	 * A call another tool made through pi.useTool: its caller chose its arguments and its deadline and may abandon it,
	 * so its outcome is not recorded in the tool's health; it runs in the worker of `workerKey` when given (one per
	 * top-level call, so stopping an abandoned call never stops the tool's other calls).
	 */
	nested?: { workerKey?: string };
}

export interface UseSuccess extends ToolOutput {
	durationMs: number;
	version: number;
}

export class Invoke {
	constructor(
		private readonly box: ToolboxContext,
		private readonly reconciler: Reconciler,
		private readonly changes: Changes,
		private readonly tests: TestCases,
	) {}

	/** Runs a forged tool: resolve, validate the arguments, run it in the runner, normalise what it returned. */
	async use(name: unknown, args: unknown, options: UseOptions): Promise<Result<UseSuccess>> {
		const { box } = this;
		// What runs is what is on disk now: a tool changed since it was checked is re-checked first.
		let entry = typeof name === "string" ? await this.reconciler.fresh(name) : undefined;
		let compiled: Result<CompiledTool> | "changed" = "changed";
		let validated: Result<Record<string, unknown>> | undefined;
		for (let attempt = 0; compiled === "changed"; attempt++) {
			if (!entry) return fail(box.notFound(name));
			if (entry.status === "broken") return fail(brokenToolError(entry, await box.store.readSource(entry.name)));
			validated = await box.cache.validators.validateWithin(
				entry.name,
				entry.hash,
				entry.parameters,
				args,
				sharedChecker(),
				checkBoundMs(box.config),
				options.signal,
			);
			if (!validated.ok) return validated;
			compiled = await box.cache.compiledTool(entry);
			if (compiled !== "changed") break;
			if (attempt === 2 || box.readOnly)
				return fail(changedOnDisk(entry.name, await box.store.readSource(entry.name)));
			// Same stamps, other content (a file restored with its old size and time): re-checked all the same.
			entry = await this.reconciler.recheckChanged(entry.name);
		}
		if (!compiled.ok) return compiled;
		if (!entry || !validated?.ok) return fail(box.notFound(name));

		box.emit({ type: "executing", name: entry.name });
		const started = performance.now();
		const outcome = await box.runner.run({
			tool: {
				name: entry.name,
				hash: entry.hash,
				version: entry.version,
				file: tsFileOf(entry.name),
				path: box.store.tsPath(entry.name),
				code: compiled.value.code,
				...(options.nested?.workerKey ? { key: options.nested.workerKey } : {}),
			},
			params: validated.value,
			cwd: box.config.cwd,
			timeoutMs: Math.min(options.timeoutMs ?? box.config.timeoutMs, box.config.timeoutMs),
			signal: options.signal,
			host: options.host,
			...(options.test ? { test: true } : {}),
		});
		const durationMs = performance.now() - started;
		// The tool never ran when the runner could not start: not a call, not a failure of the tool.
		if (!outcome.ok && outcome.error.phase === "runner") return fail(outcome.error.with({ tool: entry.name }));
		// A refused permission is a grant not given, not a fault of the tool: it never counts towards quarantine.
		const denied =
			!outcome.ok && (outcome.error.phase === "permission" || outcome.error.details.origin === "permission");
		if (!options.nested)
			box.health.record(entry.name, {
				ok: outcome.ok,
				denied,
				durationMs,
				at: box.now(),
				error: outcome.ok ? undefined : storedData(toData(outcome.error)),
			});
		box.emit({ type: "executed", name: entry.name, ok: outcome.ok, durationMs });
		if (!outcome.ok)
			return fail(outcome.error.with({ tool: entry.name, source: compiled.value.source, args: validated.value }));
		const printed = outcome.value.console;
		const output = withConsole(
			outcome.value.output,
			printed === undefined || !options.redact ? printed : options.redact(printed),
		);
		return ok({ ...output, durationMs, version: entry.version });
	}

	/** Runs a live tool's tests on demand (`/forge test`, `agent-forge test`). */
	async runTests(name: string): Promise<Result<TestVerdict[]>> {
		const { box } = this;
		const entry = await this.reconciler.fresh(name);
		if (!entry) return fail(box.notFound(name));
		const metaText = await this.reconciler.readMeta(name);
		const meta = metaText === undefined ? undefined : parseMeta(metaText, name);
		if (!meta?.ok)
			return fail(meta?.error ?? new ForgeError("load", `forge-${name}.json is missing.`, { tool: name }));
		const compiled = await box.cache.compiledTool(entry);
		if (compiled === "changed") return fail(changedOnDisk(name, await box.store.readSource(name)));
		if (!compiled.ok) return compiled;
		const verdicts = await this.tests.run(this.tests.testCopy(name, entry.hash, compiled.value.code), meta.value);
		if (!box.readOnly && verdicts.length && verdicts.every((v) => v.pass) && meta.value.verifiedHash !== entry.hash)
			await this.changes.markVerified(name, entry.hash);
		return ok(verdicts);
	}
}

/** A file that kept changing while it was being checked and run. */
function changedOnDisk(name: string, source: string | undefined): ForgeError {
	return new ForgeError("load", `${tsFileOf(name)} kept changing on disk while it was being checked.`, {
		tool: name,
		source,
		hint: "Call it again once the file is saved; to be sure of what runs, re-forge it with forge_tool.",
	});
}
