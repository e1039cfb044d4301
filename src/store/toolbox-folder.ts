// Whether a toolbox folder may be used at all. A project's toolbox (`.pi/forge/extensions`) is reached through folders
// a cloned repository made: each of them must be a real folder, never a link (a link would make the toolbox, say, pi's
// own extensions folder, whose files pi loads as code). Any toolbox's real path must not be a folder pi loads code or
// instructions from, nor a folder right in one (pi looks one level down: `extensions/<name>/index.ts`); deeper is a
// project of its own (an extension being written in `extensions/<name>/` has its toolbox there).
import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import type { ConfigProblem } from "../contract/config.ts";
import { kindOf } from "./safe-fs.ts";

/** The folders under an agent dir (or a project's `.pi`) whose files pi loads: no toolbox may be in one. */
const PI_LOADS = ["extensions", "skills", "prompts", "themes"];

export interface ToolboxFolderOptions {
	/** The project whose own toolbox this is (`<project>/.pi/forge/extensions`); unset for PI_FORGE_DIR and the user's. */
	project?: string;
	/** pi's agent dir. */
	agentDir: string;
}

/** Why the toolbox folder must not be used (a sentence), or undefined when it may be. */
export async function unsafeToolboxFolder(
	toolboxDir: string,
	options: ToolboxFolderOptions,
): Promise<string | undefined> {
	if (options.project) {
		const parts = relative(options.project, toolboxDir).split(sep);
		let path = options.project;
		for (const part of parts) {
			path = join(path, part);
			const kind = await kindOf(path).catch(() => "other" as const);
			if (kind === "missing") break;
			if (kind !== "directory")
				return `${path} is ${kind === "link" ? "a symbolic link" : "not a folder"}: Agent Forge uses a project's toolbox only where every folder down to it is a real folder in the project, never a link, so this project's toolbox is not used`;
		}
	}
	const real = await realOfNearest(toolboxDir);
	const roots = [options.agentDir, ...(options.project ? [join(options.project, ".pi")] : [])];
	for (const root of roots)
		for (const loaded of PI_LOADS) {
			const inside = relative(await realOfNearest(join(root, loaded)), real);
			if (inside === "" || (!inside.startsWith("..") && !isAbsolute(inside) && inside.split(sep).length === 1))
				return `${toolboxDir} is ${real === toolboxDir ? "" : `(through a link, ${real}) `}inside ${join(root, loaded)}, whose files pi loads as code or instructions: Agent Forge does not use a toolbox there`;
		}
	return undefined;
}

/** The real path of `path`, or of its nearest existing folder with the rest appended (a toolbox not made yet). */
async function realOfNearest(path: string): Promise<string> {
	try {
		return await realpath(path);
	} catch {
		const parent = dirname(path);
		return parent === path ? path : join(await realOfNearest(parent), basename(path));
	}
}

/** The toolbox's own files and folders, and what becomes of a link (or a file for a folder) found in its place. */
const OWN_ENTRIES: Record<string, string> = {
	".forge-audit.jsonl": "the audit log is written as a file of its own in its place",
	".forge-audit.jsonl.1": "it is replaced when the audit log is next moved aside",
	".forge-health.json": "it is not read, and the usage record is written as a file of its own in its place",
	"forge-registry.json": "it is not read, and the registry is rebuilt as a file of its own in its place",
	".gitignore": "it is left as it is",
	".forge.lock": "changes to this toolbox are refused until it is removed",
	".forge-registry.lock": "registry saves are refused until it is removed",
	".staging": "it is removed (the link itself; what it points to is left alone)",
	".history": "no version history is kept or read until it is removed",
	".state": "the compile cache is off until it is removed",
};

/**
 * Links (or other entries of the wrong kind) at the places of the toolbox's own files and folders, each reported with
 * what Agent Forge does instead of following it. Tool files that are links are reported as broken tools instead.
 */
export async function linkedToolboxEntries(toolboxDir: string): Promise<ConfigProblem[]> {
	const problems: ConfigProblem[] = [];
	for (const [entry, instead] of Object.entries(OWN_ENTRIES)) {
		const path = join(toolboxDir, entry);
		const kind = await kindOf(path).catch(() => "missing" as const);
		const folder = entry === ".staging" || entry === ".history" || entry === ".state" || entry.endsWith(".lock");
		if (kind === "missing" || kind === (folder ? "directory" : "file")) continue;
		const what = kind === "link" ? "a symbolic link" : folder ? "not a folder" : "not a regular file";
		problems.push({
			origin: { file: path },
			message: `${path} is ${what} in the toolbox folder; Agent Forge does not follow it: ${instead}.`,
		});
	}
	return problems;
}
