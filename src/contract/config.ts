// The configuration's types: what src/config.ts reads once from the environment and the config files, and the
// composition root passes down. Here, at the bottom, so every layer can type what it is given without importing
// the module that reads the environment.

export type ForgePolicy = "strict" | "prompt" | "permissive";

/**
 * Why a project's toolbox is left out: pi does not trust the project (`pi`); the person told pi not to trust it, though
 * pi did not ask (`declined`); pi did not ask and nothing else says the person trusts it (`not-asked`: the project's
 * only pi folder is `.pi/forge`, and its toolbox was not made by this agent dir's Agent Forge); or the toolbox is
 * reached through a link or lies in a folder pi loads code from (`linked`: trust does not change that).
 */
export type UntrustedWhy = "pi" | "declined" | "not-asked" | "linked";

export interface ForgeConfig {
	/** The toolbox directory: `$PI_FORGE_DIR`, else `<cwd>/.pi/forge/extensions/`. */
	toolboxDir: string;
	/** Deadline of one forged-tool call (`PI_FORGE_TIMEOUT_MS`, default 30000). */
	timeoutMs: number;
	/** Heap cap of an isolated runner (`PI_FORGE_MAX_MEMORY_MB`, default 512). */
	maxMemoryMb: number;
	/**
	 * Capability policy (`PI_FORGE_POLICY`, else the global file, default `prompt`; a value that is not a policy means
	 * `strict`). The project's file may only make it stricter.
	 */
	policy: ForgePolicy;
	/** Where the policy in effect was set, for a person: `PI_FORGE_POLICY=strict`, `the default`, a file and key. */
	policyFrom?: string;
	/** Versions kept per tool in `.history/` (`PI_FORGE_HISTORY_LIMIT`, default 50). */
	historyLimit: number;
	/** Consecutive failed calls after which a tool is quarantined (`PI_FORGE_QUARANTINE_AFTER`, default 5). */
	quarantineAfter: number;
	/**
	 * `historyLimit` and `quarantineAfter` as the user set them, before a project's file lowered them: the user
	 * toolbox's own (a cloned repository's config must not prune the user's history or quarantine the user's tools).
	 */
	userLimits: { historyLimit: number; quarantineAfter: number };
	/**
	 * A toolbox lock not refreshed for this long belongs to a dead process and is taken over (`PI_FORGE_LOCK_STALE_MS`,
	 * default 5000, at least 2000).
	 */
	lockStaleMs: number;
	/** Most forged tools offered to the model as tools of their own at once (`PI_FORGE_ACTIVE_LIMIT`, default 12). */
	activeLimit: number;
	/** Characters the active set's schemas may add to every turn (`PI_FORGE_ACTIVE_CHARS`, default 1600). */
	activeChars: number;
	/** Tools always in the active set (`PI_FORGE_PINNED`, comma-separated, or `pinned` in a config file). */
	pinned: string[];
	/** The Node binary that runs the isolated runner (`PI_FORGE_NODE`; default: the Node that runs pi). */
	nodePath?: string;
	/**
	 * Whether a repeated kind of shell command earns a one-line suggestion to forge a tool (`PI_FORGE_SUGGEST`, default
	 * on).
	 */
	suggest: boolean;
	/** The OS sandbox around forged tools (`PI_FORGE_SANDBOX`): `auto` (bubblewrap where it works, default) or `off`. */
	sandbox: "auto" | "off";
	/** The project directory: pi's cwd. */
	cwd: string;
	/** pi's agent dir (`PI_CODING_AGENT_DIR`, else ~/.pi/agent). */
	agentDir: string;
	/** Agent Forge's own folder in the agent dir: grants, the runner's bundle, the global config file. */
	forgeHome: string;
	/**
	 * The user toolbox, seen from every project: `<agent dir>/forge/extensions/`. Undefined when PI_FORGE_DIR names that
	 * very folder (there is then one toolbox, the project's).
	 */
	userToolboxDir?: string;
	/** `<cwd>/.pi/forge/config.json`. */
	projectConfigFile: string;
	/**
	 * Whether pi trusts the project (pi's legacy line has no trust: always true). An untrusted project's config file
	 * is not read and its toolbox is not used.
	 */
	projectTrusted?: boolean;
	/** The project's toolbox that is not used because pi does not trust the project (`toolboxDir` is then the user's). */
	withheldToolboxDir?: string;
	/** Why an untrusted project's toolbox and config are left out (set when `projectTrusted` is false). */
	untrustedWhy?: UntrustedWhy;
	/** For `linked`: which folder, as a clause (`/p/.pi/forge/extensions is a symbolic link`). */
	untrustedDetail?: string;
	/**
	 * The environment variables any tool may see (`SAFE_ENV`) that pi's process has: what tools and their commands get.
	 */
	safeEnv: Record<string, string>;
	/**
	 * Values of pi's sensitive environment variables, longest first: hidden wherever text leaves for the model or a
	 * file.
	 */
	secretValues: string[];
	/** pi's process environment itself (not a copy): what a tool granted `env:NAME` is given. */
	env: Readonly<Record<string, string | undefined>>;
	/** The project directory through symlinks (macOS's /tmp is /private/tmp); `cwd` when it cannot be resolved. */
	realCwd: string;
	/** The user's home directory. */
	homeDir: string;
	/** The OS temp directory through symlinks. */
	realTempDir: string;
}

export interface ConfigProblem {
	/** Where the value came from: an environment variable, or a config file (and the key in it). */
	origin: { variable: string } | { file: string; key?: string };
	message: string;
}
