// Locations no forged tool may write under any policy: what Agent Forge keeps (the toolbox, its settings and grants,
// its runner), and what pi, git or another agent later runs or trusts as instructions (`.pi/`, `.git/`, git hooks,
// agent instruction files, pi's agent dir, pi's and Node's caches in the temp dir). A folder above one of them is
// protected too (renaming or removing it would take the location with it).
import { basename, join } from "node:path";
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
}

/** File names agents read as instructions, wherever they are in the project (compared without case). */
export const INSTRUCTION_FILES: readonly string[] = [
	"agents.md",
	"agent.md",
	"claude.md",
	"claude.local.md",
	"gemini.md",
	".cursorrules",
	".windsurfrules",
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
	];
}

/** What a write to `path` would touch that is protected; undefined when the write is not refused for that. */
export function protectedTarget(path: string, locations: readonly ProtectedLocation[]): string | undefined {
	for (const location of locations) {
		if (isInside(path, location.path)) return location.what;
		if (isInside(location.path, path)) return `a folder that holds ${location.what}`;
	}
	if (INSTRUCTION_FILES.includes(basename(path).toLowerCase())) return `an agent instruction file (${basename(path)})`;
	return undefined;
}
