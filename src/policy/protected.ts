// Locations no forged tool may write under any policy: what Agent Forge keeps (the toolbox, its settings and grants,
// its runner), and what pi, git or another agent later runs or trusts as instructions (`.pi/`, `.git/`, git hooks,
// agent instruction files, pi's agent dir, pi's and Node's caches in the temp dir). A folder above one of them is
// protected too (renaming or removing it would take the location with it).
import { basename, join, relative, sep } from "node:path";
import { isInside } from "./paths.ts";

export interface ProtectedLocation {
	/** A real path: a folder (everything in it) or a file. */
	path: string;
	/** What it is, for the refusal. */
	what: string;
}

export interface ProtectedContext {
	/** Real paths. */
	projectDir: string;
	tempDir: string;
	agentDir: string;
	toolboxDir: string;
	forgeHome: string;
	/** Further folders (the runner's bundle, a test's settings). */
	extra?: string[];
	/** The installations pi runs code from (installations.ts): Agent Forge's package, pi's, Node's. */
	installations?: readonly ProtectedLocation[];
	/** The user's home and XDG config folder: git's, ssh's, the shell's and other agents' settings in them. */
	homeDir?: string;
	configHome?: string;
}

/**
 * Instruction files as agents name them at the top of a project (pi reads `AGENTS.override.md` instead of AGENTS.md):
 * held for granted commands even where they do not exist, so no command creates one.
 */
export const CANONICAL_INSTRUCTION_FILES: readonly string[] = [
	"AGENTS.override.md",
	"AGENTS.md",
	"AGENT.md",
	"CLAUDE.md",
	"CLAUDE.local.md",
	"GEMINI.md",
	".cursorrules",
	".windsurfrules",
];

/** File names agents read as instructions, wherever they are in the project (compared without case). */
export const INSTRUCTION_FILES: readonly string[] = [
	...CANONICAL_INSTRUCTION_FILES.map((name) => name.toLowerCase()),
	"copilot-instructions.md",
];

export function protectedLocations(context: ProtectedContext): ProtectedLocation[] {
	const { projectDir, tempDir } = context;
	return [
		{ path: context.toolboxDir, what: "the toolbox" },
		{ path: context.forgeHome, what: "Agent Forge's settings and grants" },
		{ path: context.agentDir, what: "pi's agent dir (its extensions, settings and credentials)" },
		{ path: join(projectDir, ".pi"), what: ".pi/ (pi loads extensions, settings and prompts from it)" },
		{ path: join(projectDir, ".git"), what: ".git/ (git runs its hooks and reads its config from it)" },
		{ path: join(projectDir, ".husky"), what: ".husky/ (git hooks run at the next commit)" },
		{ path: join(projectDir, ".claude"), what: ".claude/ (another agent's settings and hooks)" },
		{ path: join(projectDir, ".cursor"), what: ".cursor/ (another agent's rules)" },
		{ path: join(tempDir, "jiti"), what: "pi's module cache (jiti), run at pi's next start" },
		{ path: join(tempDir, "node-compile-cache"), what: "Node's compile cache" },
		...(context.extra ?? []).map((path) => ({ path, what: "Agent Forge's own files" })),
		...(context.installations ?? []),
		...homeLocations(context.homeDir, context.configHome),
	];
}

/** The user's own configuration that git, ssh, the shell, package managers or other agents run or obey. */
const HOME_FILES: ReadonlyArray<[string, string]> = [
	[".gitconfig", "git"],
	[".git-credentials", "git"],
	[".ssh", "ssh"],
	[".gnupg", "gpg"],
	[".bashrc", "the shell"],
	[".bash_profile", "the shell"],
	[".bash_login", "the shell"],
	[".bash_logout", "the shell"],
	[".profile", "the shell"],
	[".zshrc", "the shell"],
	[".zshenv", "the shell"],
	[".zprofile", "the shell"],
	[".zlogin", "the shell"],
	[".inputrc", "the shell"],
	[".npmrc", "npm"],
	[".yarnrc", "yarn"],
	[".yarnrc.yml", "yarn"],
	[".pypirc", "pip"],
	[".netrc", "curl and git"],
	[".docker", "docker"],
	[".kube", "kubectl"],
	[".aws", "the AWS CLI"],
	[".claude", "Claude Code"],
	[".claude.json", "Claude Code"],
	[".codex", "Codex"],
	[".gemini", "Gemini CLI"],
	[".cursor", "Cursor"],
	[".agents", "pi and other agents (skills they load in every project)"],
	[".local/bin", "the shell (it is on the PATH)"],
	[".bin", "the shell (it may be on the PATH)"],
];
const CONFIG_DIRS: ReadonlyArray<[string, string]> = [
	["git", "git"],
	["fish", "the shell"],
	["systemd", "systemd"],
	["autostart", "the desktop session"],
	["gh", "GitHub's CLI"],
	["pip", "pip"],
	["Code", "VS Code"],
];

function homeLocations(home: string | undefined, configHome: string | undefined): ProtectedLocation[] {
	if (!home || home === "/") return [];
	const config = configHome || join(home, ".config");
	return [
		...HOME_FILES.map(([name, who]) => ({ path: join(home, name), what: `~/${name} (${who} runs or obeys it)` })),
		...CONFIG_DIRS.map(([name, who]) => ({
			path: join(config, name),
			what: `${join(config, name)} (${who} runs or obeys it)`,
		})),
	];
}

/**
 * Folders and files that pi, git or another agent runs or obeys wherever they sit — a nested repository's `.git`, a
 * sub-package's `.pi/` in a monorepo, editors' task files — named by their last parts, compared without case.
 */
const NESTED: ReadonlyArray<[string[], string]> = [
	[[".git"], "a .git folder (git runs hooks and its config's commands from it)"],
	[[".pi"], "a .pi folder (pi loads extensions and settings from it)"],
	[[".husky"], "a .husky folder (git hooks)"],
	[[".claude"], "a .claude folder (another agent's settings and hooks)"],
	[[".cursor"], "a .cursor folder (another agent's rules)"],
	[[".gemini"], "a .gemini folder (another agent's settings)"],
	[[".codex"], "a .codex folder (another agent's settings)"],
	[[".windsurf"], "a .windsurf folder (another agent's rules)"],
	[[".clinerules"], ".clinerules (another agent's rules)"],
	[[".roo"], "a .roo folder (another agent's rules)"],
	[[".continue"], "a .continue folder (another agent's settings)"],
	[[".amazonq"], "an .amazonq folder (another agent's rules)"],
	[[".kiro"], "a .kiro folder (another agent's settings)"],
	[[".agents"], "a .agents folder (pi and other agents load skills from it)"],
	[[".devcontainer"], "a .devcontainer folder (commands run when the folder is opened)"],
	[[".mcp.json"], ".mcp.json (MCP servers: commands an agent starts)"],
	[[".envrc"], ".envrc (direnv runs it on cd)"],
	[[".aider.conf.yml"], ".aider.conf.yml (another agent's settings)"],
	[[".vscode", "tasks.json"], ".vscode/tasks.json (tasks run when the folder is opened)"],
	[[".vscode", "settings.json"], ".vscode/settings.json (an editor's and its agents' settings)"],
	[[".vscode", "launch.json"], ".vscode/launch.json (commands an editor runs)"],
	[[".vscode", "mcp.json"], ".vscode/mcp.json (MCP servers: commands an agent starts)"],
	[[".github", "instructions"], ".github/instructions (another agent's instructions)"],
	[[".github", "prompts"], ".github/prompts (another agent's prompts)"],
	[["node_modules", ".bin"], "node_modules/.bin (run by npm scripts)"],
];

/**
 * The nested names as paths at the top of a folder (`.mcp.json`, `.vscode/tasks.json`), for a granted command's OS
 * sandbox (bound read-only, or held where absent). `node_modules/.bin` is left out there: a command that installs
 * packages writes it, and could write any package's code beside it anyway.
 */
export function nestedPathsAt(dir: string): string[] {
	return NESTED.filter(([names]) => names[0] !== "node_modules").map(([names]) => join(dir, ...names));
}

/** What a nested protected name in `parts` is, if any part sequence matches one. */
function nestedTarget(parts: string[]): string | undefined {
	const lower = parts.map((part) => part.toLowerCase());
	for (let i = 0; i < lower.length; i++) {
		for (const [names, what] of NESTED) {
			if (names.every((name, j) => lower[i + j] === name)) return what;
		}
	}
	return undefined;
}

/**
 * What a write to `path` would touch that is protected; undefined when the write is not refused for that. `roots`
 * (the project, the temp dir): nested names count below the root that holds the path (the project itself may sit in
 * a folder named like one), or anywhere in a path outside them.
 */
export function protectedTarget(
	path: string,
	locations: readonly ProtectedLocation[],
	roots: readonly string[] = [],
): string | undefined {
	for (const location of locations) {
		if (isInside(path, location.path)) return location.what;
		if (isInside(location.path, path)) return `a folder that holds ${location.what}`;
	}
	const root = roots.find((dir) => isInside(path, dir));
	const nested = nestedTarget((root ? relative(root, path) : path).split(sep).filter(Boolean));
	if (nested) return nested;
	if (INSTRUCTION_FILES.includes(basename(path).toLowerCase())) return `an agent instruction file (${basename(path)})`;
	return undefined;
}
