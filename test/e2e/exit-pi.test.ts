// pi exits when its run is over, whatever the forge did in it: the checker that runs a model's regular expressions
// and bounded schema checks off pi's main thread never keeps pi's process alive (it did, once it had run: a
// parameter named `pattern` or a test with `matches` was enough to leave `pi -p` hanging after its answer).
import { describe, expect, it } from "vitest";
import { runPiJson } from "../helpers/pi-cli.ts";
import { makeTempDir } from "../helpers/pi-harness.ts";

const forge = (name: string, properties: Record<string, unknown>, tests: unknown[] = []) => ({
	calls: [
		{
			name: "forge_tool",
			args: {
				name,
				description: `The ${name} tool.`,
				parametersSchema: { type: "object", properties },
				logic: "return 'ran';",
				tests,
			},
		},
	],
});

describe("pi's process ends with its run", () => {
	it("after a call of a tool with a parameter named pattern, and a forge with a matches test", async () => {
		const started = Date.now();
		const run = await runPiJson({
			cwd: await makeTempDir("forge-exit"),
			prompts: ["forge and use"],
			script: [
				forge("pattern-tool", { pattern: { type: "string" } }),
				{ calls: [{ name: "use_forge_tool", args: { name: "pattern-tool", args: {} } }] },
				forge("matcher", { text: { type: "string" } }, [{ args: { text: "x" }, matches: "^ran$" }]),
				{ text: "all done" },
			],
			timeoutMs: 45_000,
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.ends.map((end) => end.isError)).toEqual([false, false, false]);
		expect(Date.now() - started).toBeLessThan(60_000);
	});
});
