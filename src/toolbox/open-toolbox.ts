// Puts a toolbox together for a project from its configuration (read by the caller: config.ts is the layer above):
// the stores, grants, audit log and the isolated runner; then opens it. pi's wiring and the command line start here.
import { dirname, join } from "node:path";
import type { ConfigProblem, ForgeConfig } from "../contract/config.ts";
import { AuditLog } from "../policy/audit-log.ts";
import { createPolicyGate } from "../policy/gate.ts";
import { migrateGrants } from "../policy/grants-migration.ts";
import { GrantsStore } from "../policy/grants-store.ts";
import { IsolatedRunner } from "../run/isolated/parent/isolated-runner.ts";
import { resolveProgram } from "../run/isolated/resolve-program.ts";
import type { Runner } from "../run/runner.ts";
import { CACHE_KEY_FILE, CacheKey } from "../store/cache-key.ts";
import { CompileCache } from "../store/compile-cache.ts";
import { HEALTH_FILE, HealthStore } from "../store/health.ts";
import { ToolHistory } from "../store/history.ts";
import { linkedToolboxEntries, unsafeToolboxFolder } from "../store/toolbox-folder.ts";
import { ToolboxStore } from "../store/toolbox-store.ts";
import { type OpenReport, Toolbox, type ToolboxOptions, type ToolboxStores } from "./toolbox.ts";
import { type ScopedToolbox, Toolboxes, userRunner } from "./toolboxes.ts";

export interface OpenedToolbox {
	/** The project's toolbox. */
	toolbox: Toolbox;
	/** The project's and the user toolbox as one (a name resolves to the project's tool first). */
	toolboxes: Toolboxes;
	runner: IsolatedRunner;
	config: ForgeConfig;
	grants: GrantsStore;
	problems: ConfigProblem[];
	report: OpenReport;
}

export const AUDIT_FILE = ".forge-audit.jsonl";

/** The user's key for the compile cache: in the agent dir's forge folder, which no project holds and no tool reads. */
export const compileCacheKey = (config: Pick<ForgeConfig, "forgeHome">): CacheKey =>
	new CacheKey(join(config.forgeHome, CACHE_KEY_FILE));

/** The stores of the toolbox folder `config` names; `key` authenticates its compile cache (one per user, shared). */
export function createToolboxStores(
	config: Pick<ForgeConfig, "toolboxDir" | "lockStaleMs" | "historyLimit" | "secretValues" | "forgeHome">,
	key: CacheKey = compileCacheKey(config),
): ToolboxStores {
	return {
		store: new ToolboxStore(config.toolboxDir, { staleMs: config.lockStaleMs }),
		health: new HealthStore(config.toolboxDir, config.secretValues),
		history: new ToolHistory(config.toolboxDir, config.historyLimit),
		compileCache: new CompileCache(config.toolboxDir, key),
	};
}

/** A toolbox (not opened yet) over the stores of `config`'s folder, running its tools in `runner`. */
export function createToolbox(config: ForgeConfig, runner: Runner, options: ToolboxOptions = {}): Toolbox {
	return new Toolbox(config, runner, createToolboxStores(config), options);
}

/**
 * `verify: "background"` (pi's start) trusts a sound registry at once and compares it with the files right after.
 * `readOnly` (the command line's list, show, check…) writes nothing into the toolbox, not even the audit log.
 */
export async function openToolbox(
	loaded: { config: ForgeConfig; problems: ConfigProblem[] },
	options: { verify?: "now" | "background"; readOnly?: boolean } = {},
): Promise<OpenedToolbox> {
	const { config, problems } = loaded;
	// A folder reached through a link (a cloned repository's) is never opened: nothing is read or written there.
	const ownFolder = config.toolboxDir === join(config.cwd, ".pi", "forge", "extensions");
	const unsafe = await unsafeToolboxFolder(config.toolboxDir, {
		agentDir: config.agentDir,
		...(ownFolder ? { project: config.cwd } : {}),
	});
	if (unsafe) throw new Error(unsafe);
	// What a repository put at the places of the toolbox's own files is told at the start, before the open handles it.
	problems.push(...(await linkedToolboxEntries(config.toolboxDir)));
	const grants = new GrantsStore(join(config.forgeHome, "grants.json"));
	await grants.load();
	const audit = new AuditLog(join(config.toolboxDir, AUDIT_FILE), {
		discard: options.readOnly,
		secretValues: config.secretValues,
	});
	const runtimeDir = join(config.forgeHome, "runtime");
	const key = compileCacheKey(config);
	const gate = createPolicyGate({
		config,
		grants,
		audit,
		runtimeDir,
		// The forge's own settings are as untouchable as the toolbox.
		protectedDirs: [config.forgeHome, dirname(config.projectConfigFile)],
	});
	const runner = new IsolatedRunner({
		config,
		gate,
		runtimeDir,
		unreadable: [
			join(config.toolboxDir, HEALTH_FILE),
			join(config.toolboxDir, AUDIT_FILE),
			key.file,
			...(config.userToolboxDir ? [join(config.userToolboxDir, HEALTH_FILE)] : []),
		],
	});
	const stores = createToolboxStores(config, key);
	const toolbox = new Toolbox(config, runner, stores);
	const report = await toolbox.open(options);
	const user = await openUserToolbox(config, runner, key, options, problems);
	const toolboxes = new Toolboxes({ scope: "project", toolbox, stores }, user);
	if (!options.readOnly) await migrateProjectGrants(grants, config, toolboxes);
	return { toolbox, toolboxes, runner, config, grants, problems, report };
}

/**
 * The user toolbox beside the project's, on the same runner (its tools under keys of their own). One that cannot be
 * opened (an agent dir that cannot be written) is reported, never fatal: the project's toolbox works without it.
 */
async function openUserToolbox(
	config: ForgeConfig,
	runner: IsolatedRunner,
	key: CacheKey,
	options: { verify?: "now" | "background"; readOnly?: boolean },
	problems: ConfigProblem[],
): Promise<ScopedToolbox | undefined> {
	if (!config.userToolboxDir) return undefined;
	// The user's own history and quarantine limits: a project's file may lower them for the project's toolbox only.
	const userConfig = { ...config, toolboxDir: config.userToolboxDir, ...config.userLimits };
	const stores = createToolboxStores(userConfig, key);
	const toolbox = new Toolbox(userConfig, userRunner(runner), stores);
	try {
		const unsafe = await unsafeToolboxFolder(config.userToolboxDir, { agentDir: config.agentDir });
		if (unsafe) throw new Error(unsafe);
		await toolbox.open(options);
		return { scope: "user", toolbox, stores };
	} catch (error) {
		problems.push({
			origin: { file: config.userToolboxDir },
			message: `The user toolbox (${config.userToolboxDir}) could not be opened: ${(error as Error).message}; only the project's toolbox is used.`,
		});
		return undefined;
	}
}

/** Binds this project's grants from before versions and program paths to the tools as they are now (see grants-migration.ts). */
async function migrateProjectGrants(
	grants: GrantsStore,
	config: ForgeConfig,
	toolbox: Pick<Toolbox, "get">,
): Promise<void> {
	// A project that cannot be resolved has no grants under its real path to migrate (realCwd is then the cwd).
	const project = config.realCwd;
	const path = config.safeEnv.PATH;
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
