// `forge_tool`: create or replace a forged tool, transactionally. Success says how to call it now and from the next prompt.

import { createTwoFilesPatch } from "diff";
import { type Static, Type } from "typebox";
import type { ForgeConfig } from "../contract/config.ts";
import { ForgeError } from "../contract/forge-error.ts";
import { isBuiltinTool } from "../contract/tool-calls.ts";
import { describeTest, type TestsChange } from "../contract/tool-tests.ts";
import { exampleArgs } from "../schema/example-args.ts";
import type { Forged } from "../toolbox/forge-pipeline.ts";
import { mostSimilar } from "../toolbox/similar.ts";
import type { Scope, ScopedView, Toolboxes } from "../toolbox/toolboxes.ts";
import type { ForgeSession } from "./forge-session.ts";
import type { ForgeOutcome } from "./forges-in-flight.ts";
import { type NextOffer, offerLine } from "./offer-text.ts";
import { toPiError } from "./output.ts";
import { defineTool } from "./pi-exports.ts";
import { forgeScope, untrustedForgeScope } from "./project-trust.ts";
import { type ForgeDetails, renderForgeCall, renderForgeResult } from "./render.ts";

export const forgeToolSchema = Type.Object({
	name: Type.String({
		description:
			"Tool name: lowercase letters, digits, '-' or '_', starting with a letter, at most 48 characters (e.g. 'csv-summary').",
	}),
	description: Type.String({
		description: "What the tool does and when to use it; the model sees this when choosing tools.",
	}),
	parametersSchema: Type.Object(
		{},
		{
			additionalProperties: true,
			description:
				'JSON Schema of the arguments object, e.g. {"type":"object","properties":{"path":{"type":"string","description":"…"}},"required":["path"]}.',
		},
	),
	logic: Type.String({
		description:
			"TypeScript body of `async function execute(params, pi, ctx)`. Return a string, a JSON value, or { content: [...] }; throw to signal failure. " +
			"ctx has cwd, signal and notify(). pi.useTool(name, args) calls another forged tool (resolves to the value it returned) or one of pi's built-ins read, grep, find, ls, bash, write, edit (resolves to its text; their arguments are those of pi's own tools), under this tool's permissions; pi.exec(command, args) runs a program (needs a grant). " +
			'Imports: only fs, path, child_process (bare or node:) and typebox, as single import lines at the top of logic or with await import("node:fs").',
	}),
	// A string checked in execute, so that a wrong value gets an error naming the two there are.
	scope: Type.Optional(
		Type.String({
			description:
				'Where the tool lives: "project" (default: this project\'s toolbox) or "user" (the user toolbox, seen from every project; the project\'s tool wins a name clash).',
		}),
	),
	tests: Type.Optional(
		Type.Array(Type.Object({}, { additionalProperties: true }), {
			description:
				'Example calls that must pass before the tool goes live, e.g. [{"args":{"text":"a b"},"expect":"2"},{"args":{"text":""},"expectError":"empty"}]. ' +
				"Each has args and one of: expect (output contains), equals (output is exactly, text or JSON), matches (regex), expectError (fails with a message containing). " +
				"Omitted: the previous version's tests are kept and re-run. Given: they replace the previous ones (the result lists any dropped). A tool with passing tests is verified; without, a draft.",
		}),
	),
});

export type ForgeToolInput = Static<typeof forgeToolSchema>;

export function createForgeTool(session: ForgeSession) {
	return defineTool({
		name: "forge_tool",
		label: "Forge tool",
		description:
			"Create or replace a forged tool: a small TypeScript tool that is checked (schema, syntax, imports, a real load) before it goes live. " +
			"Nothing changes if any check fails; the error shows the phase, forge-<name>.ts:LINE:COL, a code frame and the source to repair it. " +
			"Re-forging a name replaces it and keeps the previous version as a .bak.",
		promptSnippet: "Create or repair a reusable tool of your own (TypeScript), checked before it goes live",
		promptGuidelines: [
			"Before forge_tool, call list_forge with a query: reuse or repair an existing forged tool instead of forging a duplicate.",
			"To change a forged tool, call list_forge with its name first: it gives the tool's schema, tests and current logic to start from.",
			"Right after forge_tool succeeds, call the new tool with use_forge_tool; the result says whether the next prompt also offers it under its own name.",
			"When forge_tool or a forged tool fails, read the phase, the forge-<name>.ts line and the source in the error, then call forge_tool again with the same name and the corrected logic.",
		],
		parameters: forgeToolSchema,
		prepareArguments: (args) => parseJsonField(parseJsonField(args, "parametersSchema"), "tests"),
		async execute(toolCallId, params, signal, _onUpdate, ctx) {
			// Calls of this tool in the same message wait for the outcome (settled once the new version is live).
			let outcome: ForgeOutcome | undefined;
			try {
				session.ui.attach(ctx);
				const toolbox = await session.toolboxFor(ctx);
				// An untrusted project's toolbox is left alone: there only scope "user" forges (see project-trust.ts).
				const into = forgeScope(params.scope, toolbox.config);
				if (!into.ok) throw toPiError(into.error, toolbox.config);
				const scope = into.scope;
				if (scope !== "project" && scope !== "user")
					throw toPiError(
						new ForgeError("arguments", `scope is "project" or "user", not ${JSON.stringify(scope)}.`, {
							hint: 'Omit scope for this project\'s toolbox; pass "user" for the toolbox every project sees.',
						}),
						toolbox.config,
					);
				const result = await toolbox.forge(params, session.takenNames(), { signal, scope });
				outcome = result.ok
					? { ok: true, version: result.value.meta.version }
					: { ok: false, phase: result.error.phase };
				if (!result.ok) throw toPiError(result.error, toolbox.config);
				const { name } = result.value.meta;
				const previous = result.value.backedUp ? await toolbox.readBackup(name, result.value.scope) : undefined;
				// Only a new tool can duplicate another: a re-forge changes a tool the model has already chosen.
				const similar = result.value.previous
					? undefined
					: mostSimilar(result.value.meta.name, result.value.meta.description, toolbox.entries());
				const offer = session.nextOffer(result.value.meta.name, toolbox);
				const untrustedScope = untrustedForgeScope(toolbox.config);
				const composition = compositionOf(result.value.meta.name, toolbox, Boolean(result.value.previous), scope);
				return {
					content: [
						{
							type: "text",
							text: [
								forgeSuccessText(result.value, similar, offer, composition),
								...(untrustedScope
									? [untrustedScope]
									: scopeLines(result.value.scope, toolbox.view(name), toolbox.config)),
							].join("\n"),
						},
					],
					details: forgeDetails(result.value, previous),
				};
			} finally {
				session.forges.settle(toolCallId, outcome);
			}
		},
		renderCall: (args, theme, context) =>
			renderForgeCall(args as Partial<ForgeToolInput>, theme, context.lastComponent),
		renderResult: (result, options, theme, context) =>
			renderForgeResult(result, options, theme, context.lastComponent, context.isError),
	});
}

export function forgeSuccessText(
	forged: Forged,
	similar?: { name: string; description: string },
	offer: NextOffer = { offered: true },
	composition: Composition = { callers: [], unknown: [] },
): string {
	const { meta } = forged;
	const file = `forge-${meta.name}.ts`;
	const tests = meta.tests?.length ?? 0;
	const lines = [
		`Forged '${meta.name}' v${meta.version} → ${file} (checked: name, schema, syntax, imports, preflight load${tests ? `, ${tests} test${tests === 1 ? "" : "s"} passed: verified` : "; no tests: a draft"}).`,
		forged.backedUp
			? `The previous version v${forged.previous?.version ?? meta.version - 1}${forged.previous?.editedByHand ? " (with the hand edits made to it since, which did not pass the checks)" : ""} is kept as ${file}.bak.`
			: "This is a new tool.",
		...testsLines(forged.tests, meta.version),
		`Use it now: use_forge_tool with ${JSON.stringify({ name: meta.name, args: exampleArgs(meta.parameters) })}`,
		offerLine(meta.name, offer),
		...(similar
			? [
					`Note: '${similar.name}' looks like the same job ("${similar.description}"). If it already does what you need, use it instead; to change it, forge '${similar.name}' again rather than keeping two.`,
				]
			: []),
		...(composition.callers.length
			? [
					`Note: '${meta.name}' is called by ${composition.callers.join(", ")} (through pi.useTool): check that what it takes and returns still suits ${composition.callers.length === 1 ? "it" : "them"}.`,
				]
			: []),
		...composition.unknown.map(
			(name) =>
				`Note: '${meta.name}' calls '${name}', which is not a forged tool or one of pi's built-ins: that call fails until a tool of that name is forged.`,
		),
		...(composition.projectOnly ?? []).map(
			(name) =>
				`Note: '${meta.name}' is in the user toolbox but calls '${name}', which only this project's toolbox has: from other projects that call fails (promote '${name}' to share it too).`,
		),
	];
	return lines.join("\n");
}

/** Who calls a forged tool (told on a re-forge) and which of the names it calls no tool has. */
export interface Composition {
	callers: string[];
	unknown: string[];
	/** For a user tool: the tools it calls that only this project's toolbox has. */
	projectOnly?: string[];
}

function compositionOf(name: string, toolbox: Toolboxes, reforged: boolean, scope: Scope): Composition {
	const forged = (toolbox.of(scope)?.toolbox.get(name)?.calls ?? []).filter(
		(callee) => !isBuiltinTool(callee) && callee !== name,
	);
	return {
		callers: reforged ? toolbox.callersOf(name) : [],
		unknown: forged.filter((callee) => !toolbox.get(callee)),
		// A user tool is seen from every project: a callee only this project has is missing from the others.
		projectOnly:
			scope === "user" ? forged.filter((callee) => toolbox.get(callee) && !toolbox.user?.toolbox.get(callee)) : [],
	};
}

/** Where the tool went, and which of two namesakes this project uses. */
export function scopeLines(
	scope: Scope,
	used: ScopedView | undefined,
	config: Pick<ForgeConfig, "userToolboxDir">,
): string[] {
	const name = used?.entry.name ?? "?";
	if (scope === "user") {
		const where = `Scope: the user toolbox (${config.userToolboxDir ?? "?"}): every project sees it, from its next call.`;
		return used?.scope === "project"
			? [
					where,
					`Note: this project's toolbox has its own '${name}' (v${used.entry.version}), and the project's tool wins a name clash: here, '${name}' runs that one; other projects get this one. To use this one here, remove the project's (or demote this one).`,
				]
			: [where];
	}
	return used?.hides
		? [
				`Note: the user toolbox's '${name}' (v${used.hides.version}) is hidden in this project by this one (the project's tool wins a name clash); other projects still get the user toolbox's.`,
			]
		: [];
}

const MAX_DROPPED_SHOWN = 5;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** What happened to the previous version's tests: kept and re-run, or replaced (how many kept, added, dropped). */
export function testsLines(change: TestsChange | undefined, version: number): string[] {
	if (!change || change.kind === "none") return [];
	const from = `v${change.fromVersion ?? version - 1}`;
	if (change.kind === "kept") {
		const kept =
			change.count === 1
				? `the test of ${from} was kept (this call gave no tests) and passes`
				: `the ${change.count} tests of ${from} were kept (this call gave no tests) and pass`;
		return [`Tests: ${kept} on v${version}.`];
	}
	const before = change.kept + change.dropped.length;
	if (before === 0) return [`Tests: ${plural(change.count, "new test")}.`];
	const head =
		change.count === 0
			? `Tests: tests was an empty list, so ${before === 1 ? `the test of ${from} was` : `the ${before} tests of ${from} were`} dropped: v${version} is a draft.`
			: `Tests: ${change.count === 1 ? "the given test replaces" : `the ${change.count} given tests replace`} ${before === 1 ? "the test" : `the ${before} tests`} of ${from}: ${change.kept} kept, ${change.added} added, ${change.dropped.length} dropped.`;
	if (change.dropped.length === 0) return [head];
	const shown = change.dropped.slice(0, MAX_DROPPED_SHOWN).map((test) => `  - ${describeTest(test)}`);
	const more =
		change.dropped.length > MAX_DROPPED_SHOWN ? [`  … and ${change.dropped.length - MAX_DROPPED_SHOWN} more`] : [];
	return [
		head,
		"Dropped:",
		...shown,
		...more,
		"To keep a dropped test, forge again with it in tests (omit tests to keep the current ones).",
	];
}

export const CHECKS = ["schema", "syntax", "imports", "preflight"];
const checksOf = (forged: Forged) =>
	forged.meta.tests?.length ? [...CHECKS, `${forged.meta.tests.length} tests`] : CHECKS;
const MAX_DIFF_CHARS = 20_000;

function forgeDetails(forged: Forged, previousSource: string | undefined): ForgeDetails & { hash: string } {
	const file = `forge-${forged.meta.name}.ts`;
	const diff =
		previousSource === undefined
			? undefined
			: createTwoFilesPatch(
					`${file} v${forged.previous?.version ?? "?"}`,
					`${file} v${forged.meta.version}`,
					previousSource,
					forged.source,
					undefined,
					undefined,
					{ context: 2 },
				);
	return {
		name: forged.meta.name,
		version: forged.meta.version,
		hash: forged.meta.hash,
		previousVersion: forged.previous?.version,
		checks: checksOf(forged),
		...(diff ? { diff: diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (diff cut)` : diff } : {}),
	};
}

/** Models sometimes send an object-typed argument as JSON text; accept it before pi validates the arguments. */
// biome-ignore lint/suspicious/noExplicitAny: pi's prepareArguments hook returns arguments that pi validates next
export function parseJsonField(args: unknown, field: string): any {
	if (typeof args !== "object" || args === null) return args;
	const value = (args as Record<string, unknown>)[field];
	if (typeof value !== "string") return args;
	try {
		const parsed = JSON.parse(value);
		return typeof parsed === "object" && parsed !== null ? { ...args, [field]: parsed } : args;
	} catch {
		return args;
	}
}
