// An HTTP request made in pi's process for a tool kept off the network, once the gate allowed its host.
import type { NetRequest, NetResult } from "../protocol.ts";

const NET_TIMEOUT_MS = 30_000;
/** The code of a brokered request that failed on the way (its cause's fields follow the message's first line). */
export const FETCH_FAILED = "ERR_FORGE_FETCH_FAILED";
const MAX_NET_BODY = 10 * 1024 * 1024;

/**
 * Redirects are not followed (another host is another capability); the body is capped; the call's end (`alive`
 * turning false) aborts it.
 */
export async function makeRequest(request: NetRequest, alive: () => boolean): Promise<NetResult> {
	const signal = AbortSignal.timeout(NET_TIMEOUT_MS);
	let response: Response;
	try {
		response = await fetch(request.url, {
			method: request.method,
			headers: request.headers,
			...(request.body !== undefined ? { body: Buffer.from(request.body, "base64") } : {}),
			redirect: "manual",
			signal,
		});
	} catch (error) {
		// The cause (ECONNREFUSED at an address, ENOTFOUND of a host…) goes back as data: the tool's fetch rethrows it as
		// fetch would, with the same fields.
		const cause = (error as { cause?: Record<string, unknown> }).cause ?? {};
		const fields = Object.fromEntries(
			["message", "code", "syscall", "address", "port", "hostname"]
				.map((key) => [key, cause[key]])
				.filter(([, value]) => typeof value === "string" || typeof value === "number"),
		);
		fields.code ??= (error as { name?: string }).name ?? "unknown";
		throw Object.assign(new Error(`${(error as Error).message}\n${JSON.stringify(fields)}`), { code: FETCH_FAILED });
	}
	const chunks: Buffer[] = [];
	let size = 0;
	if (response.body) {
		for await (const chunk of response.body) {
			size += chunk.byteLength;
			if (size > MAX_NET_BODY || !alive()) {
				await response.body.cancel().catch(() => undefined);
				if (!alive())
					throw Object.assign(new Error("the call ended while its request was running"), {
						code: "ERR_FORGE_CALL_OVER",
					});
				throw Object.assign(new Error(`fetch: the response body is over ${MAX_NET_BODY} bytes`), {
					code: "ERR_FORGE_TOO_LARGE",
				});
			}
			chunks.push(Buffer.from(chunk));
		}
	}
	return {
		status: response.status,
		statusText: response.statusText,
		headers: [...response.headers],
		body: Buffer.concat(chunks).toString("base64"),
		url: request.url,
	};
}
