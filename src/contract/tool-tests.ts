// Tests a forged tool carries: example calls with what must come out. They are checked before promotion, stored in
// `forge-<name>.json`, and re-run on every re-forge. Pure: parsing the cases and judging one outcome.
import { ForgeError, fail, ok, type Result, type SourceLocation } from "./forge-error.ts";

/** One example call. Exactly one of the expectations (or none: the call must merely succeed). */
export interface ToolTest {
	/** A label for reports; defaults to "test N". */
	name?: string;
	args: Record<string, unknown>;
	/** The output must contain this text. */
	expect?: string;
	/** The output must be exactly this: a string, or a JSON value compared structurally. */
	equals?: unknown;
	/** The output must match this regular expression. */
	matches?: string;
	/** The call must fail with a message containing this text. */
	expectError?: string;
	/** This case's own deadline (default: PI_FORGE_TIMEOUT_MS). */
	timeoutMs?: number;
}

export type TestOutcome = { ok: true; text: string } | { ok: false; error: ForgeError };

export interface TestVerdict {
	test: ToolTest;
	index: number;
	pass: boolean;
	/** What was expected and what happened, for the report. */
	expected: string;
	actual: string;
	error?: ForgeError;
}

export const MAX_TESTS = 50;
const EXPECTATIONS = ["expect", "equals", "matches", "expectError"] as const;
const HINT =
	'tests is a list like [{"args":{"text":"a b"},"expect":"2"}, {"args":{},"expectError":"text is required"}]; each has args and at most one of expect, equals, matches, expectError.';

export function parseTests(input: unknown): Result<ToolTest[]> {
	if (input === undefined || input === null) return ok([]);
	const refuse = (message: string) => fail(new ForgeError("tests", message, { hint: HINT }));
	let value = input;
	if (typeof value === "string") {
		try {
			value = JSON.parse(value);
		} catch {
			return refuse("tests is a string that is not JSON.");
		}
	}
	if (!Array.isArray(value)) return refuse("tests must be a list of test cases.");
	if (value.length > MAX_TESTS) return refuse(`tests has ${value.length} cases (at most ${MAX_TESTS}).`);
	const tests: ToolTest[] = [];
	for (const [index, raw] of value.entries()) {
		const label = `tests[${index}]`;
		if (typeof raw !== "object" || raw === null || Array.isArray(raw))
			return refuse(`${label} must be an object with args and an expectation.`);
		const test = raw as Record<string, unknown>;
		const args = test.args ?? {};
		if (typeof args !== "object" || args === null || Array.isArray(args))
			return refuse(`${label}.args must be an object of arguments.`);
		const given = EXPECTATIONS.filter((key) => test[key] !== undefined);
		if (given.length > 1) return refuse(`${label} has ${given.join(" and ")}: give one expectation per case.`);
		for (const key of ["expect", "matches", "expectError"] as const) {
			if (test[key] !== undefined && typeof test[key] !== "string")
				return refuse(`${label}.${key} must be a string.`);
		}
		if (typeof test.matches === "string") {
			try {
				new RegExp(test.matches);
			} catch (error) {
				return refuse(`${label}.matches is not a valid regular expression: ${(error as Error).message}`);
			}
		}
		if (test.timeoutMs !== undefined && (!Number.isInteger(test.timeoutMs) || (test.timeoutMs as number) <= 0))
			return refuse(`${label}.timeoutMs must be a positive integer.`);
		tests.push({
			...(typeof test.name === "string" ? { name: test.name } : {}),
			args: args as Record<string, unknown>,
			...Object.fromEntries(given.map((key) => [key, test[key]])),
			...(test.timeoutMs !== undefined ? { timeoutMs: test.timeoutMs as number } : {}),
		});
	}
	return ok(tests);
}

/**
 * How a `matches` case came out, decided off pi's main thread (a model's regular expression may backtrack for ever):
 * matched or not, out of time, or an error. Absent, the case is not passed.
 */
export type MatchOutcome = boolean | "timeout" | { error: string };

export function judge(test: ToolTest, index: number, outcome: TestOutcome, matched?: MatchOutcome): TestVerdict {
	const verdict = (pass: boolean, expected: string, actual: string): TestVerdict => ({
		test,
		index,
		pass,
		expected,
		actual,
		...(outcome.ok ? {} : { error: outcome.error }),
	});
	if (test.expectError !== undefined) {
		if (outcome.ok)
			return verdict(false, `an error containing ${quote(test.expectError)}`, `success: ${quote(outcome.text)}`);
		return verdict(
			outcome.error.message.includes(test.expectError),
			`an error containing ${quote(test.expectError)}`,
			`${outcome.error.phase} error: ${quote(errorText(outcome.error))}`,
		);
	}
	if (!outcome.ok)
		return verdict(
			false,
			describeExpectation(test),
			`${outcome.error.phase} error: ${quote(errorText(outcome.error))}`,
		);
	const text = outcome.text;
	if (test.expect !== undefined) return verdict(text.includes(test.expect), describeExpectation(test), quote(text));
	if (test.matches !== undefined) {
		if (matched === "timeout")
			return verdict(
				false,
				describeExpectation(test),
				`${quote(text)}, but matching took too long (the expression backtracks catastrophically: avoid nested quantifiers such as (a+)+)`,
			);
		if (typeof matched === "object")
			return verdict(
				false,
				describeExpectation(test),
				`${quote(text)}, but the expression could not be run: ${matched.error}`,
			);
		return verdict(matched === true, describeExpectation(test), quote(text));
	}
	if (test.equals !== undefined) {
		if (sameValue(test.equals, text)) return verdict(true, describeExpectation(test), quote(text));
		if (typeof test.equals !== "string") return verdict(false, describeExpectation(test), quote(text));
		const at = firstDifference(test.equals, text);
		return verdict(
			false,
			`output equal to ${quote(test.equals, at)}`,
			`${quote(text, at)} (the first difference is at character ${at + 1})`,
		);
	}
	return verdict(true, "success", quote(text));
}

/** What a forge did with the tests of the version it replaces. */
export type TestsChange =
	| { kind: "none" }
	/** `tests` omitted: the previous version's tests were kept and re-run. */
	| { kind: "kept"; count: number; fromVersion?: number }
	/** `tests` given: they replace the previous ones; `kept` are cases the previous version had too. */
	| { kind: "replaced"; count: number; kept: number; added: number; dropped: ToolTest[]; fromVersion?: number };

/** Compares the tests a forge ends with to the previous version's; `given` says whether the call passed `tests`. */
export function testsChange(
	previous: readonly ToolTest[],
	next: readonly ToolTest[],
	given: boolean,
	fromVersion?: number,
): TestsChange {
	if (!given) return next.length ? { kind: "kept", count: next.length, fromVersion } : { kind: "none" };
	if (previous.length === 0 && next.length === 0) return { kind: "none" };
	const before = new Set(previous.map(caseKey));
	const after = new Set(next.map(caseKey));
	const kept = next.filter((test) => before.has(caseKey(test))).length;
	return {
		kind: "replaced",
		count: next.length,
		kept,
		added: next.length - kept,
		dropped: previous.filter((test) => !after.has(caseKey(test))),
		fromVersion,
	};
}

/** A case's identity: its arguments and expectation (its label and deadline do not make it another case). */
function caseKey(test: ToolTest): string {
	const { args, expect, equals, matches, expectError } = test;
	return JSON.stringify(sortKeys({ args, expect, equals, matches, expectError }));
}

/** One test case as the model wrote it, on one line (bounded). */
export function describeTest(test: ToolTest): string {
	return cut(JSON.stringify(test));
}

/** The message with its notes ("params.count: must have required property 'count'"). */
function errorText(error: ForgeError): string {
	return [error.message, ...(error.details.notes ?? [])].join(" ");
}

function describeExpectation(test: ToolTest): string {
	if (test.expect !== undefined) return `output containing ${quote(test.expect)}`;
	if (test.matches !== undefined)
		return `output matching /${test.matches.replace(/[\n\r\t]/g, (c) => JSON.stringify(c).slice(1, -1))}/`;
	if (test.equals !== undefined)
		return typeof test.equals === "string"
			? `output equal to ${quote(test.equals)}`
			: `output equal to the JSON value ${cut(JSON.stringify(test.equals))}`;
	return "success";
}

/** A string expectation compares the text; any other value compares the output read as JSON. */
function sameValue(expected: unknown, text: string): boolean {
	if (typeof expected === "string") return text === expected || text.trim() === expected;
	try {
		return JSON.stringify(sortKeys(JSON.parse(text))) === JSON.stringify(sortKeys(expected));
	} catch {
		return false;
	}
}

function sortKeys(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sortKeys);
	if (value && typeof value === "object")
		return Object.fromEntries(
			Object.keys(value)
				.sort()
				.map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
		);
	return value;
}

const QUOTE_CHARS = 300;

/**
 * A text exactly as it is, as a JSON string: spaces kept, newlines and tabs visible (`"beta      gamma"` never reads
 * as `"beta gamma"`). A long text is cut to a window, around `at` when given, saying which characters are shown.
 */
export function quote(text: string, at = 0, max = QUOTE_CHARS): string {
	if (text.length <= max) return JSON.stringify(text);
	const start = Math.max(0, Math.min(at - Math.floor(max / 3), text.length - max));
	const end = start + max;
	return `${start > 0 ? "…" : ""}${JSON.stringify(text.slice(start, end))}${end < text.length ? "…" : ""} (characters ${start + 1}-${end} of ${text.length})`;
}

/** The index of the first character where two texts differ (the shorter one's length when one is a prefix). */
export function firstDifference(a: string, b: string): number {
	let i = 0;
	while (i < a.length && i < b.length && a[i] === b[i]) i++;
	return i;
}

function cut(text: string, max = QUOTE_CHARS): string {
	return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/**
 * Where a wrong value came from when nothing threw: the logic's `return`, if it has exactly one at its own level (a
 * line-level guess, good for the small tools models forge; with several no location is claimed), or the logic's last
 * line when it has no return at all.
 */
export function returnLocation(source: string, file: string): SourceLocation | undefined {
	const lines = source.split("\n");
	const start = lines.findIndex((line) => /^export\s+async\s+function\s+execute\s*\(/.test(line));
	const end = lines.findLastIndex((line) => /^\}\s*$/.test(line));
	if (start < 0 || end <= start) return undefined;
	const body = lines.slice(start + 1, end);
	const returns = body.flatMap((line, i) => (/^return\b/.test(line) ? [i] : []));
	const anyReturn = body.some((line) => /^\s*return\b/.test(line));
	const index = returns.length === 1 ? returns[0] : !anyReturn ? body.findLastIndex((line) => line.trim() !== "") : -1;
	if (index < 0) return undefined;
	return { file, line: start + 2 + index, column: body[index].search(/\S/) + 1 };
}

/**
 * "2 of 5 tests failed", with every failing case, expected vs actual, located where a throw happened — or, when every
 * failure is a wrong value, at the logic's return (`source` given). A timeout claims no location: it could be anywhere.
 */
export function testFailure(
	verdicts: TestVerdict[],
	tool: string,
	source?: string,
	file = `forge-${tool}.ts`,
): ForgeError | undefined {
	const failed = verdicts.filter((v) => !v.pass);
	if (failed.length === 0) return undefined;
	const notes = failed.map(
		(v) =>
			`${v.test.name ?? `test ${v.index + 1}`} ${cut(JSON.stringify(v.test.args))}: expected ${v.expected}, got ${v.actual}`,
	);
	const located = failed.find((v) => v.error?.details.location)?.error;
	const wrongValuesOnly = failed.every((v) => !v.error);
	const location = located?.details.location ?? (wrongValuesOnly && source ? returnLocation(source, file) : undefined);
	return new ForgeError(
		"tests",
		`${failed.length} of ${verdicts.length} test${verdicts.length === 1 ? "" : "s"} failed; nothing was changed.`,
		{
			tool,
			notes,
			location,
			stack: located?.details.stack,
			hint: "Fix the logic so every case passes (or fix a test that is wrong) and call forge_tool again with the same name.",
		},
	);
}
