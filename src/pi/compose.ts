// Tools that build on tools: the `useTool` behind `pi.useTool(name, args)` in a forged tool. A built-in (read, grep,
// find, ls, bash, write, edit) runs as pi's own tool on the caller's operations, so the caller's policy decides what it
// reads, writes and runs. A forged tool runs like any call — isolated, under its own grants — within what is left of
// the caller's deadline, and resolves to the value its `execute` returned (after a JSON round trip). A cycle, or a
// chain deeper than MAX_DEPTH, is an error naming the chain. Every nested call is reported to the top-level call.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { ForgeError } from "../contract/forge-error.ts";
import { NAME_PATTERN } from "../contract/names.ts";
import { isBuiltinTool } from "../contract/tool-calls.ts";
import { MAX_NOTIFICATIONS } from "../run/isolated/parent/call-table.ts";
import { NO_VALUE_TEXT, outputText, type ToolOutput } from "../run/result.ts";
import type { NestedCaller, RunHost } from "../run/runner.ts";
import type { Toolbox } from "../toolbox/toolbox.ts";
import { runBuiltinTool } from "./builtin-tools.ts";
import { runHostFor } from "./host.ts";
import { modelRedaction } from "./output.ts";

/** How many tools may be on one chain of calls, the top-level one included. */
export const MAX_DEPTH = 8;

/** One call a forged tool made through `pi.useTool`, as the top-level call shows it. */
export interface NestedCall {
	name: string;
	/** 1 for a call made by the top-level tool, 2 for a call made by that callee, … */
	depth: number;
	ok: boolean;
	durationMs: number;
	version?: number;
}

export interface Composition {
	pi: ExtensionAPI;
	ctx: ExtensionContext | undefined;
	cwd: string;
	/** The toolbox that has a tool of this name (the project's first), if any. */
	resolve(name: string): Promise<Toolbox | undefined>;
	/** Every forged tool's name, for an unknown name's error. */
	names(): string[];
	/** Told of every nested call once it ends. */
	onNested?(call: NestedCall): void;
	/** The calls are a forge's test: a forged callee runs as a test call (it writes only in its temp dir). */
	test?: boolean;
	/**
	 * The top-level call the calls are made for: a forged callee runs in a worker of its own for it (`<name>@<call>`),
	 * recorded in `workers` to be released when the call is over.
	 */
	call?: { id: string; workers: Map<string, Toolbox> };
}

/**
 * The host for a call of the last tool of `chain`: pi's host, and a `useTool` one level deeper. Every host of one
 * composition shares its dialogs (`callTree`) and its MAX_NOTIFICATIONS notifications with the top-level call.
 */
export function composingHost(composition: Composition, chain: readonly string[]): RunHost {
	const host = runHostFor(composition.pi, composition.ctx);
	const shown = notified.get(composition) ?? { count: 0 };
	notified.set(composition, shown);
	return {
		...host,
		callTree: composition,
		notify: (message, level) => {
			shown.count++;
			if (shown.count <= MAX_NOTIFICATIONS) host.notify(message, level);
			else if (shown.count === MAX_NOTIFICATIONS + 1)
				host.notify(
					`The tools of this call sent more than ${MAX_NOTIFICATIONS} notifications; the rest are not shown.`,
					"warning",
				);
		},
		useTool: (name, args, caller) => useTool(composition, chain, name, args, caller),
	};
}

/** Notifications shown for each top-level call's composition, its nested calls' included. */
const notified = new WeakMap<Composition, { count: number }>();

async function useTool(
	composition: Composition,
	chain: readonly string[],
	name: unknown,
	args: unknown,
	caller: NestedCaller,
): Promise<unknown> {
	const callerName = chain.at(-1) ?? "?";
	// Only a name a tool could have is reported as a nested call (it is shown in pi's terminal).
	if (typeof name !== "string" || !(isBuiltinTool(name) || NAME_PATTERN.test(name)))
		throw new ForgeError(
			"arguments",
			`pi.useTool(name, args): name is the name of a tool, as a string (lowercase letters, digits, - and _), not ${typeof name === "string" ? JSON.stringify(name.slice(0, 60)) : typeof name}.`,
			{ tool: callerName },
		);
	const through = [...chain, name].join(" → ");
	if (chain.includes(name))
		throw new ForgeError(
			"runtime",
			`pi.useTool: ${through} is a cycle: a tool cannot call itself, directly or through other tools.`,
			{ tool: callerName, hint: "Break the cycle: one of these tools must do its part itself." },
		);
	if (chain.length >= MAX_DEPTH)
		throw new ForgeError(
			"runtime",
			`pi.useTool: calling '${name}' would nest calls more than ${MAX_DEPTH} tools deep (${through}).`,
			{ tool: callerName },
		);
	const started = performance.now();
	const report = (ok: boolean, version?: number) =>
		composition.onNested?.({
			name,
			depth: chain.length,
			ok,
			durationMs: performance.now() - started,
			...(version ? { version } : {}),
		});
	if (isBuiltinTool(name)) {
		try {
			const text = await runBuiltinTool(name, args, {
				cwd: composition.cwd,
				signal: caller.signal,
				ops: caller.ops,
			});
			report(true);
			return text;
		} catch (error) {
			report(false);
			throw error;
		}
	}
	const toolbox = await composition.resolve(name);
	if (!toolbox) {
		report(false);
		const names = composition.names();
		throw new ForgeError(
			"not-found",
			`pi.useTool: no tool named '${name}': it is neither a forged tool nor one of pi's built-ins (read, grep, find, ls, bash, write, edit).${names.length ? ` Forged tools: ${names.slice(0, 30).join(", ")}.` : ""}`,
			{ tool: callerName },
		);
	}
	const workerKey = composition.call && `${name}@${composition.call.id}`;
	if (workerKey) composition.call!.workers.set(workerKey, toolbox);
	const result = await toolbox.use(name, args ?? {}, {
		host: composingHost(composition, [...chain, name]),
		signal: caller.signal,
		timeoutMs: Math.max(1, caller.deadline - Date.now()),
		nested: workerKey ? { workerKey } : {},
		...(composition.test ? { test: true } : {}),
	});
	report(result.ok, result.ok ? result.value.version : toolbox.get(name)?.version);
	// The callee may hold grants its caller does not: secrets in its error are redacted before the caller sees it.
	if (!result.ok) throw calleeFailure(name, callerName, args, result.error, modelRedaction(toolbox.config).code);
	return returnedValue(result.value);
}

/** The longest arguments shown in a callee's failure. */
const MAX_ARGS_SHOWN = 300;

/**
 * A callee's failure as its caller meets it: what failed and where in the callee's file, the arguments it was given,
 * its own notes (a validation list, grant commands) and a hint that says which tool to change.
 */
function calleeFailure(
	name: string,
	callerName: string,
	args: unknown,
	error: ForgeError,
	redact: (text: string) => string,
): ForgeError {
	const { location, code, origin } = error.details;
	const notes = error.details.notes?.map(redact);
	const hint = error.details.hint === undefined ? undefined : redact(error.details.hint);
	const where = location ? ` at ${location.file}:${location.line}:${location.column}` : "";
	let shown = JSON.stringify(args ?? {}) ?? "{}";
	if (shown.length > MAX_ARGS_SHOWN) shown = `${shown.slice(0, MAX_ARGS_SHOWN)}…`;
	const fault =
		error.phase === "permission" || origin === "permission"
			? hint
			: error.phase === "arguments"
				? `'${callerName}' called '${name}' with arguments its schema does not take: fix the pi.useTool call in '${callerName}' (list_forge {"name": "${name}"} shows its schema).`
				: origin === "input"
					? hint
					: `The fault is in '${name}'${where ? ` (${location!.file}:${location!.line})` : ""}: to repair it, read it with list_forge {"name": "${name}"} and forge '${name}' again; to handle the failure in '${callerName}', catch it around pi.useTool.`;
	return new ForgeError(
		error.phase,
		`'${name}' (called by '${callerName}' through pi.useTool) failed${where}: ${redact(error.message)}\n  with arguments ${shown}`,
		{
			tool: callerName,
			...(code ? { code } : {}),
			...(fault ? { hint: fault } : {}),
			...(notes?.length ? { notes } : {}),
		},
	);
}

/** What the callee's `execute` returned, as its output carries it: text as text, a JSON value parsed back. */
export function returnedValue(output: ToolOutput): unknown {
	switch (output.returned) {
		case "none":
			return undefined;
		case "json":
			try {
				return JSON.parse(outputText(output));
			} catch {
				return outputText(output); // cut by the output cap: the text that is left
			}
		case "result":
			return { content: output.content, ...(output.details !== undefined ? { details: output.details } : {}) };
		default: {
			const text = outputText(output);
			return text === NO_VALUE_TEXT && output.content.length === 1 ? undefined : text;
		}
	}
}
