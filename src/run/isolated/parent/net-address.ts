// What kind of address an IP address is: public (reachable on the internet) or one of the special ranges a grant of a
// host name must not reach (loopback, private networks, link-local and cloud metadata, multicast, reserved…).
// Pure: text in, a verdict out. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged
// by the IPv4 address they carry.

export type AddressKind =
	| "public"
	| "loopback"
	| "private"
	| "shared"
	| "link-local"
	| "unspecified"
	| "multicast"
	| "documentation"
	| "reserved";

/** For a message: "127.0.0.1, a loopback address". */
export const KIND_TEXT: Record<Exclude<AddressKind, "public">, string> = {
	loopback: "a loopback address",
	private: "a private address",
	shared: "a shared (carrier-grade NAT) address",
	"link-local": "a link-local address (cloud metadata services live there)",
	unspecified: "the unspecified address",
	multicast: "a multicast address",
	documentation: "an address reserved for documentation",
	reserved: "a reserved address",
};

/** IPv4 ranges that are not public, as [first octets, prefix length, kind]; the first match wins. */
const IPV4_RANGES: readonly [number[], number, AddressKind][] = [
	[[0], 8, "unspecified"],
	[[10], 8, "private"],
	[[100, 64], 10, "shared"],
	[[127], 8, "loopback"],
	[[169, 254], 16, "link-local"],
	[[172, 16], 12, "private"],
	[[192, 0, 0], 24, "reserved"],
	[[192, 0, 2], 24, "documentation"],
	[[192, 88, 99], 24, "reserved"],
	[[192, 168], 16, "private"],
	[[198, 18], 15, "reserved"],
	[[198, 51, 100], 24, "documentation"],
	[[203, 0, 113], 24, "documentation"],
	[[224], 4, "multicast"],
	[[240], 4, "reserved"],
];

/** The kind of an IPv4 or IPv6 address in text form; anything that is not an IP address is "reserved". */
export function addressKind(address: string): AddressKind {
	const v4 = parseIPv4(address);
	if (v4 !== undefined) return ipv4Kind(v4);
	const v6 = parseIPv6(address);
	return v6 ? ipv6Kind(v6) : "reserved";
}

/** Whether `host` (a URL's host name, IPv6 in brackets or not) is an IP address rather than a name. */
export function isIPLiteral(host: string): boolean {
	const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
	return parseIPv4(bare) !== undefined || parseIPv6(bare) !== undefined;
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:7f00:1`, brackets or not) stands for, in dotted form. */
export function mappedIPv4(host: string): string | undefined {
	const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
	const groups = parseIPv6(bare);
	if (!groups || groups.slice(0, 5).some((g) => g !== 0) || groups[5] !== 0xffff) return undefined;
	const [high = 0, low = 0] = groups.slice(6);
	return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

function ipv4Kind(value: number): AddressKind {
	for (const [octets, prefix, kind] of IPV4_RANGES) {
		const base = octets.reduce((sum, octet, i) => sum + octet * 256 ** (3 - i), 0);
		const size = 2 ** (32 - prefix);
		if (value >= base && value < base + size) return kind;
	}
	return "public";
}

/** Dotted-decimal IPv4 (the form resolvers and URLs give) as a 32-bit number. */
function parseIPv4(text: string): number | undefined {
	const parts = text.split(".");
	if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255))
		return undefined;
	return parts.reduce((sum, part) => sum * 256 + Number(part), 0);
}

/** IPv6 text (with `::`, an IPv4 tail, or a zone `%eth0`) as its eight 16-bit groups. */
function parseIPv6(text: string): number[] | undefined {
	const address = text.replace(/%[^%]*$/, "");
	if (!/^[0-9a-f:.]+$/i.test(address) || address.split("::").length > 2) return undefined;
	const groupsOf = (part: string): number[] | undefined => {
		if (part === "") return [];
		const groups: number[] = [];
		const pieces = part.split(":");
		for (const [i, piece] of pieces.entries()) {
			if (i === pieces.length - 1 && piece.includes(".")) {
				const v4 = parseIPv4(piece);
				if (v4 === undefined) return undefined;
				groups.push(Math.floor(v4 / 65536), v4 % 65536);
			} else if (/^[0-9a-f]{1,4}$/i.test(piece)) groups.push(Number.parseInt(piece, 16));
			else return undefined;
		}
		return groups;
	};
	const [head, tail] = address.split("::");
	const front = groupsOf(head ?? "");
	const back = tail === undefined ? [] : groupsOf(tail);
	if (!front || !back) return undefined;
	if (tail === undefined) return front.length === 8 ? front : undefined;
	const missing = 8 - front.length - back.length;
	return missing >= 1 ? [...front, ...new Array<number>(missing).fill(0), ...back] : undefined;
}

function ipv6Kind(g: number[]): AddressKind {
	const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, h = 0, i = 0] = g;
	const tail = h * 65536 + i;
	if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0) {
		if (f === 0 && h === 0) return i === 0 ? "unspecified" : i === 1 ? "loopback" : "reserved";
		// ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) reach the IPv4 address they carry.
		if (f === 0xffff || f === 0) return ipv4Kind(tail);
		return "reserved";
	}
	// NAT64 (64:ff9b::/96) reaches the IPv4 address it carries; its local-use prefix (64:ff9b:1::/48) is private.
	if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return ipv4Kind(tail);
	if (a === 0x64 && b === 0xff9b && c === 1) return "private";
	// 6to4 (2002::/16) reaches the IPv4 address in its second and third groups.
	if (a === 0x2002) return ipv4Kind(b * 65536 + c);
	if (a === 0x2001 && b === 0xdb8) return "documentation";
	// 2001::/23: protocol assignments (Teredo, ORCHID, benchmarking…).
	if (a === 0x2001 && b < 0x200) return "reserved";
	if (a === 0x3fff && b < 0x1000) return "documentation";
	if (a >= 0xfc00 && a <= 0xfdff) return "private";
	if (a >= 0xfe80 && a <= 0xfebf) return "link-local";
	// Site-local (fec0::/10), deprecated: a private network's.
	if (a >= 0xfec0 && a <= 0xfeff) return "private";
	if (a >= 0xff00) return "multicast";
	// Only 2000::/3 is global unicast; the rest is unassigned or special (100::/64 discard, 5f00::/16 SRv6…).
	if (a < 0x2000 || a > 0x3fff) return "reserved";
	return "public";
}
