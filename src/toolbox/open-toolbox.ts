// Puts a toolbox together for a project: configuration, grants, audit log, the isolated runner; then opens it.
// pi's wiring and the command line both start here.
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { type ConfigProblem, type ForgeConfig, loadConfig } from "../config.ts";
import { AuditLog } from "../policy/audit-log.ts";
import { safeEnvironment } from "../policy/capability.ts";
import { migrateGrants } from "../policy/grants-migration.ts";
import { GrantsStore } from "../policy/grants-store.ts";
import { IsolatedRunner } from "../run/isolated/isolated-runner.ts";
import { resolveProgram } from "../run/isolated/resolve-program.ts";
import { HEALTH_FILE } from "./health.ts";
import { type OpenReport, Toolbox } from "./toolbox.ts";

export interface OpenedToolbox {
	toolbox: Toolbox;
	runner: IsolatedRunner;
	config: ForgeConfig;
	grants: GrantsStore;
	problems: ConfigProblem[];
	report: OpenReport;
}

export const AUDIT_FILE = ".forge-audit.jsonl";

/**
 * `verify: "background"` (pi's start) trusts a sound registry at once and compares it with the files right after.
 * `readOnly` (the command line's list, show, check…) writes nothing into the toolbox, not even the audit log.
 */
export async function openToolbox(
	cwd: string,
	env: Record<string, string | undefined> = process.env,
	options: { verify?: "now" | "background"; readOnly?: boolean } = {},
): Promise<OpenedToolbox> {
	const { config, problems } = loadConfig(cwd, env);
	const grants = new GrantsStore(join(config.forgeHome, "grants.json"));
	await grants.load();
	const audit = new AuditLog(join(config.toolboxDir, AUDIT_FILE), { discard: options.readOnly });
	const runner = new IsolatedRunner({
		config,
		grants,
		audit,
		runtimeDir: join(config.forgeHome, "runtime"),
		// The forge's own settings are as untouchable as the toolbox.
		protectedDirs: [config.forgeHome, dirname(config.projectConfigFile)],
		unreadable: [join(config.toolboxDir, HEALTH_FILE), join(config.toolboxDir, AUDIT_FILE)],
	});
	const toolbox = new Toolbox(config, runner);
	const report = await toolbox.open(options);
	if (!options.readOnly) await migrateProjectGrants(grants, config.cwd, toolbox);
	return { toolbox, runner, config, grants, problems, report };
}

/** Binds this project's grants from before versions and program paths to the tools as they are now (see grants-migration.ts). */
async function migrateProjectGrants(grants: GrantsStore, cwd: string, toolbox: Toolbox): Promise<void> {
	let project = cwd;
	try {
		project = realpathSync.native(cwd);
	} catch {
		// A project that cannot be resolved has no grants under its real path to migrate.
	}
	const path = safeEnvironment(process.env).PATH;
	await grants
		.update((data) =>
			migrateGrants(data, {
				project,
				hashOf: (tool) => toolbox.get(tool)?.hash,
				resolveProgram: (name) => resolveProgram(name, { cwd: project, path }),
			}),
		)
		.catch(() => undefined);
}
