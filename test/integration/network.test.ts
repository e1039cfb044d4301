// The network under each policy: under strict and prompt a tool's `fetch` is brokered, each host a capability
// (`net:<host>`) decided in pi's process, a person asked where one must be; under permissive it fetches itself.
// Redirects are not followed into other hosts; WebSocket is not there when the network is brokered.

import { rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ForgeError, Result } from "../../src/contract/forge-error.ts";
import type { RunHost } from "../../src/run/runner.ts";
import type { UseSuccess } from "../../src/toolbox/toolbox.ts";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host as noUI, toolRequest } from "../helpers/toolbox-fixture.ts";

const URL_SCHEMA = {
	type: "object",
	properties: { url: { type: "string" }, method: { type: "string" } },
	required: ["url"],
};
const FETCHER =
	'const response = await fetch(params.url, params.method === "POST" ? { method: "POST", headers: { "x-probe": "yes" }, body: JSON.stringify({ n: 1 }) } : {});\nreturn `${response.status} ${await response.text()}`;';

let server: Server;
let port: number;
let box: IsolatedBox | undefined;

beforeAll(async () => {
	server = createServer((request, response) => {
		if (request.url === "/redirect") {
			response.writeHead(302, { location: `http://localhost:${port}/elsewhere` });
			response.end();
			return;
		}
		let body = "";
		request.on("data", (chunk) => (body += chunk));
		request.on("end", () => {
			response.writeHead(200, { "content-type": "text/plain" });
			response.end(`${request.method} ${request.url} ${request.headers["x-probe"] ?? "-"} ${body}`);
		});
	});
	await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
	port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));
afterEach(async () => {
	await box?.toolbox.close();
	if (box) rmSync(box.cwd, { recursive: true, force: true });
	box = undefined;
});

async function fetcher(policy: string): Promise<IsolatedBox> {
	box = await isolatedToolbox({ PI_FORGE_POLICY: policy, PI_FORGE_TIMEOUT_MS: "20000" });
	const forged = await box.toolbox.forge(toolRequest("fetcher", FETCHER, { parametersSchema: URL_SCHEMA }), new Map());
	expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
	return box;
}

function failure(result: Result<unknown>): ForgeError {
	if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.value).slice(0, 300)}`);
	return result.error;
}
function text(result: Result<UseSuccess>): string {
	if (!result.ok) throw new Error(`${result.error.phase}: ${result.error.message}`);
	return result.value.content.map((block) => ("text" in block ? block.text : "")).join("");
}
function answering(...answers: string[]): { host: RunHost; titles: string[] } {
	const titles: string[] = [];
	return {
		titles,
		host: {
			pi: {},
			hasUI: true,
			notify() {},
			select: async (title) => {
				titles.push(title);
				return answers.length > 1 ? answers.shift()! : answers[0];
			},
		},
	};
}

describe("under prompt", () => {
	it("without a UI the request is refused, naming the exact grant for that host and port", async () => {
		const { toolbox } = await fetcher("prompt");
		const error = failure(await toolbox.use("fetcher", { url: `http://127.0.0.1:${port}/data` }, { host: noUI }));
		expect(error.phase).toBe("permission");
		expect(error.message).toContain(`'fetcher' may not connect to 127.0.0.1:${port}`);
		expect(error.details.grants).toContain(`agent-forge grant fetcher net:127.0.0.1:${port}`);
	});

	it("a person allows it once: the request is made by pi's process, method, headers and body included", async () => {
		const { toolbox } = await fetcher("prompt");
		const { host, titles } = answering("Allow once");
		expect(
			text(await toolbox.use("fetcher", { url: `http://127.0.0.1:${port}/post`, method: "POST" }, { host })),
		).toBe('200 POST /post yes {"n":1}');
		expect(titles[0]).toContain(`connect to 127.0.0.1:${port}`);
	});

	it("'always' holds for that host only: another host is asked again", async () => {
		const { toolbox } = await fetcher("prompt");
		const always = answering("Always allow for this tool");
		expect(text(await toolbox.use("fetcher", { url: `http://127.0.0.1:${port}/a` }, { host: always.host }))).toBe(
			"200 GET /a - ",
		);
		expect(text(await toolbox.use("fetcher", { url: `http://127.0.0.1:${port}/b` }, { host: noUI }))).toBe(
			"200 GET /b - ",
		);
		const error = failure(await toolbox.use("fetcher", { url: `http://localhost:${port}/c` }, { host: noUI }));
		expect(error.message).toContain(`may not connect to localhost:${port}`);
	});

	it("a request that fails in pi's process fails in the tool as fetch fails: a TypeError whose cause has the code", async () => {
		box = await isolatedToolbox({ PI_FORGE_POLICY: "prompt" });
		const closed = createServer();
		await new Promise<void>((listening) => closed.listen(0, "127.0.0.1", listening));
		const closedPort = (closed.address() as AddressInfo).port;
		await new Promise((done) => closed.close(done));
		const forged = await box.toolbox.forge(
			toolRequest(
				"prober",
				'return await fetch(params.url).then(() => "reached", (e) => `${e.name}: ${e.message} / ${e.cause?.code}`);',
				{ parametersSchema: URL_SCHEMA },
			),
			new Map(),
		);
		expect(forged.ok).toBe(true);
		const { host } = answering("Allow once");
		expect(text(await box.toolbox.use("prober", { url: `http://127.0.0.1:${closedPort}/` }, { host }))).toBe(
			"TypeError: fetch failed / ECONNREFUSED",
		);
	});

	it("a redirect is handed back, not followed to the host it names", async () => {
		const { toolbox } = await fetcher("prompt");
		const { host } = answering("Always allow for this tool");
		expect(text(await toolbox.use("fetcher", { url: `http://127.0.0.1:${port}/redirect` }, { host }))).toBe("302 ");
	});

	it("WebSocket and EventSource are not there; fetch of another scheme is refused plainly", async () => {
		box = await isolatedToolbox({ PI_FORGE_POLICY: "prompt" });
		const forged = await box.toolbox.forge(
			toolRequest(
				"probe",
				'return [typeof WebSocket, typeof EventSource, typeof fetch, await fetch("file:///etc/hostname").then(() => "read", (e) => e.message)].join(" ");',
				{ parametersSchema: { type: "object", properties: {} } },
			),
			new Map(),
		);
		expect(forged.ok).toBe(true);
		expect(text(await box.toolbox.use("probe", {}, { host: noUI }))).toBe(
			"undefined undefined function fetch: only http: and https: URLs can be fetched by a forged tool (file:)",
		);
	});
});

describe("under strict and permissive", () => {
	it("strict never grants a host", async () => {
		const { toolbox } = await fetcher("strict");
		const { host, titles } = answering("Always allow for this tool");
		const error = failure(await toolbox.use("fetcher", { url: `http://127.0.0.1:${port}/x` }, { host }));
		expect(error.message).toContain(`may not connect to 127.0.0.1:${port}: strict policy never grants`);
		expect(titles).toEqual([]);
	});

	it("permissive fetches directly", async () => {
		const { toolbox } = await fetcher("permissive");
		expect(text(await toolbox.use("fetcher", { url: `http://127.0.0.1:${port}/direct` }, { host: noUI }))).toBe(
			"200 GET /direct - ",
		);
	});
});
