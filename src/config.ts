// Every environment variable and setting of Agent Forge is read here, and only here.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export type ForgePolicy = "strict" | "prompt" | "permissive";

export interface ForgeConfig {
	/** The toolbox directory: `$PI_FORGE_DIR`, else `<cwd>/.pi/forge/extensions/`. */
	toolboxDir: string;
	/** Deadline of one forged-tool call (`PI_FORGE_TIMEOUT_MS`, default 30000). */
	timeoutMs: number;
	/** Heap cap of an isolated runner (`PI_FORGE_MAX_MEMORY_MB`, default 512). */
	maxMemoryMb: number;
	/** Capability policy (`PI_FORGE_POLICY`, default `prompt`). */
	policy: ForgePolicy;
	/** Versions kept per tool in `.history/` (`PI_FORGE_HISTORY_LIMIT`, default 50). */
	historyLimit: number;
	/** Consecutive failed calls after which a tool is quarantined (`PI_FORGE_QUARANTINE_AFTER`, default 5). */
	quarantineAfter: number;
	/** A toolbox lock not refreshed for this long belongs to a dead process and is taken over (`PI_FORGE_LOCK_STALE_MS`, default 5000, at least 2000). */
	lockStaleMs: number;
	/** Most forged tools offered to the model as tools of their own at once (`PI_FORGE_ACTIVE_LIMIT`, default 12). */
	activeLimit: number;
	/** Characters the active set's schemas may add to every turn (`PI_FORGE_ACTIVE_CHARS`, default 1600). */
	activeChars: number;
	/** Tools always in the active set (`PI_FORGE_PINNED`, comma-separated, or `pinned` in a config file). */
	pinned: string[];
	/** The project directory: pi's cwd. */
	cwd: string;
	/** pi's agent dir (`PI_CODING_AGENT_DIR`, else ~/.pi/agent). */
	agentDir: string;
	/** Agent Forge's own folder in the agent dir: grants, the runner's bundle, the global config file. */
	forgeHome: string;
	/** `<cwd>/.pi/forge/config.json`. */
	projectConfigFile: string;
}

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

export interface ConfigProblem {
	variable: string;
	message: string;
}

/** A settings file: `<agentDir>/forge/config.json` (every project) and `<cwd>/.pi/forge/config.json` (this one). */
export interface ConfigFile {
	path: string;
	/** The file's text; undefined when there is no such file. */
	text?: string;
}

interface FileSettings {
	policy?: unknown;
	timeoutMs?: unknown;
	maxMemoryMb?: unknown;
	historyLimit?: unknown;
	quarantineAfter?: unknown;
	activeLimit?: unknown;
	activeChars?: unknown;
	pinned?: unknown;
}

const FILE_KEYS = ["policy", "timeoutMs", "maxMemoryMb", "historyLimit", "quarantineAfter", "activeLimit", "activeChars", "pinned"];

/**
 * Reads the configuration: environment variables win over the project's config file, which wins over the global one.
 * A bad value falls back to its default and is reported, never fatal.
 */
export function readConfig(
	cwd: string,
	env: Record<string, string | undefined> = process.env,
	files: ConfigFile[] = [],
): { config: ForgeConfig; problems: ConfigProblem[] } {
	const problems: ConfigProblem[] = [];
	const dir = env.PI_FORGE_DIR?.trim();
	const toolboxDir = dir ? (isAbsolute(dir) ? dir : resolve(cwd, dir)) : join(cwd, ".pi", "forge", "extensions");
	const agentDir = env.PI_CODING_AGENT_DIR?.trim() || join(homedir(), ".pi", "agent");

	const settings: FileSettings = {};
	for (const file of files) Object.assign(settings, readFileSettings(file, problems));

	const positiveInt = (variable: string, fileValue: unknown, fallback: number): number => {
		const fromEnv = env[variable]?.trim();
		const raw = fromEnv || (fileValue === undefined ? undefined : String(fileValue));
		if (!raw) return fallback;
		const value = Number(raw);
		if (Number.isInteger(value) && value > 0 && value <= MAX_SETTING) return value;
		problems.push({ variable, message: `${variable}=${raw} is not a positive integer up to ${MAX_SETTING}; using ${fallback}` });
		return fallback;
	};

	const rawPolicy = (env.PI_FORGE_POLICY?.trim() || (typeof settings.policy === "string" ? settings.policy : "")).toLowerCase();
	let policy: ForgePolicy = "prompt";
	if (rawPolicy) {
		if ((POLICIES as readonly string[]).includes(rawPolicy)) policy = rawPolicy as ForgePolicy;
		else problems.push({ variable: "PI_FORGE_POLICY", message: `PI_FORGE_POLICY=${rawPolicy} is not one of ${POLICIES.join(", ")}; using prompt` });
	}

	return {
		config: {
			toolboxDir,
			timeoutMs: positiveInt("PI_FORGE_TIMEOUT_MS", settings.timeoutMs, DEFAULT_TIMEOUT_MS),
			maxMemoryMb: positiveInt("PI_FORGE_MAX_MEMORY_MB", settings.maxMemoryMb, DEFAULT_MAX_MEMORY_MB),
			policy,
			historyLimit: positiveInt("PI_FORGE_HISTORY_LIMIT", settings.historyLimit, DEFAULT_HISTORY_LIMIT),
			quarantineAfter: positiveInt("PI_FORGE_QUARANTINE_AFTER", settings.quarantineAfter, DEFAULT_QUARANTINE_AFTER),
			lockStaleMs: Math.max(2_000, positiveInt("PI_FORGE_LOCK_STALE_MS", undefined, DEFAULT_LOCK_STALE_MS)),
			activeLimit: positiveInt("PI_FORGE_ACTIVE_LIMIT", settings.activeLimit, DEFAULT_ACTIVE_LIMIT),
			activeChars: positiveInt("PI_FORGE_ACTIVE_CHARS", settings.activeChars, DEFAULT_ACTIVE_CHARS),
			pinned: (env.PI_FORGE_PINNED?.split(",") ?? (Array.isArray(settings.pinned) ? settings.pinned.map(String) : [])).map((name) => name.trim()).filter(Boolean),
			cwd,
			agentDir,
			forgeHome: join(agentDir, "forge"),
			projectConfigFile: join(cwd, ".pi", "forge", "config.json"),
		},
		problems,
	};
}

function readFileSettings(file: ConfigFile, problems: ConfigProblem[]): FileSettings {
	if (file.text === undefined) return {};
	try {
		const data = JSON.parse(file.text) as Record<string, unknown>;
		if (typeof data !== "object" || data === null || Array.isArray(data)) throw new Error("not a JSON object");
		for (const key of Object.keys(data)) {
			if (!FILE_KEYS.includes(key)) problems.push({ variable: file.path, message: `${file.path}: unknown setting '${key}' (known: ${FILE_KEYS.join(", ")})` });
		}
		return data as FileSettings;
	} catch (error) {
		problems.push({ variable: file.path, message: `${file.path} is not valid JSON (${(error as Error).message}); ignored` });
		return {};
	}
}

/** The configuration of pi's cwd, with both config files read from disk. */
export function loadConfig(cwd: string, env: Record<string, string | undefined> = process.env): { config: ForgeConfig; problems: ConfigProblem[] } {
	const { config } = readConfig(cwd, env);
	const read = (path: string): ConfigFile => {
		try {
			return { path, text: readFileSync(path, "utf8") };
		} catch {
			return { path };
		}
	};
	return readConfig(cwd, env, [read(join(config.forgeHome, "config.json")), read(config.projectConfigFile)]);
}
