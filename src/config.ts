// Every environment variable and setting of Agent Forge is read here, and only here.
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
	/** The project directory: pi's cwd. */
	cwd: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_MEMORY_MB = 512;
/** Node's timers cap a delay at 2^31-1 ms; a larger deadline would fire at once. */
const MAX_SETTING = 2 ** 31 - 1;
const POLICIES: readonly ForgePolicy[] = ["strict", "prompt", "permissive"];

export interface ConfigProblem {
	variable: string;
	message: string;
}

/** Reads the configuration; a bad value falls back to its default and is reported, never fatal. */
export function readConfig(
	cwd: string,
	env: Record<string, string | undefined> = process.env,
): { config: ForgeConfig; problems: ConfigProblem[] } {
	const problems: ConfigProblem[] = [];
	const dir = env.PI_FORGE_DIR?.trim();
	const toolboxDir = dir ? (isAbsolute(dir) ? dir : resolve(cwd, dir)) : join(cwd, ".pi", "forge", "extensions");

	const positiveInt = (variable: string, fallback: number): number => {
		const raw = env[variable]?.trim();
		if (!raw) return fallback;
		const value = Number(raw);
		if (Number.isInteger(value) && value > 0 && value <= MAX_SETTING) return value;
		problems.push({ variable, message: `${variable}=${raw} is not a positive integer up to ${MAX_SETTING}; using ${fallback}` });
		return fallback;
	};

	const rawPolicy = env.PI_FORGE_POLICY?.trim().toLowerCase();
	let policy: ForgePolicy = "prompt";
	if (rawPolicy) {
		if ((POLICIES as readonly string[]).includes(rawPolicy)) policy = rawPolicy as ForgePolicy;
		else problems.push({ variable: "PI_FORGE_POLICY", message: `PI_FORGE_POLICY=${rawPolicy} is not one of ${POLICIES.join(", ")}; using prompt` });
	}

	return {
		config: {
			toolboxDir,
			timeoutMs: positiveInt("PI_FORGE_TIMEOUT_MS", DEFAULT_TIMEOUT_MS),
			maxMemoryMb: positiveInt("PI_FORGE_MAX_MEMORY_MB", DEFAULT_MAX_MEMORY_MB),
			policy,
			cwd,
		},
		problems,
	};
}
