// The address classifier behind net: grants of host names: which addresses are public, and which special range each
// other one is in — IPv4, IPv6, and the IPv6 forms that carry an IPv4 address.
import { describe, expect, it } from "vitest";
import { netHost } from "../../src/run/isolated/parent/capabilities.ts";
import { type AddressKind, addressKind, isIPLiteral, mappedIPv4 } from "../../src/run/isolated/parent/net-address.ts";

const CASES: [string, AddressKind][] = [
	// IPv4
	["93.184.216.34", "public"],
	["8.8.8.8", "public"],
	["1.1.1.1", "public"],
	["0.0.0.0", "unspecified"],
	["0.1.2.3", "unspecified"],
	["10.0.0.1", "private"],
	["10.255.255.255", "private"],
	["11.0.0.0", "public"],
	["100.63.255.255", "public"],
	["100.64.0.1", "shared"],
	["100.127.255.255", "shared"],
	["100.128.0.0", "public"],
	["127.0.0.1", "loopback"],
	["127.255.255.254", "loopback"],
	["169.254.169.254", "link-local"],
	["169.254.0.1", "link-local"],
	["172.15.255.255", "public"],
	["172.16.0.1", "private"],
	["172.31.255.255", "private"],
	["172.32.0.0", "public"],
	["192.0.0.8", "reserved"],
	["192.0.2.1", "documentation"],
	["192.88.99.1", "reserved"],
	["192.168.1.1", "private"],
	["198.18.0.1", "reserved"],
	["198.19.255.255", "reserved"],
	["198.20.0.0", "public"],
	["198.51.100.7", "documentation"],
	["203.0.113.9", "documentation"],
	["224.0.0.1", "multicast"],
	["239.255.255.250", "multicast"],
	["240.0.0.1", "reserved"],
	["255.255.255.255", "reserved"],
	// IPv6
	["::", "unspecified"],
	["::1", "loopback"],
	["0:0:0:0:0:0:0:1", "loopback"],
	["2606:4700:4700::1111", "public"],
	["2001:4860:4860::8888", "public"],
	["fc00::1", "private"],
	["fd12:3456:789a::1", "private"],
	["fe80::1", "link-local"],
	["fe80::1%eth0", "link-local"],
	["febf::1", "link-local"],
	["fec0::1", "private"],
	["ff02::1", "multicast"],
	["2001:db8::1", "documentation"],
	["3fff::1", "documentation"],
	["2001::1", "reserved"],
	["2001:1ff::1", "reserved"],
	["2001:200::1", "public"],
	["100::1", "reserved"],
	["4000::1", "reserved"],
	["::2", "reserved"],
	// IPv6 forms that carry an IPv4 address
	["::ffff:127.0.0.1", "loopback"],
	["::ffff:7f00:1", "loopback"],
	["::FFFF:7F00:0001", "loopback"],
	["0:0:0:0:0:ffff:a9fe:a9fe", "link-local"],
	["::ffff:10.1.2.3", "private"],
	["::ffff:93.184.216.34", "public"],
	["::127.0.0.1", "loopback"],
	["::a00:1", "private"],
	["64:ff9b::127.0.0.1", "loopback"],
	["64:ff9b::a9fe:a9fe", "link-local"],
	["64:ff9b::8.8.8.8", "public"],
	["64:ff9b:1::1", "private"],
	["2002:7f00:1::1", "loopback"],
	["2002:c0a8:101::1", "private"],
	["2002:808:808::1", "public"],
	// Not addresses at all: never public.
	["", "reserved"],
	["localhost", "reserved"],
	["127.1", "reserved"],
	["0x7f.0.0.1", "reserved"],
	["0177.0.0.1", "reserved"],
	["256.0.0.1", "reserved"],
	["1:2:3:4:5:6:7:8:9", "reserved"],
	["1::2::3", "reserved"],
	["::ffff:999.0.0.1", "reserved"],
];

describe("addressKind", () => {
	it.each(CASES)("%s is %s", (address, kind) => {
		expect(addressKind(address)).toBe(kind);
	});

	it("agrees with what the URL parser makes of odd IPv4 forms once they are addresses", () => {
		for (const host of ["0x7f.1", "0177.0.0.1", "2130706433", "127.1", "127.0.0.1."])
			expect(addressKind(new URL(`http://${host}/`).hostname), host).toBe("loopback");
	});
});

describe("isIPLiteral", () => {
	it("tells an address in a URL from a name", () => {
		expect(isIPLiteral("127.0.0.1")).toBe(true);
		expect(isIPLiteral("[::1]")).toBe(true);
		expect(isIPLiteral("[::ffff:7f00:1]")).toBe(true);
		expect(isIPLiteral("::1")).toBe(true);
		expect(isIPLiteral("api.example.com")).toBe(false);
		expect(isIPLiteral("localhost")).toBe(false);
		expect(isIPLiteral("example.com.")).toBe(false);
		expect(isIPLiteral("xn--pple-43d.com")).toBe(false);
	});
});

describe("mappedIPv4 and the capability of a URL", () => {
	it("reads an IPv4-mapped IPv6 address as the IPv4 address it reaches", () => {
		expect(mappedIPv4("[::ffff:a9fe:a9fe]")).toBe("169.254.169.254");
		expect(mappedIPv4("::ffff:127.0.0.1")).toBe("127.0.0.1");
		expect(mappedIPv4("::1")).toBeUndefined();
		expect(mappedIPv4("64:ff9b::7f00:1")).toBeUndefined();
		expect(mappedIPv4("example.com")).toBeUndefined();
	});

	it("names the host as a person can judge it: lower case, punycode, the IPv4 address of a mapped one, a port only when not the default", () => {
		expect(netHost("http://[::ffff:169.254.169.254]/latest")).toBe("169.254.169.254");
		expect(netHost("http://[::ffff:127.0.0.1]:8080/")).toBe("127.0.0.1:8080");
		expect(netHost("http://[::1]:8080/")).toBe("[::1]:8080");
		expect(netHost("http://0x7f.1/")).toBe("127.0.0.1");
		expect(netHost("https://API.Example.com:443/")).toBe("api.example.com");
		expect(netHost("http://api.example.com:443/")).toBe("api.example.com:443");
		expect(netHost("http://\u0430pple.com/")).toBe("xn--pple-43d.com");
		expect(netHost("http://user@127.0.0.1:9/")).toBe("127.0.0.1:9");
	});

	it("refuses the 'any' address in every spelling: it connects to this machine, which its name does not say", () => {
		for (const url of [
			"http://0.0.0.0:8080/",
			"http://0/",
			"http://[::]/",
			"http://[::ffff:0.0.0.0]/",
			"http://0x0/",
		])
			expect(() => netHost(url), url).toThrow(/is the "any" address, which connects to this machine/);
		expect(netHost("http://0.0.0.1/")).toBe("0.0.0.1");
	});
});
