// Brokered requests of several tools at once (issue 11's leftover): one tool with many requests held by a slow server
// leaves another tool's request to start at once, and pi's process still runs at most MAX_CONCURRENT requests (each
// may hold 10 MB of body). Made by makeRequest as pi's process makes it, against a local server that holds requests.
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_CONCURRENT, makeRequest, type NetOptions, PER_TOOL } from "../../src/run/isolated/parent/net-request.ts";
import type { NetRequest, NetResult } from "../../src/run/isolated/protocol.ts";

const resolve: NetOptions["resolve"] = async () => [{ address: "127.0.0.1", family: 4 }];
const sockets = new Set<Socket>();
/** Requests held, by the tool named in their path, until `letGo`. */
const held: { tool: string; answer: () => void }[] = [];
let most = 0;
let server: Server;
let port: number;

beforeAll(async () => {
	server = createServer((request, response) => {
		const [, kind, tool = ""] = (request.url ?? "").split("/");
		if (kind !== "hold") return void response.end(`fast ${tool}`);
		held.push({ tool, answer: () => response.end(`held ${tool}`) });
		most = Math.max(most, held.length);
	});
	server.on("connection", (socket: Socket) => sockets.add(socket));
	await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
	port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
	letGo();
	for (const socket of sockets) socket.destroy();
	await new Promise((closed) => server.close(closed));
});

function letGo(): void {
	for (const request of held.splice(0)) request.answer();
}

const get = (path: string): NetRequest => ({
	kind: "net",
	url: `http://127.0.0.1:${port}${path}`,
	method: "GET",
	headers: [],
});
const text = (result: NetResult) => Buffer.from(result.body ?? "", "base64").toString();
const heldBy = (tool: string) => held.filter((request) => request.tool === tool).length;

/** Until `check` holds (or `ms` have passed): whether it did. */
async function until(check: () => boolean, ms = 3_000): Promise<boolean> {
	const end = Date.now() + ms;
	while (!check() && Date.now() < end) await new Promise((wait) => setTimeout(wait, 20));
	return check();
}

describe("requests of several tools at once", () => {
	it("a tool with many requests held does not make another tool's request wait", async () => {
		const flood = Array.from({ length: 40 }, () =>
			makeRequest(get("/hold/flood"), () => true, { resolve, tool: "flood", timeoutMs: 20_000 }),
		);
		expect(await until(() => heldBy("flood") === PER_TOOL)).toBe(true);
		// The other tool's request is answered while every one of the flood's is still held or waiting.
		let answered: string | undefined;
		const other = makeRequest(get("/fast/other"), () => true, { resolve, tool: "other", timeoutMs: 20_000 }).then(
			(result) => (answered = text(result)),
		);
		expect(await until(() => answered !== undefined)).toBe(true);
		expect(answered).toBe("fast other");
		expect(heldBy("flood")).toBe(PER_TOOL);
		letGo();
		await other;
		// The flood's requests go on as slots free, never more at once than its share.
		while (held.length || (await until(() => held.length > 0, 300))) letGo();
		expect((await Promise.all(flood)).map(text)).toEqual(Array(40).fill("held flood"));
		expect(most).toBeLessThanOrEqual(PER_TOOL);
	});

	it("several tools together never run more than MAX_CONCURRENT requests, and each gets its turn", async () => {
		most = 0;
		const tools = ["a", "b", "c"];
		const all = tools.flatMap((tool) =>
			Array.from({ length: 10 }, () =>
				makeRequest(get(`/hold/${tool}`), () => true, { resolve, tool, timeoutMs: 20_000 }),
			),
		);
		expect(await until(() => held.length === MAX_CONCURRENT)).toBe(true);
		expect(heldBy("c")).toBe(0);
		// A slot given up goes to the tool that has none, though the first has requests waiting since before.
		const first = held.findIndex((request) => request.tool === "a");
		held.splice(first, 1)[0]!.answer();
		expect(await until(() => heldBy("c") === 1)).toBe(true);
		// Every tool has requests running; none more than its share.
		for (const tool of tools) {
			expect(heldBy(tool)).toBeGreaterThan(0);
			expect(heldBy(tool)).toBeLessThanOrEqual(PER_TOOL);
		}
		while (held.length || (await until(() => held.length > 0, 300))) letGo();
		expect((await Promise.all(all)).length).toBe(30);
		expect(most).toBe(MAX_CONCURRENT);
	});
});
