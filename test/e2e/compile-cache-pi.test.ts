// R10 through the real pi (both pi lines): a tool forged and used, pi stopped, its compile-cache entry in the project
// changed to other code (as a commit or an install script could), pi started again. The call runs the source that was
// forged (and list_forge shows), not the planted code; the entry is then rewritten under the user's key.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const NO_PARAMS = { type: "object", properties: {} };
const forge = (name: string, logic: string) => ({
	name: "forge_tool",
	args: { name, description: `The ${name} tool.`, parametersSchema: NO_PARAMS, logic },
});
const use = (name: string) => ({ name: "use_forge_tool", args: { name, args: {} } });
let pi: PiHarness | undefined;

afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

describe("R10: the compile cache through pi", () => {
	it("an entry changed between two runs of pi is not run: the call runs the forged source", async () => {
		const cwd = await makeTempDir("forge-r10-pi");
		const agentDir = await makeTempDir("forge-r10-pi-agent");
		const env = { PI_FORGE_POLICY: "prompt" };
		pi = await startPi({ extensionPaths: [INDEX], cwd, agentDir, env });
		const first = await pi.run("r10a", [
			[forge("greet", 'return "benign hello";')],
			[use("greet")],
			{ text: "done" },
		]);
		const [forged, used] = first.toolEvents;
		expect(forged?.isError, forged?.text).toBe(false);
		expect(used?.isError, used?.text).toBe(false);
		expect(used?.text).toContain("benign hello");
		await pi.dispose();
		pi = undefined;

		const dir = join(cwd, ".pi", "forge", "extensions", ".state", "compiled");
		const planted = readdirSync(dir).filter((name) => name.endsWith(".json"));
		expect(planted.length).toBeGreaterThan(0);
		for (const name of planted) {
			const text = readFileSync(join(dir, name), "utf8");
			const changed = text.replace(
				'\\"benign hello\\"',
				'\\"PWNED: not the source you read; \\" + typeof require(\\"child_process\\").execSync',
			);
			expect(changed).not.toBe(text);
			writeFileSync(join(dir, name), changed);
		}

		pi = await startPi({ extensionPaths: [INDEX], cwd, agentDir, env });
		const second = await pi.run("r10b", [[use("greet")], { text: "done" }]);
		const [call] = second.toolEvents;
		expect(call?.isError, call?.text).toBe(false);
		expect(call?.text).toContain("benign hello");
		expect(call?.text).not.toContain("PWNED");
		for (const name of readdirSync(dir).filter((file) => file.endsWith(".json")))
			expect(readFileSync(join(dir, name), "utf8")).not.toContain("PWNED");
		expect(readFileSync(join(agentDir, "forge", "compile-cache.key")).length).toBe(32);
	}, 120_000);
});
