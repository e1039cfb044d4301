// Where a brokered request connects: the addresses its URL's host resolves to, looked up once and checked. A grant of
// a host name (`net:api.example.com`) reaches public addresses only, so a name whose DNS answers with a loopback,
// private or metadata address (DNS rebinding) is refused; an IP address or `localhost` in the URL is what the person
// approved, and is connected to as it is.
import { addressKind, isIPLiteral, KIND_TEXT, mappedIPv4 } from "./net-address.ts";

export interface ResolvedAddress {
	address: string;
	family: 4 | 6;
}

/** Looks a host name up: every address it has (the default is the system's resolver, dns.lookup with `all`). */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

/** The code of a request refused because its host name resolved to an address that is not public. */
export const NOT_PUBLIC = "ERR_FORGE_NOT_PUBLIC";

const LOCALHOST = new Set(["localhost", "localhost."]);

/** The URL's host name without the brackets of an IPv6 address. */
export function bareHostname(url: URL): string {
	const { hostname } = url;
	return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

/** The addresses to connect to for `url`: resolved once, each checked; a request connects to these and no others. */
export async function resolveTarget(url: URL, resolve: Resolve): Promise<ResolvedAddress[]> {
	const hostname = bareHostname(url);
	if (isIPLiteral(hostname)) return [{ address: hostname, family: hostname.includes(":") ? 6 : 4 }];
	const addresses = await resolve(hostname);
	if (addresses.length === 0)
		throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
			code: "ENOTFOUND",
			syscall: "getaddrinfo",
			hostname,
		});
	if (LOCALHOST.has(hostname)) return addresses;
	for (const { address } of addresses) {
		const kind = addressKind(address);
		if (kind === "public") continue;
		throw Object.assign(new Error(notPublicMessage(url, address, KIND_TEXT[kind])), {
			code: NOT_PUBLIC,
			hostname,
			address,
		});
	}
	return addresses;
}

function notPublicMessage(url: URL, address: string, kind: string): string {
	// As the capability of a URL naming the address writes it (netHost): an IPv4-mapped address as its IPv4 address.
	const bare = mappedIPv4(address) ?? address.replace(/%.*$/, "");
	const grant = new URL(`${url.protocol}//${bare.includes(":") ? `[${bare}]` : bare}`);
	grant.port = url.port;
	return `fetch: ${url.hostname} resolved to ${address}, ${kind}; a grant of a host name reaches only public addresses — ask for net:${grant.host} to reach it`;
}
