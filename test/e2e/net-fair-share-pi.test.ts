// Brokered requests of two tools at once through the real pi (issue 11's leftover): one tool floods a host that holds
// its requests until the other tool's request has been answered; with the requests shared between tools, the other's
// starts at once and both calls succeed. First come, first served, the other's request would wait behind the flood
// (which waits for it) until the flood's call timed out.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PiHarness, startPi } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const CLI = resolve(import.meta.dirname, "../../bin/agent-forge.mjs");
const OBJECT = { type: "object", properties: {} };

let server: Server;
let port = 0;
/** The flood's requests, held until the other tool's request has been answered. */
const held: ServerResponse[] = [];
let fastServed = false;

beforeAll(async () => {
	server = createServer((request, response) => {
		if (request.url === "/fast") {
			fastServed = true;
			response.end("fast");
			for (const waiting of held.splice(0)) waiting.end("held");
		} else if (fastServed) response.end("held");
		else held.push(response);
	});
	await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
	port = (server.address() as AddressInfo).port;
});
afterAll(() => {
	for (const waiting of held.splice(0)) waiting.end();
	server.closeAllConnections();
	return new Promise<void>((closed) => server.close(() => closed()));
});

const tool = (name: string, logic: string) => ({
	name: "forge_tool",
	args: { name, description: `The ${name} tool.`, parametersSchema: OBJECT, logic },
});

describe("requests of two tools at once (prompt, hosts granted)", () => {
	let pi: PiHarness | undefined;
	afterAll(async () => pi?.dispose());

	it("a tool with 40 requests held does not hold up another tool's one", async () => {
		pi = await startPi({ extensionPaths: [INDEX], env: { PI_FORGE_POLICY: "prompt", PI_FORGE_TIMEOUT_MS: "15000" } });
		const base = `http://127.0.0.1:${port}`;
		const flood = `const texts = await Promise.all(Array.from({ length: 40 }, () => fetch("${base}/hold").then((r) => r.text())));\nreturn texts.filter((t) => t === "held").length;`;
		// After the flood's requests are under way (1 s).
		const quick = `await new Promise((wait) => setTimeout(wait, 1000));\nconst started = Date.now();\nconst text = await (await fetch("${base}/fast")).text();\nreturn text + " in " + (Date.now() - started < 5000 ? "under 5 s" : "over 5 s");`;
		const grant = (name: string) => `${process.execPath} ${CLI} grant ${name} net:127.0.0.1:${port}`;
		const run = await pi.run("fetch both", [
			[tool("flood", flood), tool("quick", quick)],
			[{ name: "bash", args: { command: `${grant("flood")} && ${grant("quick")}` } }],
			[
				{ name: "use_forge_tool", args: { name: "flood", args: {} } },
				{ name: "use_forge_tool", args: { name: "quick", args: {} } },
			],
			{ text: "done" },
		]);
		const uses = run.toolEvents.filter((event) => event.toolName === "use_forge_tool");
		expect(uses).toHaveLength(2);
		const of = (name: string) => uses.find((event) => (event.args as { name?: string }).name === name);
		const floodResult = of("flood");
		const quickResult = of("quick");
		expect(quickResult!.isError, quickResult!.text).toBe(false);
		expect(quickResult!.text).toBe("fast in under 5 s");
		expect(floodResult!.isError, floodResult!.text).toBe(false);
		expect(floodResult!.text).toBe("40");
	});
});
