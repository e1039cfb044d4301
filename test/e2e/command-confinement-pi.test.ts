// Granted commands confined further, through the real pi (issue 11's leftovers): a command sees only its own temp
// dir of the shared ones and only what programs in ~/.local/bin run from; a fork bomb and a memory hog fail in the
// command while pi goes on answering; protected names a command made below the top of the project are removed and the
// tool is told; and the placeholders a pi killed hard left behind are gone after the next start.
import type { ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runPiJson } from "../helpers/pi-cli.ts";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";

const REPO = resolve(import.meta.dirname, "../..");
const INDEX = join(REPO, "index.ts");
const NO_PARAMS = { type: "object", properties: {} };
const forgeCall = (name: string, logic: string) => ({
	name: "forge_tool",
	args: { name, description: `The ${name} tool.`, parametersSchema: NO_PARAMS, logic },
});
const useCall = (name: string) => ({ name: "use_forge_tool", args: { name, args: {} } });

let pi: PiHarness | undefined;
const made: string[] = [];
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function dir(prefix: string): Promise<string> {
	const path = await makeTempDir(prefix);
	made.push(path);
	return path;
}

/** A tool that runs each shell line and returns what it printed, or "failed: <message>". */
const runner = (lines: string[], env = "process.env") => `import { execSync } from "node:child_process";
const out = [];
for (const line of ${JSON.stringify(lines)}) {
  try { out.push(execSync(line, { encoding: "utf8", stdio: "pipe", env: ${env} }).trim()); }
  catch (e) { out.push("failed: " + String(e.message).split("\\n").slice(0, 2).join(" ")); }
}
return out.join("\\n");`;

describe("what a granted command sees (permissive)", () => {
	it("of the shared temp dir only its own TMPDIR; of ~/.local only what its programs run from", async () => {
		const cwd = await dir("forge-cmd-e2e");
		const other = await dir("someone-elses");
		writeFileSync(join(other, "session.txt"), "TEMP-SECRET");
		const home = await dir("forge-cmd-home");
		const local = join(home, ".local");
		for (const sub of ["bin", "lib/greet", "share/keyrings"]) mkdirSync(join(local, sub), { recursive: true });
		writeFileSync(join(local, "lib", "greet", "words.sh"), "WORDS='hello from ~/.local/lib'\n");
		writeFileSync(join(local, "bin", "greet"), `#!/bin/sh\n. ${local}/lib/greet/words.sh\necho "$WORDS"\n`);
		chmodSync(join(local, "bin", "greet"), 0o755);
		writeFileSync(join(local, "share", "keyrings", "login.keyring"), "KEYRING-SECRET");
		pi = await startPi({ extensionPaths: [INDEX], cwd, env: { PI_FORGE_POLICY: "permissive", HOME: home } });
		const lines = [
			`cat ${other}/session.txt`,
			'echo mine > "$TMPDIR/own.txt" && cat "$TMPDIR/own.txt"',
			"greet",
			`cat ${local}/share/keyrings/login.keyring`,
		];
		const run = await pi.run("look around", [
			[forgeCall("looker", runner(lines, `{ ...process.env, PATH: "${local}/bin:" + process.env.PATH }`))],
			[useCall("looker")],
			{ text: "done" },
		]);
		const result = run.toolEvents.find((event) => event.toolName === "use_forge_tool");
		expect(result?.isError).toBe(false);
		const [secret, own, greet, keyring] = result!.text.split("\n");
		expect(secret).toMatch(/^failed: .*No such file or directory/);
		expect(own).toBe("mine");
		expect(greet).toBe("hello from ~/.local/lib");
		expect(keyring).toMatch(/^failed: .*No such file or directory/);
		expect(result!.text).not.toContain("SECRET");
	});
});

describe("limits and protected names (permissive)", () => {
	it("a fork bomb and a memory hog fail in the command, pi answers the next call at once; made names are undone", async () => {
		const cwd = await dir("forge-cmd-limits");
		pi = await startPi({
			extensionPaths: [INDEX],
			cwd,
			env: { PI_FORGE_POLICY: "permissive", PI_FORGE_TIMEOUT_MS: "60000" },
		});
		const bomb = runner([
			'i=0; while [ $i -lt 3000 ]; do sleep 30 & i=$((i+1)); echo $i > "$TMPDIR/count"; done; wait',
			'cat "$TMPDIR/count"',
			// 12 GB asked for (not touched, so no memory is used where nothing refuses it).
			`node -e 'const kept = []; try { for (let i = 0; i < 12; i++) kept.push(Buffer.allocUnsafeSlow(1e9)); console.log("allocated") } catch (e) { console.log(e.message) }'`,
		]);
		const maker = runner([
			"git init -q sub && echo inited",
			"mkdir -p docs && echo x > docs/AGENTS.md && echo y > docs/guide.md && echo written",
			"mkdir -p a/.pi/extensions && echo 'export default () => {}' > a/.pi/extensions/x.ts && echo placed",
		]);
		let bombEnded = 0;
		let echoed = 0;
		const run = await pi.run("try limits", [
			[forgeCall("bomb", bomb), forgeCall("maker", maker), forgeCall("echo", 'return "still here";')],
			[useCall("bomb")],
			() => {
				bombEnded = performance.now();
				return [useCall("echo")];
			},
			() => {
				echoed = performance.now();
				return [useCall("maker")];
			},
			{ text: "done" },
		]);
		const uses = run.toolEvents.filter((event) => event.toolName === "use_forge_tool");
		expect(uses).toHaveLength(3);
		const [bombResult, echoResult, makerResult] = uses;
		const [bombed, count, hog] = bombResult!.text.split("\n");
		expect(bombed).toMatch(/^failed: /);
		expect(Number(count)).toBeLessThan(3000);
		expect(hog).toBe("Array buffer allocation failed");
		expect(echoResult!.text).toContain("still here");
		expect(echoed - bombEnded).toBeLessThan(5000);
		const [inited, written, placed] = makerResult!.text.split("\n");
		expect(inited).toContain(`${join(cwd, "sub", ".git")}, which no forged tool may write`);
		expect(inited).toContain("removed");
		expect(written).toContain(join(cwd, "docs", "AGENTS.md"));
		expect(placed).toContain(join(cwd, "a", ".pi"));
		for (const path of ["sub/.git", "docs/AGENTS.md", "a/.pi"]) expect(existsSync(join(cwd, path)), path).toBe(false);
		expect(readFileSync(join(cwd, "docs", "guide.md"), "utf8")).toBe("y\n");
	});
});

describe("a pi killed hard while a command runs", () => {
	it("leaves placeholders that the next start removes", async () => {
		const cwd = await dir("forge-cmd-killed");
		const agentDir = await dir("forge-cmd-killed-agent");
		const script = [
			{
				calls: [
					forgeCall(
						"slow",
						'import { execSync } from "node:child_process";\nexecSync("sleep 60");\nreturn "slept";',
					),
				],
			},
			{ calls: [useCall("slow")] },
			{ text: "done" },
		];
		let pi: ChildProcess | undefined;
		const killed = runPiJson({
			cwd,
			agentDir,
			script,
			prompts: ["go"],
			env: { PI_FORGE_POLICY: "permissive", PI_FORGE_TIMEOUT_MS: "90000" },
			onSpawn: (child) => (pi = child),
		});
		// The placeholders appear in the project when the command starts.
		for (let i = 0; i < 600 && !existsSync(join(cwd, ".git")); i++) await new Promise((r) => setTimeout(r, 50));
		expect(existsSync(join(cwd, ".git")), "the command started").toBe(true);
		pi?.kill("SIGKILL");
		expect((await killed).code).toBe(null);
		const left = readdirSync(cwd).filter((name) => name !== ".pi");
		expect(left).toEqual(expect.arrayContaining([".git", "AGENTS.md", ".claude"]));
		for (const name of left) expect(readdirSync(join(cwd, name)), name).toEqual([]);
		const next = await runPiJson({ cwd, agentDir, script: [{ text: "hello" }], prompts: ["hi"], timeoutMs: 60_000 });
		expect(next.code).toBe(0);
		expect(readdirSync(cwd).filter((name) => name !== ".pi")).toEqual([]);
	});
});
