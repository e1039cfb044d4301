// A Toolbox with the isolated runner, on fresh temp dirs (project, agent dir for grants and the runtime bundle).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfig } from "../../src/config.ts";
import { AuditLog } from "../../src/policy/audit-log.ts";
import { createPolicyGate } from "../../src/policy/gate.ts";
import { GrantsStore } from "../../src/policy/grants-store.ts";
import { IsolatedRunner } from "../../src/run/isolated/parent/isolated-runner.ts";
import { HEALTH_FILE } from "../../src/store/health.ts";
import { createToolbox } from "../../src/toolbox/open-toolbox.ts";
import type { Toolbox } from "../../src/toolbox/toolbox.ts";

/** Shared across a test file: the bundle is built once per folder. */
export const RUNTIME_DIR = join(tmpdir(), "agent-forge-test-runtime");

export interface IsolatedBox {
	toolbox: Toolbox;
	runner: IsolatedRunner;
	grants: GrantsStore;
	audit: AuditLog;
	cwd: string;
	dir: string;
}

export async function isolatedToolbox(env: Record<string, string> = {}, cwd?: string): Promise<IsolatedBox> {
	const project = cwd ?? (await mkdtemp(join(tmpdir(), "forge-iso-")));
	const agentDir = await mkdtemp(join(tmpdir(), "forge-iso-agent-"));
	const { config } = readConfig(project, env);
	const grants = new GrantsStore(join(agentDir, "forge", "grants.json"));
	await grants.load();
	const audit = new AuditLog(join(config.toolboxDir, ".forge-audit.jsonl"), { secretValues: config.secretValues });
	const gate = createPolicyGate({
		config,
		grants,
		audit,
		runtimeDir: RUNTIME_DIR,
		protectedDirs: [join(agentDir, "forge")],
	});
	const runner = new IsolatedRunner({
		config,
		gate,
		runtimeDir: RUNTIME_DIR,
		unreadable: [join(config.toolboxDir, HEALTH_FILE), audit.file],
	});
	const toolbox = createToolbox(config, runner);
	await toolbox.open();
	return { toolbox, runner, grants, audit, cwd: project, dir: config.toolboxDir };
}
