// Every environment variable and setting of pi's process is read here, once, into a ForgeConfig (its type is in
// contract/config.ts) that the composition root passes down. The isolated runner's own processes read their own.
import { readFileSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { ConfigProblem, ForgeConfig, ForgePolicy, UntrustedWhy } from "./contract/config.ts";
import { type ConfigFile, type FileKey, readFileSettings } from "./contract/config-file.ts";
import { safeEnvironment } from "./policy/capability.ts";
import {
	compareLimit,
	comparePolicy,
	isProjectLimit,
	looserMessage,
	type UserSetting,
} from "./policy/project-limits.ts";
import { sensitiveEnvValues } from "./security/redact.ts";

export type { ConfigProblem, ForgeConfig, ForgePolicy, UntrustedWhy } from "./contract/config.ts";
export type { ConfigFile } from "./contract/config-file.ts";

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_MEMORY_MB = 512;
export const DEFAULT_HISTORY_LIMIT = 50;
export const DEFAULT_QUARANTINE_AFTER = 5;
export const DEFAULT_LOCK_STALE_MS = 5_000;
export const DEFAULT_ACTIVE_LIMIT = 12;
export const DEFAULT_ACTIVE_CHARS = 1_600;
/** Node's timers cap a delay at 2^31-1 ms; a larger deadline would fire at once. */
const MAX_SETTING = 2 ** 31 - 1;
const POLICIES: readonly ForgePolicy[] = ["strict", "prompt", "permissive"];

/** A raw value and where it came from. */
interface Setting {
	raw: unknown;
	origin: ConfigProblem["origin"];
}

/** How a problem names its value: `PI_FORGE_POLICY=stirct`, or `/p/.pi/forge/config.json: "policy": "stirct"`. */
function describe({ raw, origin }: Setting): string {
	return "variable" in origin
		? `${origin.variable}=${String(raw)}`
		: `${origin.file}: "${origin.key}": ${JSON.stringify(raw)}`;
}

/**
 * Whether the project is trusted (pi's `isProjectTrusted()` and, where pi did not ask, more: pi/forge-trust.ts; pi's
 * legacy line has no trust and counts as trusted), and if not, why.
 */
export interface TrustOptions {
	projectTrusted?: boolean;
	untrustedWhy?: UntrustedWhy;
	untrustedDetail?: string;
}

/**
 * Reads the configuration: environment variables win over the project's config file, which wins over the global one
 * — except the policy and the limits (policy/project-limits.ts), which the project's file may only tighten: it
 * tightens the user's value (the environment's, else the global file's, else the default) and a looser one is ignored.
 * A bad value falls back to its default (an unknown policy to `strict`) and is reported with where it came from, never
 * fatal.
 * Settings come from `env`; what tools may see and what is secret come from `processEnv`, pi's own environment
 * (tests pass a few settings as `env` and keep the real process environment).
 * In a project pi does not trust, the project's file is ignored and its toolbox is not used: without PI_FORGE_DIR the
 * user toolbox is the only one.
 */
export function readConfig(
	cwd: string,
	env: Record<string, string | undefined> = process.env,
	files: ConfigFile[] = [],
	processEnv: Record<string, string | undefined> = process.env,
	{ projectTrusted = true, untrustedWhy = "pi", untrustedDetail }: TrustOptions = {},
): { config: ForgeConfig; problems: ConfigProblem[] } {
	const problems: ConfigProblem[] = [];
	const dir = env.PI_FORGE_DIR?.trim();
	const projectToolboxDir = dir
		? isAbsolute(dir)
			? dir
			: resolve(cwd, dir)
		: join(cwd, ".pi", "forge", "extensions");
	const agentDir = agentDirOf(env);
	const userToolboxDir = join(agentDir, "forge", "extensions");
	const projectConfigFile = join(cwd, ".pi", "forge", "config.json");
	// A folder PI_FORGE_DIR names is the user's choice; the project's own toolbox is used only in a trusted project.
	const withheld = !projectTrusted && !dir;
	const toolboxDir = withheld ? userToolboxDir : projectToolboxDir;

	// Later files win: the project's over the global one. The project's policy and limits are kept apart: they may
	// only tighten.
	const fromFiles = new Map<FileKey, Setting>();
	const tightenOnly = new Map<FileKey, Setting>();
	for (const file of files) {
		const fromProject = resolve(file.path) === projectConfigFile;
		if (fromProject && !projectTrusted) continue;
		for (const [key, raw] of Object.entries(readFileSettings(file, problems))) {
			const found = { raw, origin: { file: file.path, key } };
			if (fromProject && (key === "policy" || isProjectLimit(key))) tightenOnly.set(key as FileKey, found);
			else fromFiles.set(key as FileKey, found);
		}
	}
	const userSetting = (variable: string, value: string | number, found?: Setting): UserSetting => ({
		value,
		from: found ? describe(found) : "the default",
		variable,
		globalFile: join(agentDir, "forge", "config.json"),
	});
	const setting = (variable: string, key?: FileKey): Setting | undefined => {
		const fromEnv = env[variable]?.trim();
		if (fromEnv) return { raw: fromEnv, origin: { variable } };
		return key ? fromFiles.get(key) : undefined;
	};
	const report = (found: Setting, message: string) =>
		problems.push({ origin: found.origin, message: `${describe(found)} ${message}` });

	const intOf = (found: Setting, fallback: number): number => {
		const value = typeof found.raw === "number" || typeof found.raw === "string" ? Number(found.raw) : Number.NaN;
		if (Number.isInteger(value) && value > 0 && value <= MAX_SETTING) return value;
		report(found, `is not a positive integer up to ${MAX_SETTING}; using ${fallback}`);
		return fallback;
	};
	/** The user's own values of the settings read, before a project's file lowered them. */
	const usersOwn = new Map<FileKey, number>();
	// The user's value; the project's file may lower it, and a higher one from there is ignored (as the policy's).
	const positiveInt = (variable: string, key: FileKey | undefined, fallback: number): number => {
		const found = setting(variable, key);
		const user = found ? intOf(found, fallback) : fallback;
		if (key) usersOwn.set(key, user);
		const project = key && tightenOnly.get(key);
		if (!key || !project) return user;
		const value = intOf(project, user);
		if (compareLimit(user, value) !== "looser") return value;
		if (isProjectLimit(key)) report(project, looserMessage(key, value, userSetting(variable, user, found)));
		return user;
	};

	// A policy that cannot be read means the strictest one: a typo must never weaken what was intended.
	const policyOf = (found: Setting): ForgePolicy => {
		const value = typeof found.raw === "string" ? found.raw.trim().toLowerCase() : undefined;
		if ((POLICIES as readonly (string | undefined)[]).includes(value)) return value as ForgePolicy;
		report(found, `is not one of ${POLICIES.join(", ")}; using strict`);
		return "strict";
	};
	// The user's policy (the environment, else the global file, else prompt); the project's file may tighten it, and a
	// looser one from there is ignored: a cloned repository must not choose how much its own tools may do.
	const readPolicy = (): { policy: ForgePolicy; policyFrom: string } => {
		const found = setting("PI_FORGE_POLICY", "policy");
		const user = found ? policyOf(found) : "prompt";
		const userFrom = found ? describe(found) : "the default";
		const projectPolicy = tightenOnly.get("policy");
		if (!projectPolicy) return { policy: user, policyFrom: userFrom };
		const project = policyOf(projectPolicy);
		const compared = comparePolicy(user, project);
		if (compared === "tighter")
			return { policy: project, policyFrom: `${describe(projectPolicy)} (tighter than ${userFrom}: ${user})` };
		if (compared === "looser")
			report(projectPolicy, looserMessage("policy", project, userSetting("PI_FORGE_POLICY", user, found)));
		return { policy: user, policyFrom: userFrom };
	};

	// Anything but a plain "off" keeps the sandbox: a typo must not take a layer away.
	const readSandbox = (): "auto" | "off" => {
		const raw = env.PI_FORGE_SANDBOX?.trim().toLowerCase();
		if (!raw || raw === "auto") return "auto";
		if (raw === "off") return "off";
		report({ raw, origin: { variable: "PI_FORGE_SANDBOX" } }, "is not auto or off; using auto");
		return "auto";
	};

	const readPinned = (): string[] => {
		if (env.PI_FORGE_PINNED !== undefined) return env.PI_FORGE_PINNED.split(",");
		const found = fromFiles.get("pinned");
		if (!found) return [];
		if (!Array.isArray(found.raw)) {
			report(found, "is not a list of tool names; ignored");
			return [];
		}
		const names = found.raw.filter((name): name is string => typeof name === "string");
		if (names.length < found.raw.length)
			report(found, "has entries that are not tool names (strings); those are ignored");
		return names;
	};

	return {
		config: {
			toolboxDir,
			timeoutMs: positiveInt("PI_FORGE_TIMEOUT_MS", "timeoutMs", DEFAULT_TIMEOUT_MS),
			maxMemoryMb: positiveInt("PI_FORGE_MAX_MEMORY_MB", "maxMemoryMb", DEFAULT_MAX_MEMORY_MB),
			...readPolicy(),
			historyLimit: positiveInt("PI_FORGE_HISTORY_LIMIT", "historyLimit", DEFAULT_HISTORY_LIMIT),
			quarantineAfter: positiveInt("PI_FORGE_QUARANTINE_AFTER", "quarantineAfter", DEFAULT_QUARANTINE_AFTER),
			userLimits: {
				historyLimit: usersOwn.get("historyLimit") ?? DEFAULT_HISTORY_LIMIT,
				quarantineAfter: usersOwn.get("quarantineAfter") ?? DEFAULT_QUARANTINE_AFTER,
			},
			lockStaleMs: Math.max(2_000, positiveInt("PI_FORGE_LOCK_STALE_MS", undefined, DEFAULT_LOCK_STALE_MS)),
			activeLimit: positiveInt("PI_FORGE_ACTIVE_LIMIT", "activeLimit", DEFAULT_ACTIVE_LIMIT),
			activeChars: positiveInt("PI_FORGE_ACTIVE_CHARS", "activeChars", DEFAULT_ACTIVE_CHARS),
			pinned: readPinned()
				.map((name) => name.trim())
				.filter(Boolean),
			nodePath: env.PI_FORGE_NODE?.trim() || undefined,
			sandbox: readSandbox(),
			suggest: env.PI_FORGE_SUGGEST?.trim().toLowerCase() !== "off",
			cwd,
			agentDir,
			forgeHome: join(agentDir, "forge"),
			// One folder cannot be two toolboxes: PI_FORGE_DIR set to the user toolbox leaves the project's alone.
			...(sameFolder(toolboxDir, userToolboxDir) ? {} : { userToolboxDir }),
			projectConfigFile,
			projectTrusted,
			...(projectTrusted ? {} : { untrustedWhy, ...(untrustedDetail ? { untrustedDetail } : {}) }),
			...(withheld ? { withheldToolboxDir: projectToolboxDir } : {}),
			safeEnv: safeEnvironment(processEnv),
			secretValues: sensitiveEnvValues(processEnv),
			env: processEnv,
			realCwd: realOrSelf(cwd),
			homeDir: homedir(),
			realTempDir: realOrSelf(tmpdir()),
		},
		problems,
	};
}

function sameFolder(a: string, b: string): boolean {
	return resolve(a) === resolve(b) || realOrSelf(a) === realOrSelf(b);
}

/** A path through symlinks; the path itself when it cannot be resolved (it does not exist yet). */
function realOrSelf(path: string): string {
	try {
		return realpathSync.native(path);
	} catch {
		return path;
	}
}

/** pi's agent dir as Agent Forge reads it: `PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function agentDirOf(env: Record<string, string | undefined> = process.env): string {
	return env.PI_CODING_AGENT_DIR?.trim() || join(homedir(), ".pi", "agent");
}

/** The configuration of pi's cwd, with both config files read from disk. */
export function loadConfig(
	cwd: string,
	env: Record<string, string | undefined> = process.env,
	processEnv: Record<string, string | undefined> = process.env,
	trust: TrustOptions = {},
): { config: ForgeConfig; problems: ConfigProblem[] } {
	const { config } = readConfig(cwd, env, [], processEnv);
	const read = (path: string): ConfigFile => {
		try {
			return { path, text: readFileSync(path, "utf8") };
		} catch {
			return { path };
		}
	};
	// An untrusted project's file is not even read.
	const files = [read(join(config.forgeHome, "config.json"))];
	if (trust.projectTrusted !== false) files.push(read(config.projectConfigFile));
	return readConfig(cwd, env, files, processEnv, trust);
}
