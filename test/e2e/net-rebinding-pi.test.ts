// DNS rebinding through the real pi (both lines): a person grants a forged tool a host NAME, and that name resolves to
// a loopback or private address (here the machine's own host name, as /etc/hosts or the local DNS answer it). The
// tool's fetch is refused, saying which address it resolved to and which grant reaches it; granted as said, the
// address itself is reached. A Host header cannot make a granted address serve another host.
import { hostname } from "node:os";
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { addressKind, KIND_TEXT } from "../../src/run/isolated/parent/net-address.ts";
import { systemResolve } from "../../src/run/isolated/parent/operations.ts";
import { FETCHER, helloServer } from "../helpers/http-fixture.ts";
import { type PiHarness, startPi } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const fetcher = FETCHER;

/** A name this machine resolves to addresses that are none of them public: its own host name, or localhost's aliases. */
async function localName(): Promise<{ name: string; address: string }> {
	for (const name of [hostname(), "localhost.localdomain", "ip6-localhost"]) {
		const addresses = await systemResolve(name).catch(() => []);
		if (addresses.length > 0 && addresses.every(({ address }) => addressKind(address) !== "public"))
			return { name: name.toLowerCase(), address: addresses[0]!.address };
	}
	throw new Error(`this test needs a host name that resolves to a private address; ${hostname()} does not`);
}

const hello = helloServer();

describe("a granted host name that resolves to a private address", () => {
	let pi: PiHarness | undefined;
	afterAll(async () => pi?.dispose());

	it("is refused with the address and the grant that reaches it; a grant of 127.0.0.1:<port> works", async () => {
		const { name, address } = await localName();
		const kind = addressKind(address) as keyof typeof KIND_TEXT;
		pi = await startPi({ extensionPaths: [INDEX], env: { PI_FORGE_POLICY: "prompt" } });
		const byName = `http://${name}:${hello.port}/data`;
		let grantCommand = "";
		const run = await pi.run("fetch it", [
			[{ name: "forge_tool", args: fetcher }],
			[{ name: "use_forge_tool", args: { name: "fetcher", args: { url: byName } } }],
			({ lastToolResults }) => {
				// agent-forge is not on the PATH here: the line that says how to run it is run as it is.
				grantCommand =
					lastToolResults[0]?.text
						.split("\n")
						.find((line) => line.trim().startsWith("without agent-forge on the PATH: "))
						?.trim()
						.slice("without agent-forge on the PATH: ".length) ?? "";
				return [{ name: "bash", args: { command: grantCommand } }];
			},
			[{ name: "use_forge_tool", args: { name: "fetcher", args: { url: byName } } }],
			() => [{ name: "bash", args: { command: grantCommand.replace(/net:\S+$/, `net:127.0.0.1:${hello.port}`) } }],
			[{ name: "use_forge_tool", args: { name: "fetcher", args: { url: `http://127.0.0.1:${hello.port}/data` } } }],
			{ text: "done" },
		]);
		const [forged, asked, grantedName, rebound, grantedAddress, reached] = run.toolEvents;
		expect(forged?.isError, forged?.text).toBe(false);
		expect(asked?.isError).toBe(true);
		expect(asked?.text).toContain(`'fetcher' may not connect to ${name}:${hello.port}`);
		expect(grantCommand).toMatch(new RegExp(`grant fetcher net:${name.replace(/\./g, "\\.")}:${hello.port}$`));
		expect(grantedName?.isError, grantedName?.text).toBe(false);
		expect(rebound?.isError).toBe(true);
		const grantHost = address.includes(":") ? `[${address}]` : address;
		expect(rebound?.text).toContain(
			`fetch: ${name} resolved to ${address}, ${KIND_TEXT[kind]}; a grant of a host name reaches only public addresses — ask for net:${grantHost}:${hello.port} to reach it`,
		);
		expect(grantedAddress?.isError, grantedAddress?.text).toBe(false);
		expect(reached?.isError, reached?.text).toBe(false);
		expect(reached?.text).toBe("200 hello from /data");
	});

	it("a granted address cannot be made to serve another host by a Host header; the refusal says why", async () => {
		await pi?.dispose();
		pi = await startPi({ extensionPaths: [INDEX], env: { PI_FORGE_POLICY: "prompt" } });
		const fronting = {
			...fetcher,
			name: "fronting",
			logic: 'const response = await fetch(params.url, { headers: { host: "169.254.169.254" } });\nreturn `${response.status} ${await response.text()}`;',
		};
		const url = `http://127.0.0.1:${hello.port}/latest/meta-data/`;
		let grantCommand = "";
		const run = await pi.run("fetch it", [
			[{ name: "forge_tool", args: fronting }],
			[{ name: "use_forge_tool", args: { name: "fronting", args: { url } } }],
			({ lastToolResults }) => {
				grantCommand =
					lastToolResults[0]?.text
						.split("\n")
						.find((line) => line.trim().startsWith("without agent-forge on the PATH: "))
						?.trim()
						.slice("without agent-forge on the PATH: ".length) ?? "";
				return [{ name: "bash", args: { command: grantCommand } }];
			},
			[{ name: "use_forge_tool", args: { name: "fronting", args: { url } } }],
			{ text: "done" },
		]);
		const [forged, asked, granted, fronted] = run.toolEvents;
		expect(forged?.isError, forged?.text).toBe(false);
		expect(asked?.text).toContain(`'fronting' may not connect to 127.0.0.1:${hello.port}`);
		expect(granted?.isError, granted?.text).toBe(false);
		expect(fronted?.isError).toBe(true);
		expect(fronted?.text).toContain(
			`fetch: the Host header (169.254.169.254) names another host than the URL (127.0.0.1:${hello.port}); a request goes to the host its URL names, which is the one granted`,
		);
	});
});
