// What a tool's worker hands back (a result, an error, a preflight's shape) crosses to pi's process as JSON text made
// in the worker, bounded in depth, and is read back in pi's process into plain data whose every field is checked. No
// object of a tool's is ever structured-cloned into pi (a WebAssembly.Module there ended pi: "Unable to deserialize
// cloned data"). The runner host checks what it relays with `plainData`: a worker may post anything at all.
import type { ErrorOrigin, ForgeErrorData, ForgePhase, SourceLocation } from "../../contract/forge-error.ts";
import type { ModuleShape } from "../../contract/module-shape.ts";
import type { ContentBlock, Returned, ToolOutput } from "../result.ts";

/** Nesting below this becomes a marker (worker) or is refused (pi). */
export const MAX_JSON_DEPTH = 64;
/** The longest JSON text the host relays to pi (the worker's output cap keeps real results far below it). */
export const MAX_WIRE_CHARS = 64 * 1024 * 1024;
/** The longest text of one field of an error (message, hint, a note, a frame). */
const MAX_FIELD_CHARS = 64 * 1024;
const MAX_LIST_ITEMS = 200;

export type WireResult = { ok: true; output: ToolOutput; console?: string } | { ok: false; error: ForgeErrorData };
export type WirePreflight = { ok: true; shape: ModuleShape } | { ok: false; error: ForgeErrorData };

// Taken before any tool code runs in the worker: a tool that rewrites Array.prototype.map or Map.prototype.entries
// still gets its result read by the originals.
const { apply } = Reflect;
const { keys, create } = Object;
const { isArray } = Array;
const stringify = JSON.stringify;
const mapForEach = Map.prototype.forEach;
const setForEach = Set.prototype.forEach;
const isFiniteNumber = Number.isFinite;
const bigintToString = BigInt.prototype.toString;

/**
 * A JSON-ready copy of a value, as JSON.stringify would see it (functions, symbols and undefined members dropped,
 * toJSON honoured), with BigInt as text, a value inside itself as "[Circular]" and nesting past MAX_JSON_DEPTH as
 * "[nested too deep]". Runs the value's getters and proxy traps: reading a hostile value may throw.
 */
export function toJsonValue(value: unknown, depth = 0, ancestors: object[] = []): unknown {
	if (typeof value === "bigint") return apply(bigintToString, value, []);
	if (typeof value === "number") return isFiniteNumber(value) ? value : null;
	if (typeof value !== "object" || value === null)
		return typeof value === "function" || typeof value === "symbol" ? undefined : value;
	if (depth >= MAX_JSON_DEPTH) return "[nested too deep]";
	for (let i = 0; i < ancestors.length; i++) if (ancestors[i] === value) return "[Circular]";
	const toJSON = (value as { toJSON?: unknown }).toJSON;
	if (typeof toJSON === "function") return toJsonValue(apply(toJSON, value, []), depth, ancestors);
	const inner = [...ancestors];
	inner[inner.length] = value;
	const out: unknown[] = [];
	if (value instanceof Map) {
		const object: Record<string, unknown> = create(null);
		apply(mapForEach, value, [(item: unknown, key: unknown) => addMember(object, `${key}`, item, depth, inner)]);
		return object;
	}
	if (value instanceof Set) {
		apply(setForEach, value, [(item: unknown) => (out[out.length] = toJsonValue(item, depth + 1, inner) ?? null)]);
		return out;
	}
	if (isArray(value)) {
		const length = (value as unknown[]).length;
		for (let i = 0; i < length; i++) out[i] = toJsonValue((value as unknown[])[i], depth + 1, inner) ?? null;
		return out;
	}
	const object: Record<string, unknown> = create(null);
	const names = keys(value);
	for (let i = 0; i < names.length; i++)
		addMember(object, names[i], (value as Record<string, unknown>)[names[i]], depth, inner);
	return object;
}

function addMember(
	object: Record<string, unknown>,
	key: string,
	item: unknown,
	depth: number,
	ancestors: object[],
): void {
	const plain = toJsonValue(item, depth + 1, ancestors);
	if (plain !== undefined) object[key] = plain;
}

/** JSON text of a value through toJsonValue; throws only when reading the value throws. */
export function toWireJson(value: unknown): string {
	return stringify(toJsonValue(value)) ?? "null";
}

/** pi's reading of a call's result. Anything malformed becomes an error of the call, never a throw. */
export function readWireResult(json: unknown): WireResult {
	const parsed = parseBounded(json);
	if (!parsed.ok) return { ok: false, error: parsed.error };
	const value = parsed.value as Record<string, unknown>;
	if (value.ok === false) return { ok: false, error: readErrorData(value.error) };
	const output = readOutput(value.output);
	if (!output) return { ok: false, error: malformed("its output is not a list of text and image blocks") };
	return { ok: true, output, ...(typeof value.console === "string" ? { console: value.console } : {}) };
}

/** pi's reading of a preflight's verdict on a module. */
export function readWirePreflight(json: unknown): WirePreflight {
	const parsed = parseBounded(json);
	if (!parsed.ok) return { ok: false, error: parsed.error };
	const value = parsed.value as Record<string, unknown>;
	if (value.ok === false) return { ok: false, error: readErrorData(value.error) };
	const shape = value.shape as Record<string, unknown> | undefined;
	if (
		!isRecord(shape) ||
		typeof shape.name !== "string" ||
		typeof shape.description !== "string" ||
		!isRecord(shape.parameters)
	) {
		return { ok: false, error: malformed("the module's shape is not { name, description, parameters }") };
	}
	return { ok: true, shape: { name: shape.name, description: shape.description, parameters: shape.parameters } };
}

const PHASES: ReadonlySet<string> = new Set<ForgePhase>([
	"name",
	"description",
	"schema",
	"syntax",
	"import",
	"load",
	"shape",
	"tests",
	"arguments",
	"not-found",
	"broken",
	"runtime",
	"timeout",
	"memory",
	"secrets",
	"aborted",
	"permission",
	"store",
	"runner",
]);
const ORIGINS: ReadonlySet<string> = new Set<ErrorOrigin>(["logic", "input", "permission"]);

/** Error data with every field of the expected type and bounded; what is not is left out. */
export function readErrorData(raw: unknown): ForgeErrorData {
	const error = isRecord(raw) ? raw : {};
	const text = (value: unknown) => (typeof value === "string" ? value.slice(0, MAX_FIELD_CHARS) : undefined);
	const list = (value: unknown) =>
		Array.isArray(value)
			? value
					.filter((item): item is string => typeof item === "string")
					.slice(0, MAX_LIST_ITEMS)
					.map((item) => item.slice(0, MAX_FIELD_CHARS))
			: undefined;
	const wire: ForgeErrorData = {
		phase: typeof error.phase === "string" && PHASES.has(error.phase) ? (error.phase as ForgePhase) : "runtime",
		message: text(error.message) ?? "The tool failed without a message.",
	};
	const location = readLocation(error.location);
	const optional: Partial<ForgeErrorData> = {
		location,
		stack: list(error.stack),
		hint: text(error.hint),
		notes: list(error.notes),
		code: text(error.code),
		origin: typeof error.origin === "string" && ORIGINS.has(error.origin) ? (error.origin as ErrorOrigin) : undefined,
		console: typeof error.console === "string" ? error.console : undefined,
	};
	for (const [key, value] of Object.entries(optional))
		if (value !== undefined) (wire as unknown as Record<string, unknown>)[key] = value;
	return wire;
}

function readLocation(raw: unknown): SourceLocation | undefined {
	if (!isRecord(raw) || typeof raw.file !== "string" || !Number.isInteger(raw.line) || !Number.isInteger(raw.column))
		return undefined;
	return { file: raw.file.slice(0, 1000), line: raw.line as number, column: raw.column as number };
}

function readOutput(raw: unknown): ToolOutput | undefined {
	if (!isRecord(raw) || !Array.isArray(raw.content)) return undefined;
	const content: ContentBlock[] = [];
	for (const block of raw.content) {
		if (isRecord(block) && block.type === "text" && typeof block.text === "string")
			content.push({ type: "text", text: block.text });
		else if (
			isRecord(block) &&
			block.type === "image" &&
			typeof block.data === "string" &&
			typeof block.mimeType === "string"
		)
			content.push({ type: "image", data: block.data, mimeType: block.mimeType });
		else return undefined;
	}
	const returned = RETURNED.has(raw.returned) ? { returned: raw.returned as Returned } : {};
	return raw.details === undefined ? { content, ...returned } : { content, details: raw.details, ...returned };
}

const RETURNED: ReadonlySet<unknown> = new Set<Returned>(["text", "json", "none", "result"]);

function parseBounded(json: unknown): { ok: true; value: unknown } | { ok: false; error: ForgeErrorData } {
	if (typeof json !== "string") return { ok: false, error: malformed("it is not JSON text") };
	if (json.length > MAX_WIRE_CHARS)
		return { ok: false, error: malformed(`it is larger than ${MAX_WIRE_CHARS / 1024 / 1024} MB`) };
	let value: unknown;
	try {
		value = JSON.parse(json);
	} catch {
		return { ok: false, error: malformed("it is not valid JSON") };
	}
	if (!isRecord(value)) return { ok: false, error: malformed("it is not an object") };
	if (!withinDepth(value, MAX_JSON_DEPTH + 8))
		return { ok: false, error: malformed(`it is nested deeper than ${MAX_JSON_DEPTH} levels`) };
	return { ok: true, value };
}

function malformed(why: string): ForgeErrorData {
	return {
		phase: "runtime",
		message: `The tool's result could not be read: ${why}.`,
		hint: "Return a string, a JSON value or { content: [...] } from execute.",
	};
}

/** Whether parsed JSON nests no deeper than `max` (walked without recursion, so any depth is safe to check). */
export function withinDepth(value: unknown, max: number): boolean {
	const stack: Array<[unknown, number]> = [[value, 0]];
	while (stack.length > 0) {
		const [node, depth] = stack.pop()!;
		if (typeof node !== "object" || node === null) continue;
		if (depth > max) return false;
		for (const child of Array.isArray(node) ? node : Object.values(node))
			if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
	}
	return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Why `plainData` refused a value. */
export class NotPlainData extends Error {}

/**
 * In the runner host, a copy of what a worker asks pi's process to do, holding only what pi can receive: primitives
 * (no symbols), byte arrays (as Uint8Array, never over shared memory), plain arrays and objects, bounded in depth and
 * size. Anything else (a WebAssembly.Module, a SharedArrayBuffer, a port, a Map…) is refused.
 */
export function plainData(value: unknown, budget = { items: 100_000 }, depth = 0): unknown {
	if (--budget.items < 0) throw new NotPlainData("it holds too many values");
	if (
		value === null ||
		value === undefined ||
		typeof value === "string" ||
		typeof value === "number" ||
		typeof value === "boolean"
	)
		return value;
	if (typeof value !== "object") throw new NotPlainData(`it holds a ${typeof value}`);
	if (depth > 16) throw new NotPlainData("it is nested too deep");
	if (ArrayBuffer.isView(value)) {
		if (!(value.buffer instanceof ArrayBuffer)) throw new NotPlainData("it holds shared memory");
		return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
	}
	const proto = Object.getPrototypeOf(value);
	if (Array.isArray(value) && proto === Array.prototype)
		return value.map((item) => plainData(item, budget, depth + 1));
	if (proto !== Object.prototype && proto !== null)
		throw new NotPlainData(`it holds a ${Object.prototype.toString.call(value).slice(8, -1)}`);
	const out: Record<string, unknown> = Object.create(null);
	for (const key of Object.keys(value))
		out[key] = plainData((value as Record<string, unknown>)[key], budget, depth + 1);
	return out;
}
