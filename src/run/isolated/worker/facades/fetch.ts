// `fetch` for forged tools that are kept off the network (policies strict and prompt): each request is asked of pi's
// process as the capability `net:<host>` (the policy decides, a person where one must, the audit log records it) and made
// there; the answer comes back as a Response. Redirects are not followed (a redirect to another host would be another
// capability): the tool gets the 3xx and may ask again. Bodies are capped both ways.
import type { NetResult } from "../../protocol.ts";
import type { Brokered } from "../worker-broker.ts";

/** Request and response bodies above this fail the request. */
export const MAX_NET_BODY_BYTES = 10 * 1024 * 1024;

/**
 * `classes` gives Request and Response when the first request is made: reading them loads Node's fetch machinery,
 * which a worker that never fetches should not pay for at start.
 */
export function createBrokeredFetch(
	broker: Brokered,
	classes: () => { Request: typeof Request; Response: typeof Response },
): typeof fetch {
	const brokeredFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
		const { Request: RequestClass, Response: ResponseClass } = classes();
		const request = new RequestClass(input, init);
		const url = new URL(request.url);
		if (url.protocol !== "http:" && url.protocol !== "https:")
			throw new TypeError(`fetch: only http: and https: URLs can be fetched by a forged tool (${url.protocol})`);
		const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
		if (body && body.length > MAX_NET_BODY_BYTES)
			throw new TypeError(`fetch: the request body is over ${MAX_NET_BODY_BYTES} bytes`);
		let reply: NetResult;
		try {
			reply = (await broker.async({
				kind: "net",
				url: url.href,
				method: request.method,
				headers: [...request.headers],
				...(body ? { body: body.toString("base64") } : {}),
			})) as NetResult;
		} catch (error) {
			throw asFetchError(error);
		}
		const payload =
			reply.body === undefined || [101, 204, 205, 304].includes(reply.status)
				? null
				: Buffer.from(reply.body, "base64");
		const response = new ResponseClass(payload, {
			status: reply.status,
			statusText: reply.statusText,
			headers: reply.headers,
		});
		Object.defineProperty(response, "url", { value: reply.url });
		return response;
	};
	return brokeredFetch as typeof fetch;
}

/** A request that failed in pi's process comes back as fetch's own failure: a TypeError whose cause has its fields. */
function asFetchError(error: unknown): unknown {
	if ((error as { code?: unknown }).code !== "ERR_FORGE_FETCH_FAILED") return error;
	const [message, fields] = (error as Error).message.split("\n");
	let cause: Record<string, unknown> = {};
	try {
		cause = JSON.parse(fields ?? "{}") as Record<string, unknown>;
	} catch {
		// not the broker's shape: the message alone
	}
	const { message: causeMessage, ...rest } = cause;
	return new TypeError(message, { cause: Object.assign(new Error(String(causeMessage ?? rest.code ?? "")), rest) });
}
