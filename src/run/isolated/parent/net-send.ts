// Sends a brokered request over a connection to the addresses that were checked for its host (net-target.ts): a new
// connection's lookup answers with those addresses and never asks DNS again. Connections are kept alive for the next
// request to the same host name (and port): each was opened to checked addresses, and every request checks its host
// again before it may use one. The agents are the broker's own, never pi's global agent, which may go through a
// proxy from the environment.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIPLiteral } from "./net-address.ts";
import { bareHostname, type ResolvedAddress } from "./net-target.ts";

const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });
/** Methods whose request may be sent again when a kept-alive connection turns out to have been closed by the server. */
const REPEATABLE = new Set(["GET", "HEAD", "OPTIONS"]);

export function send(
	url: URL,
	method: string,
	headers: OutgoingHttpHeaders,
	body: Buffer | undefined,
	addresses: ResolvedAddress[],
	signal: AbortSignal,
): Promise<IncomingMessage> {
	const secure = url.protocol === "https:";
	const hostname = bareHostname(url);
	const options = {
		host: hostname,
		port: Number(url.port) || (secure ? 443 : 80),
		path: `${url.pathname}${url.search}`,
		method,
		headers,
		agent: secure ? httpsAgent : httpAgent,
		lookup: pinnedLookup(addresses),
		signal,
		// TLS verifies the certificate against the host name the URL names.
		...(secure && !isIPLiteral(hostname) ? { servername: hostname.replace(/\.$/, "") } : {}),
	};
	const attempt = (again: boolean): Promise<IncomingMessage> =>
		new Promise((resolve, reject) => {
			const outgoing = (secure ? httpsRequest : httpRequest)(options);
			outgoing.on("response", resolve);
			outgoing.on("error", (error: NodeJS.ErrnoException) => {
				// A server may close an idle connection just as it is reused: that request goes again, on a new one.
				if (again && outgoing.reusedSocket && error.code === "ECONNRESET" && !signal.aborted)
					attempt(false).then(resolve, reject);
				else reject(error);
			});
			outgoing.end(body);
		});
	return attempt(REPEATABLE.has(method.toUpperCase()));
}

function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
	return (hostname, options, callback) => {
		const fitting = addresses.filter((a) => !options.family || a.family === options.family);
		if (fitting.length === 0) {
			const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
				code: "ENOTFOUND",
				syscall: "getaddrinfo",
				hostname,
			});
			callback(error, "", 0);
		} else if (options.all) callback(null, fitting);
		else callback(null, fitting[0]!.address, fitting[0]!.family);
	};
}
