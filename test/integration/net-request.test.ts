// A brokered request against servers that misbehave, and with requests a tool shapes to get around its grant: a Host
// header naming another host, headers that change the connection, a proxy from the environment, huge and slow
// answers, compressed bodies and bombs, TLS. Made by makeRequest as pi's process makes it, against local servers.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import { createRequire } from "node:module";
import { type AddressInfo, createServer as createTcpServer, type Socket, type Server as TcpServer } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeRequest, type NetOptions } from "../../src/run/isolated/parent/net-request.ts";
import type { NetRequest, NetResult } from "../../src/run/isolated/protocol.ts";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "net");
/** The pi whose undici sets fetch's dispatcher here: the current line needs Node 22, the legacy one runs on Node 20. */
const PI_PACKAGE = join(
	import.meta.dirname,
	"..",
	"..",
	"node_modules",
	Number(process.versions.node.split(".")[0]) >= 22 ? "@earendil-works" : "@mariozechner",
	"pi-coding-agent",
);
const loopback: NetOptions = { resolve: async () => [{ address: "127.0.0.1", family: 4 }] };
const servers: (Server | TcpServer)[] = [];
const sockets = new Set<Socket>();
let requests: { url?: string; headers: Record<string, unknown>; body: string }[] = [];

async function serve(server: Server | TcpServer): Promise<number> {
	servers.push(server);
	server.on("connection", (socket: Socket) => sockets.add(socket));
	await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
	return (server.address() as AddressInfo).port;
}

let port: number;
beforeAll(async () => {
	port = await serve(
		createServer((request, response) => {
			let body = "";
			request.on("data", (chunk) => (body += chunk));
			request.on("end", () => {
				requests.push({ url: request.url, headers: request.headers, body });
				if (request.url === "/redirect") {
					response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
					response.end();
				} else if (request.url === "/gzip") {
					response.writeHead(200, { "content-encoding": "gzip" });
					response.end(gzipSync("unpacked text"));
				} else if (request.url === "/bomb") {
					response.writeHead(200, { "content-encoding": "gzip" });
					response.end(gzipSync(Buffer.alloc(11 * 1024 * 1024)));
				} else if (request.url === "/huge-headers") {
					response.writeHead(200, { "x-filler": "a".repeat(100_000) });
					response.end("ok");
				} else if (request.url === "/dribble") {
					response.writeHead(200, { "content-length": "1000" });
					const timer = setInterval(() => response.write("x"), 100);
					response.on("close", () => clearInterval(timer));
				} else response.end(`${request.method} ${request.url}`);
			});
		}),
	);
});
afterAll(async () => {
	for (const socket of sockets) socket.destroy();
	await Promise.all(servers.map((server) => new Promise((closed) => server.close(closed))));
});
afterEach(() => {
	requests = [];
});

const net = (path: string, more: Partial<NetRequest> = {}): NetRequest => ({
	kind: "net",
	url: `http://localhost:${port}${path}`,
	method: "GET",
	headers: [],
	...more,
});
const text = (result: NetResult) => Buffer.from(result.body ?? "", "base64").toString();
const failure = (work: Promise<unknown>) =>
	work.then(
		(value) => {
			throw new Error(`expected a failure, got ${JSON.stringify(value).slice(0, 200)}`);
		},
		(error: Error & { code?: string }) => ({ message: error.message, code: error.code }),
	);

describe("what a tool sends", () => {
	it("sends fetch's default headers, the tool's own, the Host the URL names and the body with its length", async () => {
		const result = await makeRequest(
			net("/post", {
				method: "POST",
				headers: [
					["x-probe", "yes"],
					["user-agent", "my-tool/1"],
					["content-length", "999"],
					["connection", "keep-alive"],
				],
				body: Buffer.from('{"n":1}').toString("base64"),
			}),
			() => true,
			loopback,
		);
		expect(text(result)).toBe("POST /post");
		const [seen] = requests;
		expect(seen?.body).toBe('{"n":1}');
		expect(seen?.headers).toMatchObject({
			host: `localhost:${port}`,
			"x-probe": "yes",
			"user-agent": "my-tool/1",
			accept: "*/*",
			"content-length": "7",
		});
	});

	it("a Host header naming another host is refused (the host granted is the URL's); the same host is fine", async () => {
		const refused = await failure(
			makeRequest(net("/h", { headers: [["Host", "169.254.169.254"]] }), () => true, loopback),
		);
		expect(refused).toEqual({
			code: "ERR_FORGE_UNSUPPORTED",
			message: `fetch: the Host header (169.254.169.254) names another host than the URL (localhost:${port}); a request goes to the host its URL names, which is the one granted`,
		});
		expect(requests).toEqual([]);
		const same = await makeRequest(net("/h", { headers: [["host", `LOCALHOST:${port}`]] }), () => true, loopback);
		expect(text(same)).toBe("GET /h");
	});

	it.each(["transfer-encoding", "upgrade", "expect", "te"])("the %s header is refused", async (name) => {
		const refused = await failure(makeRequest(net("/x", { headers: [[name, "chunked"]] }), () => true, loopback));
		expect(refused.message).toBe(`fetch: a forged tool's request cannot set the ${name} header`);
		expect(requests).toEqual([]);
	});

	it.each(["CONNECT", "TRACE", "track"])("the %s method is refused, as fetch refuses it", async (method) => {
		const refused = await failure(makeRequest(net("/x", { method }), () => true, loopback));
		expect(refused).toEqual({
			code: "ERR_FORGE_UNSUPPORTED",
			message: `fetch: the ${method.toUpperCase()} method cannot be used (fetch does not allow it)`,
		});
		expect(requests).toEqual([]);
	});

	it("request headers over 64 KiB are refused before anything is sent", async () => {
		const refused = await failure(
			makeRequest(net("/x", { headers: [["x-big", "a".repeat(70_000)]] }), () => true, loopback),
		);
		expect(refused.message).toBe("fetch: the request's headers are over 65536 bytes");
		expect(requests).toEqual([]);
	});

	it("a request body over 10 MB is refused before anything is sent", async () => {
		const body = Buffer.alloc(10 * 1024 * 1024 + 1).toString("base64");
		const refused = await failure(makeRequest(net("/x", { method: "POST", body }), () => true, loopback));
		expect(refused).toEqual({
			code: "ERR_FORGE_TOO_LARGE",
			message: "fetch: the request body is over 10485760 bytes",
		});
		expect(requests).toEqual([]);
	});

	it("a header value with a line break cannot smuggle a second request", async () => {
		const refused = await failure(
			makeRequest(net("/x", { headers: [["x-a", "1\r\nGET /smuggled HTTP/1.1"]] }), () => true, loopback),
		);
		expect(refused.message).toMatch(/^fetch failed\n/);
		expect(requests).toEqual([]);
	});

	it("does not go through a proxy from the environment that pi's own fetch uses", async () => {
		const proxied: string[] = [];
		const proxy = createServer((request, response) => {
			proxied.push(`${request.method} ${request.url}`);
			response.end("from the proxy");
		});
		// A proxy that tunnels (legacy pi's undici asks it to CONNECT): the tunnel is recorded and refused.
		proxy.on("connect", (request: { url?: string }, socket: Socket) => {
			proxied.push(`CONNECT ${request.url}`);
			socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
		});
		const proxyPort = await serve(proxy);
		// As pi does at start-up: an undici EnvHttpProxyAgent as the global dispatcher, HTTP_PROXY from the environment.
		const piRequire = createRequire(join(PI_PACKAGE, "package.json"));
		const undici = piRequire("undici") as typeof import("undici");
		const before = undici.getGlobalDispatcher();
		const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
		process.env.HTTP_PROXY = `http://127.0.0.1:${proxyPort}`;
		process.env.NO_PROXY = "";
		undici.setGlobalDispatcher(new undici.EnvHttpProxyAgent());
		try {
			// The test can fail: pi's fetch (undici's, as the current line installs it) does go through the proxy.
			await undici.fetch(`http://localhost:${port}/via-fetch`).catch(() => undefined);
			expect(proxied).toHaveLength(1);
			expect(proxied[0]).toContain(`localhost:${port}`);
			const result = await makeRequest(net("/direct"), () => true, loopback);
			expect(text(result)).toBe("GET /direct");
			expect(proxied).toHaveLength(1);
		} finally {
			undici.setGlobalDispatcher(before);
			for (const [name, value] of Object.entries(saved))
				if (value === undefined) delete process.env[name];
				else process.env[name] = value;
		}
	});
});

describe("what a server answers", () => {
	it("a redirect comes back as it is, not followed (to the metadata address it names, here)", async () => {
		const result = await makeRequest(net("/redirect"), () => true, loopback);
		expect(result.status).toBe(302);
		expect(result.headers).toContainEqual(["location", "http://169.254.169.254/latest/meta-data/"]);
		expect(requests.map((r) => r.url)).toEqual(["/redirect"]);
	});

	it("a compressed body is decoded as fetch decodes it; a bomb stops at the body cap", async () => {
		expect(text(await makeRequest(net("/gzip"), () => true, loopback))).toBe("unpacked text");
		const bomb = await failure(makeRequest(net("/bomb"), () => true, loopback));
		expect(bomb).toEqual({ code: "ERR_FORGE_TOO_LARGE", message: "fetch: the response body is over 10485760 bytes" });
	});

	it("huge response headers fail the request as fetch fails", async () => {
		const refused = await failure(makeRequest(net("/huge-headers"), () => true, loopback));
		expect(refused.code).toBe("ERR_FORGE_FETCH_FAILED");
		expect(refused.message).toContain('"code":"HPE_HEADER_OVERFLOW"');
	});

	it("a body dribbled out slowly is bounded by the request's time", async () => {
		const started = Date.now();
		const slow = await failure(makeRequest(net("/dribble"), () => true, { ...loopback, timeoutMs: 800 }));
		expect(slow.message.split("\n")[0]).toBe(`fetch: localhost:${port} did not answer in full within 0.8 s`);
		expect(Date.now() - started).toBeLessThan(3000);
	});

	it("a server that never answers is given up on when the call ends", async () => {
		const silent = await serve(createTcpServer(() => undefined));
		let alive = true;
		setTimeout(() => (alive = false), 300);
		const started = Date.now();
		const over = await failure(
			makeRequest({ ...net("/"), url: `http://localhost:${silent}/` }, () => alive, loopback),
		);
		expect(over).toEqual({ code: "ERR_FORGE_CALL_OVER", message: "the call ended while its request was running" });
		expect(Date.now() - started).toBeLessThan(2000);
	});

	it("a name with no address fails as a lookup fails", async () => {
		const missing = await failure(makeRequest(net("/"), () => true, { resolve: async () => [] }));
		expect(missing.message).toBe(
			'fetch failed\n{"message":"getaddrinfo ENOTFOUND localhost","code":"ENOTFOUND","syscall":"getaddrinfo","hostname":"localhost"}',
		);
	});
});

describe("kept-alive connections", () => {
	it("a second request reuses the connection; one the server closed as it was reused is sent again if it may be", async () => {
		const perSocket = new Map<Socket, number>();
		let connections = 0;
		const closing = createServer((request, response) => {
			const count = (perSocket.get(request.socket) ?? 0) + 1;
			perSocket.set(request.socket, count);
			// The third request on a connection finds it closed, as when a server drops an idle connection.
			if (count === 3) request.socket.destroy();
			else response.end(`${request.method} ${count}`);
		});
		closing.on("connection", () => connections++);
		const closingPort = await serve(closing);
		const at = (path: string, method = "GET") => ({
			...net(path),
			method,
			url: `http://localhost:${closingPort}${path}`,
		});
		expect(text(await makeRequest(at("/1"), () => true, loopback))).toBe("GET 1");
		expect(text(await makeRequest(at("/2"), () => true, loopback))).toBe("GET 2");
		expect(connections).toBe(1);
		expect(text(await makeRequest(at("/3"), () => true, loopback))).toBe("GET 1");
		expect(connections).toBe(2);
		expect(text(await makeRequest(at("/4", "POST"), () => true, loopback))).toBe("POST 2");
		const reset = await failure(makeRequest(at("/5", "POST"), () => true, loopback));
		expect(reset.message).toContain('"code":"ECONNRESET"');
	});
});

describe("many requests at once", () => {
	it("pi's process runs at most 8 at a time; the others wait their turn, and a call that ends leaves the queue", async () => {
		let active = 0;
		let most = 0;
		const held: (() => void)[] = [];
		const busyPort = await serve(
			createServer((_request, response) => {
				active++;
				most = Math.max(most, active);
				held.push(() => {
					active--;
					response.end("done");
				});
			}),
		);
		const at = (path: string) => ({ ...net(path), url: `http://localhost:${busyPort}${path}` });
		const all = Array.from({ length: 20 }, (_, i) => makeRequest(at(`/${i}`), () => true, loopback));
		let alive = true;
		const waiting = failure(makeRequest(at("/late"), () => alive, loopback));
		await new Promise((settled) => setTimeout(settled, 300));
		expect(active).toBe(8);
		alive = false;
		expect(await waiting).toEqual({
			code: "ERR_FORGE_CALL_OVER",
			message: "the call ended while its request was running",
		});
		// Answer as they come: each answer lets one more in.
		const answering = setInterval(() => held.shift()?.(), 5);
		try {
			const results = await Promise.all(all);
			expect(results.map(text)).toEqual(new Array(20).fill("done"));
		} finally {
			clearInterval(answering);
		}
		expect(most).toBe(8);
	});
});

describe("TLS", () => {
	it("sends the URL's host name for SNI and verifies the certificate (a self-signed one is refused)", async () => {
		const names: string[] = [];
		const tlsPort = await serve(
			createTlsServer(
				{
					key: readFileSync(join(FIXTURES, "localhost-key.pem")),
					cert: readFileSync(join(FIXTURES, "localhost-cert.pem")),
					SNICallback: (name, done) => {
						names.push(name);
						done(null);
					},
				},
				(_request, response) => response.end("secret"),
			),
		);
		const refused = await failure(
			makeRequest({ ...net("/"), url: `https://localhost.:${tlsPort}/` }, () => true, loopback),
		);
		expect(refused.code).toBe("ERR_FORGE_FETCH_FAILED");
		expect(refused.message).toContain('"code":"DEPTH_ZERO_SELF_SIGNED_CERT"');
		expect(names).toEqual(["localhost"]);
	});
});
