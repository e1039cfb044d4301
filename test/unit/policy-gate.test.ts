// The policy as the isolated runner's gate, and the broker over fake operations: what the gate allows is done with
// the paths it checked, what it refuses is not done at all, and each decision is audited.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import { AuditLog, readAudit } from "../../src/policy/audit-log.ts";
import { ASK_OPTIONS, createPolicyGate } from "../../src/policy/gate.ts";
import { GrantsStore } from "../../src/policy/grants-store.ts";
import { Broker, type BrokerCall } from "../../src/run/isolated/parent/broker.ts";
import type { BrokerOperations } from "../../src/run/isolated/parent/operations.ts";
import type { PolicyGate } from "../../src/run/isolated/parent/policy-gate.ts";

let dir: string;
/** The audit logs of the test: their writes (not awaited by a decision) end before the folder is removed. */
const audits: AuditLog[] = [];
beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "forge-gate-"));
});
afterEach(async () => {
	await Promise.all(audits.splice(0).map((audit) => audit.flush()));
	await rm(dir, { recursive: true, force: true });
});

async function gateFor(policy: string, answer?: string) {
	const { config } = readConfig(dir, { PI_FORGE_POLICY: policy });
	const grants = new GrantsStore(join(dir, "agent", "grants.json"));
	await grants.load();
	const audit = new AuditLog(join(dir, "audit.jsonl"));
	audits.push(audit);
	const gate = createPolicyGate({ config, grants, audit, runtimeDir: join(dir, "agent", "runtime") });
	const asked: string[] = [];
	const call: BrokerCall = {
		tool: "probe",
		hash: "h1",
		host: {
			pi: undefined,
			hasUI: answer !== undefined,
			notify: () => undefined,
			select: async (title) => {
				asked.push(title);
				return answer;
			},
		},
		pause: () => () => undefined,
		children: new Set(),
		alive: () => true,
	};
	return { gate, grants, audit, call, asked, config };
}

describe("the policy gate", () => {
	it("refuses a write to a protected location for good, offering no grant command, and audits it", async () => {
		const { gate, audit, call } = await gateFor("permissive");
		const refused: string[][] = [];
		const error = await gate.authorise(
			{ kind: "fs-write", path: join(dir, ".git", "config") },
			{ ...call, refused: (commands) => refused.push(commands) },
		);
		expect(error?.message).toContain(".git/ (git runs its hooks and reads its config from it) is never writable");
		expect(refused).toEqual([]);
		await audit.flush();
		expect((await readAudit(audit.file)).map((r) => r.decision)).toEqual(["deny"]);
	});

	it("asks a person, remembers an 'always' for this version, and lets the next ask through without a dialog", async () => {
		const { gate, grants, call, asked, config } = await gateFor("prompt", ASK_OPTIONS.always);
		expect(await gate.authorise({ kind: "env", name: "SECRET_THING" }, call)).toBeUndefined();
		expect(asked).toHaveLength(1);
		expect(grants.get(config.realCwd, "probe", "h1").allow).toEqual(["env:SECRET_THING"]);
		// Saved, not only kept in memory: another store reading the file finds it.
		const reread = new GrantsStore(grants.file);
		await reread.load();
		expect(reread.get(config.realCwd, "probe", "h1").allow).toEqual(["env:SECRET_THING"]);
		expect(await gate.authorise({ kind: "env", name: "SECRET_THING" }, call)).toBeUndefined();
		expect(asked).toHaveLength(1);
	});

	it("with nobody to ask, refuses and offers the commands that would grant it", async () => {
		const { gate, call } = await gateFor("prompt");
		const refused: string[][] = [];
		const error = await gate.authorise(
			{ kind: "net", host: "example.com" },
			{ ...call, refused: (c) => refused.push(c) },
		);
		expect(error?.message).toBe("'probe' may not connect to example.com: no UI to ask.");
		expect(refused[0]?.[0]).toBe("agent-forge grant probe net:example.com");
	});

	it("never runs a tool inline under strict, and keeps the network only under permissive", async () => {
		expect(await (await gateFor("strict")).gate.runsInline("probe", "h1")).toBe(false);
		expect((await gateFor("permissive")).gate.network).toBe(true);
		expect((await gateFor("prompt")).gate.network).toBe(false);
	});
});

describe("the broker over its operations", () => {
	const fakeOperations = (done: string[]): BrokerOperations => ({
		fs: async (request) => {
			done.push(`${request.action} ${String(request.args[0])}`);
			return undefined;
		},
		exec: async () => ({ stdout: "", stderr: "", status: 0, signal: null }),
		fetch: async () => ({ status: 200, statusText: "OK", headers: [], url: "" }),
		realpath: async (path) => path,
		isFolder: async () => false,
	});
	const fakeGate = (refuse: boolean): PolicyGate => ({
		network: false,
		authorise: async () => (refuse ? { phase: "permission", message: "no" } : undefined),
		protectedPaths: () => [],
		runsInline: async () => false,
		recordCall: () => undefined,
		flush: async () => undefined,
	});
	const call: BrokerCall = {
		tool: "t",
		hash: "h",
		pause: () => () => undefined,
		children: new Set(),
		alive: () => true,
	};

	it("does what the gate allowed, on the path it checked", async () => {
		const done: string[] = [];
		const broker = new Broker({
			gate: fakeGate(false),
			projectDir: "/p",
			tempDir: "/tmp",
			env: {},
			commandEnv: {},
			operations: fakeOperations(done),
		});
		const reply = await broker.handle({ kind: "fs", action: "writeFile", args: ["/p/a.txt", "x"] }, call);
		expect(reply).toEqual({ ok: true, value: undefined });
		expect(done).toEqual(["writeFile /p/a.txt"]);
	});

	it("does nothing the gate refused, and answers a variable from the environment it was given", async () => {
		const done: string[] = [];
		const settings = { projectDir: "/p", tempDir: "/tmp", commandEnv: {}, operations: fakeOperations(done) };
		const refusing = new Broker({ ...settings, gate: fakeGate(true), env: {} });
		expect(await refusing.handle({ kind: "fs", action: "rm", args: ["/p/a.txt"] }, call)).toEqual({
			ok: false,
			error: { phase: "permission", message: "no" },
		});
		expect(done).toEqual([]);
		const allowing = new Broker({ ...settings, gate: fakeGate(false), env: { TOKEN: "t0k" } });
		expect(await allowing.handle({ kind: "env", name: "TOKEN" }, call)).toEqual({ ok: true, value: "t0k" });
		expect(await allowing.handle({ kind: "env", name: "toString" }, call)).toEqual({ ok: true, value: undefined });
	});
});

describe("pi.useTool through the broker", () => {
	const operations: BrokerOperations = {
		fs: async (request) => (request.action === "readFile" ? "text of the file" : undefined),
		exec: async () => ({ stdout: "out\n", stderr: "", status: 0, signal: null }),
		fetch: async () => ({ status: 200, statusText: "OK", headers: [], url: "" }),
		realpath: async (path) => path,
		isFolder: async () => false,
	};
	const call = (useTool?: BrokerCall["useTool"]): BrokerCall => ({
		tool: "caller",
		hash: "h",
		pause: () => () => undefined,
		children: new Set(),
		alive: () => true,
		...(useTool ? { useTool } : {}),
	});

	it("hands back what the called tool returned, and the caller's operations go through the caller's gate", async () => {
		const { gate } = await gateFor("strict");
		const broker = new Broker({ gate, projectDir: dir, tempDir: "/tmp", env: {}, commandEnv: {}, operations });
		const inside = await broker.handle(
			{ kind: "use", name: "read", args: {} },
			call(async (_name, _args, ops) => ops.readText(join(dir, "a.txt"))),
		);
		expect(inside).toEqual({ ok: true, value: "text of the file" });
		const outside = await broker.handle(
			{ kind: "use", name: "bash", args: {} },
			call(async (_name, _args, ops) => ops.shell("ls", dir, { onData: () => undefined })),
		);
		expect(outside.ok).toBe(false);
		expect(!outside.ok && outside.error.phase).toBe("permission");
		expect(!outside.ok && outside.error.message).toContain("'caller' may not run `ls`");
	});

	it("says so where pi.useTool is not offered", async () => {
		const broker = new Broker({
			gate: (await gateFor("prompt")).gate,
			projectDir: dir,
			tempDir: "/tmp",
			env: {},
			commandEnv: {},
			operations,
		});
		expect(await broker.handle({ kind: "use", name: "x", args: {} }, call())).toEqual({
			ok: false,
			error: { phase: "runtime", message: "pi.useTool is not available here." },
		});
	});
});
