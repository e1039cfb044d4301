// The brokered network checked as an attacker would use it: a granted host name whose DNS answers with a loopback,
// private or metadata address (DNS rebinding) is refused, saying why and which grant reaches it; the name is looked
// up once and the connection goes to the address that was checked; an IP address or localhost in the URL is what the
// person approved. Through the broker and its real policy gate, with a fake resolver and local servers.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import { AuditLog } from "../../src/policy/audit-log.ts";
import { createPolicyGate } from "../../src/policy/gate.ts";
import { GrantsStore } from "../../src/policy/grants-store.ts";
import { Broker, type BrokerCall } from "../../src/run/isolated/parent/broker.ts";
import { makeRequest } from "../../src/run/isolated/parent/net-request.ts";
import type { ResolvedAddress } from "../../src/run/isolated/parent/net-target.ts";
import { nodeOperations } from "../../src/run/isolated/parent/operations.ts";

interface Seen {
	server: string;
	method?: string;
	url?: string;
	headers: IncomingHttpHeaders;
	body: string;
}
let seen: Seen[] = [];
const servers: Server[] = [];
let port: number;

/** A server on `address`:`port` that records what reaches it and answers with its own name. */
async function listen(address: string, name: string, at = 0): Promise<number> {
	const server = createServer((request, response) => {
		let body = "";
		request.on("data", (chunk) => (body += chunk));
		request.on("end", () => {
			seen.push({ server: name, method: request.method, url: request.url, headers: request.headers, body });
			response.end(`${name} ${request.url}`);
		});
	});
	servers.push(server);
	await new Promise<void>((listening) => server.listen(at, address, listening));
	return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
	port = await listen("127.0.0.1", "loopback");
	// The same port on another loopback address: where a connection lands tells which lookup answer it used.
	await listen("127.0.0.2", "checked", port);
});
afterAll(async () => {
	await Promise.all(servers.map((server) => new Promise((closed) => server.close(closed))));
});

let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "forge-net-"));
	seen = [];
});
afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

/** A resolver that answers from a script, one answer per lookup (the last one repeats), and counts the lookups. */
function scripted(...answers: string[][]) {
	const lookups: string[] = [];
	const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
		lookups.push(hostname);
		const answer = answers[Math.min(lookups.length - 1, answers.length - 1)] ?? [];
		return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
	};
	return { resolve, lookups };
}

/** A broker with the real policy gate (prompt, a person allowing every request) over Node's operations. */
async function brokerWith(resolve: (hostname: string) => Promise<ResolvedAddress[]>) {
	const { config } = readConfig(dir, { PI_FORGE_POLICY: "prompt" });
	const grants = new GrantsStore(join(dir, "agent", "grants.json"));
	await grants.load();
	const audit = new AuditLog(join(dir, "audit.jsonl"));
	const gate = createPolicyGate({ config, grants, audit, runtimeDir: join(dir, "agent", "runtime") });
	const asked: string[] = [];
	const call: BrokerCall = {
		tool: "probe",
		hash: "h1",
		host: {
			pi: undefined,
			hasUI: true,
			notify: () => undefined,
			select: async (title) => {
				asked.push(title.split("\n")[0] ?? "");
				return "Allow once";
			},
		},
		pause: () => () => undefined,
		children: new Set(),
		alive: () => true,
	};
	const broker = new Broker({
		gate,
		projectDir: dir,
		tempDir: tmpdir(),
		env: {},
		commandEnv: {},
		operations: { ...nodeOperations, fetch: (request, alive) => makeRequest(request, alive, { resolve }) },
	});
	const get = (url: string, headers: [string, string][] = []) =>
		broker.handle({ kind: "net", url, method: "GET", headers }, call);
	return { get, asked };
}

/** The first line of the question a person is asked about connecting to `host`. */
const asking = (host: string) => `Forged tool 'probe' wants to connect to ${host}.`;
const bodyOf = (value: unknown) => Buffer.from((value as { body: string }).body, "base64").toString();

describe("a grant of a host name reaches public addresses only", () => {
	it.each([
		["127.0.0.1", "a loopback address", "127.0.0.1"],
		["10.1.2.3", "a private address", "10.1.2.3"],
		["192.168.0.10", "a private address", "192.168.0.10"],
		["100.64.0.1", "a shared (carrier-grade NAT) address", "100.64.0.1"],
		["169.254.169.254", "a link-local address (cloud metadata services live there)", "169.254.169.254"],
		["0.0.0.0", "the unspecified address", "0.0.0.0"],
		["::1", "a loopback address", "[::1]"],
		["fd00::5", "a private address", "[fd00::5]"],
		["fe80::1", "a link-local address (cloud metadata services live there)", "[fe80::1]"],
		["::ffff:127.0.0.1", "a loopback address", "127.0.0.1"],
		["::ffff:169.254.169.254", "a link-local address (cloud metadata services live there)", "169.254.169.254"],
		["224.0.0.1", "a multicast address", "224.0.0.1"],
	])("a name resolving to %s is refused, naming the grant that reaches it", async (address, kind, grantHost) => {
		const { resolve } = scripted([address]);
		const { get, asked } = await brokerWith(resolve);
		const reply = await get(`http://api.example.com:${port}/secret`);
		expect(asked).toEqual([asking(`api.example.com:${port}`)]);
		expect(reply.ok).toBe(false);
		const message = reply.ok ? "" : reply.error.message;
		expect(message.split("\n")[0]).toBe(
			`fetch: api.example.com resolved to ${address}, ${kind}; a grant of a host name reaches only public addresses — ask for net:${grantHost}:${port} to reach it`,
		);
		expect(JSON.parse(message.split("\n")[1] ?? "{}")).toMatchObject({
			code: "ERR_FORGE_NOT_PUBLIC",
			address,
			hostname: "api.example.com",
		});
		expect(seen).toEqual([]);
	});

	it("one private address among public ones is enough to refuse", async () => {
		const { resolve } = scripted(["93.184.216.34", "2606:2800:220:1::1", "127.0.0.1"]);
		const { get } = await brokerWith(resolve);
		const reply = await get(`http://api.example.com:${port}/`);
		expect(!reply.ok && reply.error.message).toContain("resolved to 127.0.0.1, a loopback address");
		expect(seen).toEqual([]);
	});

	it("rebinding: the name is looked up once; a second answer (now loopback) is never asked for nor used", async () => {
		// The first answer is public; every later one is the local server.
		const { resolve, lookups } = scripted(["93.184.216.34"], ["127.0.0.1"]);
		const reply = await makeRequest(
			{ kind: "net", url: `http://rebind.example:${port}/secret`, method: "GET", headers: [] },
			() => true,
			{ resolve, timeoutMs: 1500 },
		).then(
			() => "answered",
			(error: Error) => error.message,
		);
		expect(lookups).toEqual(["rebind.example"]);
		expect(seen).toEqual([]);
		// Whatever the network does with 93.184.216.34 (refused, no route, a timeout), the local server never answered,
		// and a connection that failed failed at the checked address.
		expect(reply).not.toBe("answered");
		const fields = JSON.parse(reply.split("\n")[1] ?? "{}") as { address?: string };
		if (fields.address !== undefined) expect(fields.address).toBe("93.184.216.34");
	});

	it("the connection goes to the checked address, not to a fresh lookup of the name", async () => {
		// The system resolves localhost to 127.0.0.1; the checked answer says 127.0.0.2. The request lands there.
		// (A port of its own: no connection kept alive from another test can be reused.)
		const own = await listen("127.0.0.1", "loopback");
		await listen("127.0.0.2", "checked", own);
		const { resolve, lookups } = scripted(["127.0.0.2"], ["127.0.0.1"]);
		const { get } = await brokerWith(resolve);
		for (const path of ["/pinned", "/again"]) {
			const reply = await get(`http://localhost:${own}${path}`);
			expect(reply.ok, JSON.stringify(reply)).toBe(true);
			expect(bodyOf(reply.ok && reply.value)).toBe(`checked ${path}`);
		}
		// Each request looks its host up once and checks it; the second may reuse the first's connection.
		expect(lookups).toEqual(["localhost", "localhost"]);
		expect(seen.map((s) => s.server)).toEqual(["checked", "checked"]);
	});

	it("an IP address in the URL is what was approved: connected to as it is, without a lookup", async () => {
		const { resolve, lookups } = scripted(["10.0.0.1"]);
		const { get, asked } = await brokerWith(resolve);
		const reply = await get(`http://127.0.0.1:${port}/direct`);
		expect(bodyOf(reply.ok && reply.value)).toBe("loopback /direct");
		expect(asked).toEqual([asking(`127.0.0.1:${port}`)]);
		expect(lookups).toEqual([]);
	});

	it("odd forms of an address are the address they stand for, asked for and approved as such", async () => {
		const { resolve, lookups } = scripted(["10.0.0.1"]);
		const { get, asked } = await brokerWith(resolve);
		for (const host of ["0x7f.1", "0177.0.0.1", "2130706433", "127.1", "[::ffff:127.0.0.1]"]) {
			const reply = await get(`http://${host}:${port}/odd`);
			expect(reply.ok, `${host}: ${JSON.stringify(reply)}`).toBe(true);
		}
		// An IPv4-mapped IPv6 address is asked for as the IPv4 address it reaches, which is what a person can judge.
		expect(asked).toEqual(new Array(5).fill(asking(`127.0.0.1:${port}`)));
		expect(lookups).toEqual([]);
	});

	it("localhost in the URL is approved as localhost, whatever the letters' case or a trailing dot", async () => {
		const { resolve } = scripted(["127.0.0.1"]);
		const { get, asked } = await brokerWith(resolve);
		for (const host of ["LocalHost", "localhost.", "LOCALHOST."]) {
			const reply = await get(`http://${host}:${port}/a`);
			expect(bodyOf(reply.ok && reply.value), host).toBe("loopback /a");
		}
		expect(asked).toEqual([asking(`localhost:${port}`), asking(`localhost.:${port}`), asking(`localhost.:${port}`)]);
	});

	it("a name is asked for as the URL parser writes it: lower case, an IDN as punycode, a trailing dot kept", async () => {
		const { resolve, lookups } = scripted(["127.0.0.1"]);
		const { get, asked } = await brokerWith(resolve);
		for (const host of ["API.Example.COM", "\u0430pple.com", "api.example.com."]) {
			const reply = await get(`http://${host}:${port}/`);
			expect(!reply.ok && reply.error.message).toContain("a loopback address");
		}
		expect(asked).toEqual([
			asking(`api.example.com:${port}`),
			asking(`xn--pple-43d.com:${port}`),
			asking(`api.example.com.:${port}`),
		]);
		expect(lookups).toEqual(["api.example.com", "xn--pple-43d.com", "api.example.com."]);
		expect(seen).toEqual([]);
	});

	it("user info in the URL is refused plainly; the host after the @ is what would be asked for", async () => {
		const { resolve } = scripted(["127.0.0.1"]);
		const { get, asked } = await brokerWith(resolve);
		const reply = await get(`http://api.example.com@127.0.0.1:${port}/`);
		expect(asked).toEqual([asking(`127.0.0.1:${port}`)]);
		expect(!reply.ok && reply.error.message).toBe(
			"fetch: a URL with a user name or password in it cannot be fetched",
		);
		expect(seen).toEqual([]);
	});
});
