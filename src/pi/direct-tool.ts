// A forged tool as a first-class pi tool under its own name: same path as use_forge_tool, pi's schema as its parameters.
import type { AgentToolUpdateCallback, ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { piSafeSchema } from "../schema/pi-schema.ts";
import type { RegistryEntry } from "../store/registry.ts";
import type { Toolbox } from "../toolbox/toolbox.ts";
import { composingHost, type NestedCall } from "./compose.ts";
import type { ForgeSession } from "./forge-session.ts";
import type { ForgeOutcome } from "./forges-in-flight.ts";
import { modelRedaction, toPiError, truncateOutput } from "./output.ts";
import { defineTool } from "./pi-exports.ts";
import { renderUseResult, type UseDetails } from "./render.ts";

/** How many of a call's nested calls its details keep (the latest), and how often a running call's are sent on. */
const NESTED_SHOWN = 20;
const UPDATE_EVERY_MS = 100;
/** Top-level calls so far: each names the workers of the tools it calls. */
let calls = 0;

export function createDirectTool(entry: RegistryEntry, session: ForgeSession, pi: ExtensionAPI) {
	const { name } = entry;
	return defineTool({
		name,
		label: `forged: ${name}`,
		description: `${entry.description}\n(Forged tool '${name}', v${entry.version}.)`,
		// The tool's own JSON Schema, as pi validates it (TypeBox's Unsafe wraps a schema it did not build), without what
		// could take pi's main thread unbounded time: the forge checks the full schema before the tool runs.
		parameters: Type.Unsafe<Record<string, unknown>>(piSafeSchema(entry.parameters)),
		execute: (_toolCallId, params, signal, onUpdate, ctx) =>
			runForgedTool(session, pi, name, params, signal, ctx, onUpdate),
		renderResult: (result, options, theme, context) =>
			renderUseResult(result, options, theme, context.lastComponent, context.isError),
	});
}

/**
 * One call of a forged tool from pi (by its own name or through use_forge_tool): run, truncate, or throw the repair
 * signal. A forge of the same name in the same message is waited for, and the result says which version ran.
 */
export async function runForgedTool(
	session: ForgeSession,
	pi: ExtensionAPI,
	name: string,
	args: unknown,
	signal: AbortSignal | undefined,
	ctx: ExtensionContext,
	onUpdate?: AgentToolUpdateCallback<UseDetails>,
) {
	session.ui.attach(ctx);
	const toolbox = await session.toolboxFor(ctx);
	session.refuseUntrusted(name, toolbox);
	const forge = typeof name === "string" ? await session.forges.waitFor(name, signal) : undefined;
	// What the tool calls through pi.useTool is shown nested under it while it runs, and in its result: the last
	// NESTED_SHOWN calls and how many there were, sent on at most every UPDATE_EVERY_MS (a tool may make thousands).
	const nested: NestedCall[] = [];
	let nestedCount = 0;
	const details = (): Pick<UseDetails, "nested" | "nestedCount"> =>
		nestedCount ? { nested: [...nested], ...(nestedCount > nested.length ? { nestedCount } : {}) } : {};
	let lastUpdate = 0;
	let pending: NodeJS.Timeout | undefined;
	/** Set when the call is over: a nested call its tool left running that ends later is not reported (pi's run is over). */
	let over = false;
	const update = () => {
		pending = undefined;
		lastUpdate = performance.now();
		onUpdate?.({
			content: [{ type: "text", text: "" }],
			details: {
				tool: name,
				version: toolbox.get(name)?.version ?? 0,
				durationMs: 0,
				truncated: false,
				...details(),
			},
		});
	};
	// The tools it calls run in workers of this call's own, ended with it.
	const call = { id: `call-${++calls}`, workers: new Map<string, Toolbox>() };
	const host = composingHost(
		{
			...session.composition(pi, ctx, ctx.cwd, (nestedCall) => {
				if (over) return;
				nestedCount++;
				nested.push(nestedCall);
				if (nested.length > NESTED_SHOWN) nested.shift();
				if (!onUpdate || pending) return;
				const wait = lastUpdate + UPDATE_EVERY_MS - performance.now();
				if (wait <= 0) update();
				else pending = setTimeout(update, wait);
			}),
			call,
		},
		[name],
	);
	const result = await toolbox
		.use(name, args, {
			signal,
			host,
			redact: (text) => modelRedaction(toolbox.config).prose(text),
		})
		.finally(() => {
			over = true;
			clearTimeout(pending);
			for (const [key, owner] of call.workers) owner.releaseWorker(key);
		});
	if (!result.ok) {
		const note = forge && raceNote(name, forge, toolbox.get(name)?.version, false);
		throw toPiError(
			note ? result.error.with({ notes: [note, ...(result.error.details.notes ?? [])] }) : result.error,
			toolbox.config,
		);
	}
	const nestedShown = details();
	const { content, details: resultDetails, truncated } = truncateOutput(result.value);
	const note = forge && raceNote(name, forge, result.value.version, true);
	const shown = note ? [...content, { type: "text" as const, text: `(${note})` }] : content;
	return {
		content: shown,
		details: {
			tool: name,
			version: result.value.version,
			durationMs: result.value.durationMs,
			truncated,
			result: resultDetails,
			...nestedShown,
		},
	};
}

/**
 * Which version a call used when a forge_tool call for the same name was in the same message: `version` is the live
 * one (if any), `ran` whether the call ran it (or failed on it) rather than being refused before.
 */
export function raceNote(name: string, forge: ForgeOutcome, version: number | undefined, ran: boolean): string {
	if (forge.ok)
		return `${ran ? "Ran" : "Called"} '${name}' v${version ?? forge.version}, the version forged by the forge_tool call in this same message.`;
	const failed = `The forge_tool call for '${name}' in this same message failed (phase: ${forge.phase})`;
	if (version === undefined)
		return `${failed}, and there is no earlier version: nothing ran. Repair it with forge_tool, then call it again.`;
	return `${failed}: ${ran ? "this ran" : "this call went to"} the previous version v${version}, which is still live.`;
}
