// F11 (red team 4): a shell line is granted for good only when the scripts it runs are bound by their content. A line
// that reaches a script the word-splitting cannot follow (`cd scripts && sh build.sh`, `sh $PWD/…`) is asked for once
// at a time: no "Always" in the dialog, which says why, no grant command, and a grant kept anyway does not hold.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import { AuditLog } from "../../src/policy/audit-log.ts";
import { capabilityKey } from "../../src/policy/capability.ts";
import { decide } from "../../src/policy/decide.ts";
import { permissionTitle } from "../../src/policy/display.ts";
import { ASK_OPTIONS, createPolicyGate } from "../../src/policy/gate.ts";
import { GrantsStore } from "../../src/policy/grants-store.ts";
import type { BrokerCall } from "../../src/run/isolated/parent/broker.ts";
import { capabilitiesOf } from "../../src/run/isolated/parent/capabilities.ts";
import type { Capability } from "../../src/run/isolated/parent/capability.ts";
import { shellFiles } from "../../src/run/isolated/parent/program-content.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "forge-shell-binding-")));
const project = join(dir, "p");
mkdirSync(join(project, "scripts"), { recursive: true });
writeFileSync(join(project, "scripts", "build.sh"), "echo benign build\n");
writeFileSync(join(project, "scripts", "run"), "#!/bin/sh\necho run\n");
chmodSync(join(project, "scripts", "run"), 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const roots = [project];
const scripts = join(project, "scripts");

async function execOf(line: string, cwd = project): Promise<Capability> {
	const [exec] = await capabilitiesOf({ kind: "exec", file: line, args: [], shell: true, cwd } as never, {
		projectDir: project,
		commandEnv: { PATH: process.env.PATH ?? "" },
		realpath,
		writableRoots: roots,
	});
	return exec!;
}

describe("the files a shell line runs", () => {
	it("a quoted word joined as the shell joins it is bound to the script's content", async () => {
		const plain = await shellFiles("sh build.sh", scripts, roots, realpath);
		const quoted = await shellFiles(`sh buil""d.sh`, scripts, roots, realpath);
		expect(plain.digest).toBeDefined();
		expect(quoted.digest).toBe(plain.digest);
		expect(quoted.files.map((file) => file.path)).toEqual([join(scripts, "build.sh")]);
		expect(quoted.unbound).toBeUndefined();
	});

	it.each([
		["cd scripts && sh build.sh", "changes folder (cd)"],
		["sh $PWD/scripts/build.sh", "expands a variable"],
		["sh scripts/missing.sh", "scripts/missing.sh, which is not a file there now"],
		["./scripts/absent", "./scripts/absent, which is not a file there now"],
		["sh < scripts/none.sh", "scripts/none.sh, which is not a file there now"],
	])("%s: unbound (%s)", async (line, reason) => {
		const binding = await shellFiles(line, project, roots, realpath);
		expect(binding.unbound).toContain(reason);
		const exec = await execOf(line);
		expect(exec.kind === "exec" && exec.unbound).toContain(reason);
	});

	it("a line that names its script (or runs an executable one) is bound and may be granted", async () => {
		for (const line of ["sh scripts/build.sh", "./scripts/run", "sh < scripts/build.sh"]) {
			const exec = await execOf(line);
			expect(exec.kind === "exec" && exec.content, line).toMatch(/^[0-9a-f]{64}$/);
			expect(exec.kind === "exec" && exec.unbound, line).toBeUndefined();
		}
		// The folder as the command's cwd, instead of `cd`: bound to the same script.
		const inFolder = await execOf("sh build.sh", scripts);
		const named = await execOf("sh scripts/build.sh");
		expect(inFolder.kind === "exec" && inFolder.unbound).toBeUndefined();
		expect(inFolder.kind === "exec" && inFolder.content).toBe(named.kind === "exec" && named.content);
	});
});

describe("an unbound line under the policy", () => {
	it("a remembered grant of its key does not hold: it is asked again (or refused under strict)", async () => {
		const exec = await execOf("cd scripts && sh build.sh");
		const grants = { allow: [capabilityKey(exec)], deny: [] };
		const context = { projectDir: project, tempDir: join(dir, "t"), protected: [], grants };
		expect(decide(exec, { ...context, policy: "prompt" })).toEqual({ verdict: "ask" });
		expect(decide(exec, { ...context, policy: "strict" }).verdict).toBe("deny");
		// A bound line's grant holds as before.
		const bound = await execOf("sh scripts/build.sh");
		expect(
			decide(bound, { ...context, policy: "prompt", grants: { allow: [capabilityKey(bound)], deny: [] } }),
		).toEqual({
			verdict: "allow",
			reason: "remembered: always allowed for this tool",
		});
	});

	it("the dialog says the line is not bound to any file's content and offers no Always", async () => {
		const exec = await execOf("cd scripts && sh build.sh");
		const title = permissionTitle(exec, { tool: "builder" });
		expect(title).toContain("This line is not bound to any file's content: it changes folder (cd)");
		expect(title).not.toContain('"Always" allows');

		const { config } = readConfig(project, { PI_FORGE_POLICY: "prompt" });
		const grants = new GrantsStore(join(dir, "agent", "grants.json"));
		await grants.load();
		const audit = new AuditLog(join(dir, "audit.jsonl"));
		const gate = createPolicyGate({ config, grants, audit, runtimeDir: join(dir, "agent", "runtime") });
		const offered: string[][] = [];
		const call = (answer: string | undefined): BrokerCall => ({
			tool: "builder",
			hash: "h1",
			host: {
				pi: undefined,
				hasUI: answer !== undefined,
				notify: () => undefined,
				select: async (_title, options) => {
					offered.push([...options]);
					return answer;
				},
			},
			pause: () => () => undefined,
			children: new Set(),
			alive: () => true,
		});
		expect(await gate.authorise(exec, call(ASK_OPTIONS.once))).toBeUndefined();
		expect(offered).toEqual([[ASK_OPTIONS.once, ASK_OPTIONS.deny]]);
		// Allowed once is not remembered: the next call asks again.
		expect(grants.get(config.realCwd, "builder", "h1").allow).toEqual([]);
		// With nobody to ask: refused, no grant command offered, and the hint says why.
		const refused: string[][] = [];
		const error = await gate.authorise(exec, { ...call(undefined), refused: (commands) => refused.push(commands) });
		expect(error?.hint).toContain("not bound to the content of the files it runs");
		expect(refused).toEqual([]);
		await audit.flush();
	});
});
