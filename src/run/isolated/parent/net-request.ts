// An HTTP request made in pi's process for a tool kept off the network, once the gate allowed its host. It connects to
// the addresses its host was resolved to and checked (net-target.ts) and to no others: no second lookup, no proxy from
// the environment, no redirect followed (another host is another capability). Body and time are bounded; the call's
// end aborts it.
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import type { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { constants, createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { NetRequest, NetResult } from "../protocol.ts";
import { send } from "./net-send.ts";
import { Slots } from "./net-slots.ts";
import { NOT_PUBLIC, type Resolve, resolveTarget } from "./net-target.ts";

const NET_TIMEOUT_MS = 30_000;
/** The code of a brokered request that failed on the way (its cause's fields follow the message's first line). */
export const FETCH_FAILED = "ERR_FORGE_FETCH_FAILED";
const MAX_NET_BODY = 10 * 1024 * 1024;
const MAX_REQUEST_HEADERS = 64 * 1024;
/** Brokered requests running at once, over all tools (the others wait, within their own time bound)… */
export const MAX_CONCURRENT = 8;
/** …of which one tool holds at most this many: another tool's request starts at once (net-slots.ts). */
export const PER_TOOL = 6;
const slots = new Slots(MAX_CONCURRENT, PER_TOOL);
/** How often a running request looks whether its call has ended. */
const ALIVE_POLL_MS = 100;

export interface NetOptions {
	/** How a host name is looked up (once per request). */
	resolve: Resolve;
	/** The bound on the whole request, from the lookup to the last byte of the body (default 30 s). */
	timeoutMs?: number;
	/** The tool the request is made for: each tool has its share of the slots (without one, requests share a queue). */
	tool?: string;
}

/** Headers fetch sends when a request does not set them (some APIs refuse a request without a user agent). */
const FETCH_DEFAULTS: readonly [string, string][] = [
	["accept", "*/*"],
	["accept-language", "*"],
	["sec-fetch-mode", "cors"],
	["user-agent", "node"],
	["accept-encoding", "gzip, deflate"],
];
/** Methods fetch refuses: CONNECT would open a tunnel through the granted host to any other. */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);
/** Headers about the connection, which is pi's: dropped (the length is set from the body). */
const DROPPED = new Set(["connection", "keep-alive", "content-length"]);
/** Headers that would change what the connection is or carries: refused. */
const REFUSED = new Set(["transfer-encoding", "upgrade", "te", "trailer", "expect", "proxy-connection"]);

export async function makeRequest(request: NetRequest, alive: () => boolean, options: NetOptions): Promise<NetResult> {
	const url = new URL(request.url);
	if (url.protocol !== "http:" && url.protocol !== "https:")
		throw unsupported(`fetch: only http: and https: (${url.protocol})`);
	if (url.username || url.password)
		throw unsupported("fetch: a URL with a user name or password in it cannot be fetched");
	if (FORBIDDEN_METHODS.has(request.method.toUpperCase()))
		throw unsupported(`fetch: the ${request.method.toUpperCase()} method cannot be used (fetch does not allow it)`);
	const body = request.body === undefined ? undefined : Buffer.from(request.body, "base64");
	if (body && body.length > MAX_NET_BODY)
		throw Object.assign(new Error(`fetch: the request body is over ${MAX_NET_BODY} bytes`), {
			code: "ERR_FORGE_TOO_LARGE",
		});
	const headers = outgoingHeaders(request.headers, url, body);
	const timeoutMs = options.timeoutMs ?? NET_TIMEOUT_MS;
	const stop = new AbortController();
	const timer = setTimeout(() => stop.abort(timedOut(url, timeoutMs)), timeoutMs);
	const poll = setInterval(() => {
		if (!alive()) stop.abort(callOver());
	}, ALIVE_POLL_MS);
	timer.unref?.();
	poll.unref?.();
	let release: (() => void) | undefined;
	try {
		release = await slots.take(stop.signal, options.tool);
		const addresses = await untilAborted(resolveTarget(url, options.resolve), stop.signal);
		const response = await send(url, request.method, headers, body, addresses, stop.signal);
		const payload = await readBody(response, request.method);
		const raw = response.rawHeaders;
		const pairs: [string, string][] = [];
		for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
		return {
			status: response.statusCode ?? 0,
			statusText: response.statusMessage ?? "",
			headers: pairs,
			body: payload.toString("base64"),
			url: request.url,
		};
	} catch (error) {
		// Once the time is up or the call is over, that is what failed, whatever the aborted request threw.
		throw stop.signal.aborted ? wireError(stop.signal.reason, true) : wireError(error, false);
	} finally {
		release?.();
		clearTimeout(timer);
		clearInterval(poll);
	}
}

/** The request's headers as sent: fetch's defaults where it sets none, the Host the URL names, the body's length. */
function outgoingHeaders(pairs: readonly [string, string][], url: URL, body: Buffer | undefined): OutgoingHttpHeaders {
	const headers: OutgoingHttpHeaders = {};
	let size = 0;
	for (const [rawName, value] of pairs) {
		const name = rawName.toLowerCase();
		size += name.length + value.length + 4;
		if (name === "host") {
			if (hostOf(url.protocol, value) !== url.host)
				throw unsupported(
					`fetch: the Host header (${value.slice(0, 100)}) names another host than the URL (${url.host}); a request goes to the host its URL names, which is the one granted`,
				);
			continue;
		}
		if (REFUSED.has(name)) throw unsupported(`fetch: a forged tool's request cannot set the ${name} header`);
		if (!DROPPED.has(name)) headers[name] = value;
	}
	if (size > MAX_REQUEST_HEADERS)
		throw unsupported(`fetch: the request's headers are over ${MAX_REQUEST_HEADERS} bytes`);
	for (const [name, value] of FETCH_DEFAULTS) headers[name] ??= value;
	headers.host = url.host;
	if (body) headers["content-length"] = String(body.length);
	return headers;
}

/** A Host header's value as a URL's host: lower case, the scheme's default port left out; undefined if it is none. */
function hostOf(protocol: string, value: string): string | undefined {
	try {
		return new URL(`${protocol}//${value}`).host;
	} catch {
		return undefined;
	}
}

/** The body, decoded as fetch decodes it (gzip, deflate, br), up to MAX_NET_BODY bytes. */
async function readBody(response: IncomingMessage, method: string): Promise<Buffer> {
	const status = response.statusCode ?? 0;
	const decoders = method === "HEAD" || status === 204 || status === 304 ? [] : decodersFor(response.headers);
	const chunks: Buffer[] = [];
	let size = 0;
	// Node 20's pipeline rejects with its own AbortError when a stage throws: the cap's error is kept to be thrown.
	let overCap: Error | undefined;
	const collect = async (source: AsyncIterable<Buffer>) => {
		for await (const chunk of source) {
			size += chunk.byteLength;
			if (size > MAX_NET_BODY) {
				overCap = Object.assign(new Error(`fetch: the response body is over ${MAX_NET_BODY} bytes`), {
					code: "ERR_FORGE_TOO_LARGE",
				});
				throw overCap;
			}
			chunks.push(chunk);
		}
	};
	// The request's signal ends the response too (its end or the call's end); the pipeline's stages go with it.
	await (pipeline as unknown as (...stages: unknown[]) => Promise<void>)(response, ...decoders, collect).catch(
		(error: unknown) => {
			throw overCap ?? error;
		},
	);
	return Buffer.concat(chunks);
}

function decodersFor(headers: IncomingMessage["headers"]): Transform[] {
	const codings = (headers["content-encoding"] ?? "")
		.split(",")
		.map((coding) => coding.trim().toLowerCase())
		.filter((coding) => coding && coding !== "identity");
	const lenient = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
	const make: Record<string, () => Transform> = {
		gzip: () => createGunzip(lenient),
		"x-gzip": () => createGunzip(lenient),
		deflate: () => createInflate(lenient),
		br: () => createBrotliDecompress(),
	};
	// A coding fetch does not know leaves the body as it came.
	if (!codings.every((coding) => coding in make)) return [];
	return codings.reverse().map((coding) => make[coding]!());
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => reject(signal.reason);
		signal.addEventListener("abort", onAbort, { once: true });
		work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
	});
}

/**
 * What crosses to the tool: a refusal or a limit as itself; a failure on the way as fetch's, with its cause's fields
 * ("fetch failed", or the forge's own words where it stopped the request).
 */
function wireError(error: unknown, own: boolean): unknown {
	const code = (error as { code?: unknown })?.code;
	if (code === "ERR_FORGE_CALL_OVER" || code === "ERR_FORGE_TOO_LARGE" || code === "ERR_FORGE_UNSUPPORTED")
		return error;
	const source = error as Record<string, unknown>;
	const fields = Object.fromEntries(
		["message", "code", "syscall", "address", "port", "hostname"]
			.map((key) => [key, source?.[key]])
			.filter(([, value]) => typeof value === "string" || typeof value === "number"),
	);
	fields.code ??= (error as { name?: string })?.name ?? "unknown";
	const message = own || code === NOT_PUBLIC ? (error as Error).message : "fetch failed";
	return Object.assign(new Error(`${message}\n${JSON.stringify(fields)}`), { code: FETCH_FAILED });
}

function timedOut(url: URL, ms: number): Error {
	return Object.assign(new Error(`fetch: ${url.host} did not answer in full within ${ms / 1000} s`), {
		code: "ETIMEDOUT",
	});
}

function callOver(): Error {
	return Object.assign(new Error("the call ended while its request was running"), { code: "ERR_FORGE_CALL_OVER" });
}

function unsupported(message: string): Error {
	return Object.assign(new TypeError(message), { code: "ERR_FORGE_UNSUPPORTED" });
}
