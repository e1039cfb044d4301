// For the network tests: a forged tool that fetches a URL, and a local HTTP server answering `hello from <path>`.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

/** forge_tool's arguments for `fetcher`: fetch `url`, return the status and the text. */
export const FETCHER = {
	name: "fetcher",
	description: "Fetch a URL and return its status and text.",
	parametersSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
	logic: "const response = await fetch(params.url);\nreturn `${response.status} ${await response.text()}`;",
};

/** A server on 127.0.0.1 for the file's tests: started before them, closed after; `port` is set once it listens. */
export function helloServer(): { port: number } {
	const hello = { port: 0 };
	let server: Server;
	beforeAll(async () => {
		server = createServer((request, response) => response.end(`hello from ${request.url}`));
		await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
		hello.port = (server.address() as AddressInfo).port;
	});
	afterAll(() => new Promise<void>((closed) => server.close(() => closed())));
	return hello;
}
