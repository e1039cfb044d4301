// The forge pipeline, in this order: name → description → parameters schema → logic → tests (parsed) → render →
// secrets → the next version's metadata; then `promoteSource`: stage the pair (while the source is checked) →
// transpile (syntax) → imports → parameters against the code → preflight load in the runner → tests → promote.
// Each step returns a Result; the first failure stops the pipeline and nothing live on disk has changed.
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import type { PreflightLoader } from "../contract/module-shape.ts";
import { type TakenNames, validateName } from "../contract/names.ts";
import { hashSource, serializeMeta, type ToolMeta, tsFileOf } from "../contract/tool-files.ts";
import {
	parseTests,
	type TestsChange,
	type TestVerdict,
	type ToolTest,
	testFailure,
	testsChange,
} from "../contract/tool-tests.ts";
import { checkSource } from "../forge/check-source.ts";
import { checkParams } from "../forge/params-check.ts";
import { renderTool } from "../forge/render.ts";
import type { CompiledCode } from "../forge/transpile.ts";
import { controlCharacter } from "../policy/terminal-text.ts";
import { validateParametersSchema } from "../schema/parameters-schema.ts";
import { findSecrets, secretRefusal } from "../security/secrets.ts";
import type { PromoteResult, StagedTool, ToolboxStore } from "../store/toolbox-store.ts";
import { nextVersion } from "./next-version.ts";

export interface ForgeRequest {
	name: unknown;
	description: unknown;
	parametersSchema: unknown;
	logic: unknown;
	/** Example calls that must pass before the tool is promoted; when absent, the previous version's tests are kept. */
	tests?: unknown;
}

/** Runs a candidate's tests against its compiled code, where real calls run; none after `signal` aborts. */
export type TestRunner = (code: CompiledCode, meta: ToolMeta, signal?: AbortSignal) => Promise<TestVerdict[]>;

export interface PipelineDeps {
	store: ToolboxStore;
	template: string;
	takenNames: TakenNames;
	/** The live version of this name, if any (its version number is continued). */
	previous?: PreviousVersion;
	/** Where the staged file is loaded: the runner's preflight, so top-level code runs where tools run. */
	preflight: PreflightLoader;
	runTests?: TestRunner;
	/** The forge_tool call's: a cancelled forge runs no more tests. */
	signal?: AbortSignal;
	/** The live version's tests, kept when a re-forge gives none. */
	previousTests?: ToolTest[];
	now?: () => Date;
	/**
	 * Check, preflight-load and test the candidate, then stop: nothing is staged or promoted, and the result is
	 * DRY_RUN's error when every check passed (the run before the toolbox is locked, see candidate-runs.ts).
	 */
	dryRun?: boolean;
	/** The source checks (transpile, imports); default checkSource. A change that runs twice passes a remembering one. */
	check?: typeof checkSource;
	/**
	 * Writes the candidate's pair to a staging folder; default the store's. A change that runs twice passes a
	 * remembering one, which the dry run calls too (`early`), so the pair is on disk before the lock.
	 */
	stage?: (tool: string, source: string, metaText: string, early?: boolean) => Promise<StagedTool>;
	/** The preflight loads the file at its path (the inline runner's jiti): a dry run loads the pair it stages. */
	readsFile?: boolean;
}

/** What a dry run ends with when the candidate passed everything it was put through. */
export const DRY_RUN = new ForgeError("store", "A dry run: checked, loaded and tested, not promoted.");

export interface PreviousVersion {
	version: number;
	createdAt?: string;
	tests?: ToolTest[];
	/** The live file was edited by hand after this version was forged, and the edit was not taken in (it did not pass the checks). */
	editedByHand?: boolean;
}

export interface Forged extends PromoteResult {
	meta: ToolMeta;
	source: string;
	compiled: CompiledCode;
	previous?: PreviousVersion;
	/** What happened to the previous version's tests (set by a forge; a roll-back or import restores a version's own). */
	tests?: TestsChange;
}

export const MAX_DESCRIPTION = 2000;
export const MAX_LOGIC = 200_000;

export async function runForgePipeline(request: ForgeRequest, deps: PipelineDeps): Promise<Result<Forged>> {
	const name = validateName(request.name, deps.takenNames);
	if (!name.ok) return name;
	const tool = name.value;
	const withTool = (error: ForgeError) => fail(error.with({ tool }));

	const description = validateDescription(request.description);
	if (!description.ok) return withTool(description.error);
	const parameters = validateParametersSchema(request.parametersSchema);
	if (!parameters.ok) return withTool(parameters.error);
	const logic = validateLogic(request.logic);
	if (!logic.ok) return withTool(logic.error);
	const tests = request.tests === undefined ? ok(deps.previousTests ?? []) : parseTests(request.tests);
	if (!tests.ok) return withTool(tests.error);

	const file = tsFileOf(tool);
	const { source } = renderTool(deps.template, {
		name: tool,
		description: description.value,
		parameters: parameters.value,
		logic: logic.value,
	});
	const secrets = findSecrets(source);
	if (secrets.length > 0) {
		const refusal = secretRefusal(secrets, file);
		return withTool(
			new ForgeError("secrets", refusal.message, {
				location: { file, line: refusal.line, column: refusal.column },
				notes: refusal.notes.slice(1),
				source,
				hint: "Remove the credential from the logic and read it at run time with process.env.NAME (the tool will ask for that variable).",
			}),
		);
	}
	const hash = hashSource(source);
	const meta = nextVersion(
		{
			name: tool,
			description: description.value,
			parameters: parameters.value,
			tests: tests.value,
			// Promotion requires the tests to pass on exactly this source, so the staged metadata can say so already.
			verifiedHash: tests.value.length ? hash : undefined,
		},
		{ previous: deps.previous, hash, at: (deps.now ?? (() => new Date()))().toISOString() },
	);
	const change = testsChange(
		deps.previousTests ?? [],
		tests.value,
		request.tests !== undefined,
		deps.previous?.version,
	);
	const promoted = await promoteSource(meta, source, deps);
	if (promoted.ok) return ok({ ...promoted.value, tests: change });
	if (change.kind === "kept" && promoted.error.phase === "tests") {
		const note = `These are the ${change.count} test${change.count === 1 ? "" : "s"} of v${change.fromVersion ?? "?"}, kept and re-run because this call gave no tests; pass tests to replace them.`;
		return fail(promoted.error.with({ notes: [note, ...(promoted.error.details.notes ?? [])] }));
	}
	return promoted;
}

/**
 * The second half of every change of a tool's code (a forge, a roll-back, an import): check the source, stage the pair outside
 * the live files, preflight-load it where tools run, and only then promote it.
 */
export async function promoteSource(
	meta: ToolMeta,
	source: string,
	deps: Pick<
		PipelineDeps,
		"store" | "preflight" | "previous" | "runTests" | "signal" | "dryRun" | "check" | "stage" | "readsFile"
	>,
): Promise<Result<Forged>> {
	const tool = meta.name;
	if (deps.dryRun) {
		// A remembering stage writes the pair now, while the checks run, for the change under the lock to promote.
		const early = deps.stage?.(tool, source, serializeMeta(meta), true);
		early?.catch(() => undefined);
		// A preflight that reads the file loads that pair (a failed staging ends the dry run: the lock's run stages again).
		const path =
			deps.readsFile && early ? early.then((staged) => staged.tsPath) : Promise.resolve(deps.store.tsPath(tool));
		path.catch(() => undefined); // awaited only once the source checks pass
		const checked = await checkCandidate(meta, source, path, deps);
		return checked.ok ? fail(DRY_RUN) : checked;
	}
	// Staging writes go on while the source is checked; a candidate that fails is discarded, unseen.
	const staging = deps.stage
		? deps.stage(tool, source, serializeMeta(meta))
		: deps.store.stage(tool, source, serializeMeta(meta));
	const stagedPath = staging.then((staged) => staged.tsPath);
	// A failed staging is thrown below (in `finally`), not left unhandled when the checks fail first.
	stagedPath.catch(() => undefined);
	let promoted: PromoteResult | undefined;
	try {
		const checked = await checkCandidate(meta, source, stagedPath, deps);
		if (!checked.ok) return checked;
		promoted = await deps.store.promote(await staging);
		return ok({ ...promoted, meta, source, compiled: checked.value, previous: deps.previous });
	} finally {
		// A promoted pair's folder goes when its commit settles; any other is discarded now.
		if (!promoted) await deps.store.discard(await staging);
	}
}

/**
 * The checks of a candidate, in order: transpile and imports, parameters against the code, the preflight load where
 * tools run (from `tsPath`, once known), the tests. Returns the compiled code.
 */
async function checkCandidate(
	meta: ToolMeta,
	source: string,
	tsPath: Promise<string>,
	deps: Pick<PipelineDeps, "preflight" | "runTests" | "signal" | "check">,
): Promise<Result<CompiledCode>> {
	const tool = meta.name;
	const file = tsFileOf(tool);
	const withTool = (error: ForgeError) => fail(error.with({ tool }));
	const checked = await (deps.check ?? checkSource)(source, file);
	if (!checked.ok) return withTool(checked.error);
	const params = checkParams(checked.value.esm, meta.parameters, file, source);
	if (!params.ok) return withTool(params.error);
	const shape = await deps.preflight(await tsPath, checked.value.cjs.code, tool, file, checked.value.cjs.map);
	// A runner that could not start says so on its own: the source would only invite a repair of code that is fine.
	if (!shape.ok) return withTool(shape.error.phase === "runner" ? shape.error : shape.error.with({ source }));
	if (meta.tests?.length && deps.runTests) {
		const failure = testFailure(await deps.runTests(checked.value.cjs, meta, deps.signal), tool, source, file);
		if (failure) return withTool(failure.with({ source }));
	}
	return ok(checked.value.cjs);
}

function validateDescription(description: unknown): Result<string> {
	const hint = "Give a one- or two-sentence description of what the tool does and when to use it.";
	if (typeof description !== "string" || description.trim().length === 0) {
		return fail(new ForgeError("description", "The tool needs a description (a non-empty string).", { hint }));
	}
	if (description.length > MAX_DESCRIPTION) {
		return fail(
			new ForgeError(
				"description",
				`The description is ${description.length} characters long (at most ${MAX_DESCRIPTION}).`,
				{ hint },
			),
		);
	}
	const control = controlCharacter(description);
	if (control) {
		return fail(
			new ForgeError(
				"description",
				`The description holds a control character (${control.shown} at position ${control.index + 1}): escape sequences and direction-changing characters would act on the terminal of whoever lists the tool.`,
				{ hint: `${hint} Plain text only: newlines and tabs are fine.` },
			),
		);
	}
	return ok(description.trim());
}

function validateLogic(logic: unknown): Result<string> {
	if (typeof logic !== "string" || logic.trim().length === 0) {
		return fail(
			new ForgeError(
				"syntax",
				"logic is missing: it must be the TypeScript body of `execute(params, pi, ctx)` as a string.",
				{
					hint: "Send logic such as `const words = params.text.split(/\\s+/); return { count: words.length };`.",
				},
			),
		);
	}
	if (logic.length > MAX_LOGIC) {
		return fail(
			new ForgeError("syntax", `logic is ${logic.length} characters long (at most ${MAX_LOGIC}).`, {
				hint: "Keep a forged tool small and focused.",
			}),
		);
	}
	return ok(logic);
}
