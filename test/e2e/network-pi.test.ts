// The network through the real pi (both lines): under prompt a forged tool's fetch to a host is refused without a UI,
// naming the exact grant; the model runs it with pi's bash tool and the next call reaches the host, in the same
// session; another host is still refused. Under strict no grant is offered.
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FETCHER, helloServer } from "../helpers/http-fixture.ts";
import { type PiHarness, startPi } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const CLI = resolve(import.meta.dirname, "../../bin/agent-forge.mjs");
const fetcher = FETCHER;

const hello = helloServer();

describe("fetch from a forged tool", () => {
	let pi: PiHarness | undefined;
	afterAll(async () => pi?.dispose());

	it("prompt: refused with the grant for that host; granted as printed, the next call gets through; another host does not", async () => {
		pi = await startPi({ extensionPaths: [INDEX], env: { PI_FORGE_POLICY: "prompt" } });
		const url = `http://127.0.0.1:${hello.port}/data`;
		let printed = "";
		const run = await pi.run("fetch it", [
			[{ name: "forge_tool", args: fetcher }],
			[{ name: "use_forge_tool", args: { name: "fetcher", args: { url } } }],
			({ lastToolResults }) => {
				const lines = lastToolResults[0].text.split("\n");
				printed = lines[lines.findIndex((line) => line.startsWith("To grant it")) + 1]?.trim() ?? "";
				// agent-forge is not on the PATH here (as when pi installed the package): the line that says so is run as it is.
				const direct =
					lines
						.find((line) => line.trim().startsWith("without agent-forge on the PATH: "))
						?.trim()
						.slice("without agent-forge on the PATH: ".length) ?? "";
				return [{ name: "bash", args: { command: direct } }];
			},
			[{ name: "use_forge_tool", args: { name: "fetcher", args: { url } } }],
			[{ name: "use_forge_tool", args: { name: "fetcher", args: { url: `http://localhost:${hello.port}/other` } } }],
			{ text: "done" },
		]);
		const [forged, refused, granted, again, other] = run.toolEvents;
		expect(forged.isError, forged.text).toBe(false);
		expect(refused.isError).toBe(true);
		expect(refused.text).toContain(`'fetcher' may not connect to 127.0.0.1:${hello.port}`);
		expect(printed).toBe(`agent-forge grant fetcher net:127.0.0.1:${hello.port}`);
		expect(refused.text).toContain(
			`without agent-forge on the PATH: ${process.execPath} ${CLI} grant fetcher net:127.0.0.1:${hello.port}`,
		);
		expect(granted.isError, granted.text).toBe(false);
		expect(again.isError, again.text).toBe(false);
		expect(again.text).toBe("200 hello from /data");
		expect(other.isError).toBe(true);
		expect(other.text).toContain(`may not connect to localhost:${hello.port}`);
	});

	it("strict: refused, at the line of the fetch", async () => {
		await pi?.dispose();
		pi = await startPi({ extensionPaths: [INDEX], env: { PI_FORGE_POLICY: "strict" } });
		const run = await pi.run("fetch it", [
			[{ name: "forge_tool", args: fetcher }],
			[{ name: "use_forge_tool", args: { name: "fetcher", args: { url: `http://127.0.0.1:${hello.port}/x` } } }],
			{ text: "done" },
		]);
		expect(run.toolEvents[1].isError).toBe(true);
		expect(run.toolEvents[1].text).toContain("strict policy never grants");
		expect(run.toolEvents[1].text).toContain("at forge-fetcher.ts:22:18 (line 1 of the logic)");
	});
});
