// pi's built-in tools for forged tools: `pi.useTool("read", …)` inside `execute` runs pi's own read, grep, find, ls,
// bash, write or edit tool, built per call with file and command operations that act as the calling tool (its
// policy, grants and protected locations decide, as for its own file access and commands). Resolves to the tool's text.
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { type BuiltinTool, type CallerOperations, isBuiltinTool } from "../contract/tool-calls.ts";
import { sharedChecker } from "../run/bounded-checker.ts";
import { compileSchema } from "../schema/ajv.ts";
import {
	createBashToolDefinition,
	createEditToolDefinition,
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
} from "./pi-exports.ts";

/** What find walks past, as pi's find does with fd. */
const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);
/** How long matching find's pattern against one folder's files may take (off pi's main thread). */
const GLOB_BOUND_MS = 2_000;
/**
 * The most a forged tool may ask of grep, find and ls: pi's tools gather every match up to `limit` in pi's process
 * before they cut the text to its size cap, so a larger limit only costs pi memory and time.
 */
const MAX_LIMIT = 1_000;
const MAX_CONTEXT = 10;
/**
 * Thrown by edit's write once the file is written: pi's edit goes on to diff the old text against the new in pi's
 * process (for its details, which a forged tool never gets), in time that grows with the square of a large change.
 */
const EDIT_WRITTEN = new Error("Agent Forge: the edit is written");

interface BuiltinDefinition {
	parameters: unknown;
	prepareArguments?: (args: unknown) => unknown;
	execute(
		id: string,
		params: unknown,
		signal: AbortSignal | undefined,
		onUpdate: undefined,
		ctx: unknown,
	): Promise<{ content: Array<{ type: string; text?: string }> }>;
}

function definitionOf(
	name: BuiltinTool,
	cwd: string,
	ops: CallerOperations,
	signal: AbortSignal | undefined,
): BuiltinDefinition {
	const operations = {
		read: {
			readFile: ops.readFile,
			access: (path: string) => ops.access(path, false),
			detectImageMimeType: async () => null,
		},
		ls: { exists: ops.exists, stat: ops.stat, readdir: ops.readdir },
		find: {
			exists: ops.exists,
			glob: (pattern: string, dir: string, o: { limit: number }) => glob(ops, pattern, dir, o.limit, signal),
		},
		grep: { isDirectory: async (path: string) => (await ops.searchable(path)).isDirectory, readFile: ops.readText },
		write: { writeFile: ops.writeFile, mkdir: ops.mkdir },
		edit: {
			readFile: ops.readFile,
			writeFile: async (path: string, content: string) => {
				await ops.writeFile(path, content);
				throw EDIT_WRITTEN;
			},
			access: (path: string) => ops.access(path, true),
		},
		bash: { exec: ops.shell },
	};
	const create = {
		read: createReadToolDefinition,
		ls: createLsToolDefinition,
		find: createFindToolDefinition,
		grep: createGrepToolDefinition,
		write: createWriteToolDefinition,
		edit: createEditToolDefinition,
		bash: createBashToolDefinition,
	}[name] as (cwd: string, options: { operations: unknown; exposeSessionEnvironment?: boolean }) => unknown;
	// bash: the command sees the caller's environment (the shell operation's), never pi's session variables.
	return create(cwd, { operations: operations[name], exposeSessionEnvironment: false }) as BuiltinDefinition;
}

/**
 * Runs pi's built-in `name` with `args` as the calling tool: arguments are checked against the tool's own schema, and
 * the text of its result is returned. A refused file access or command throws the caller's permission error.
 */
export async function runBuiltinTool(
	name: string,
	args: unknown,
	context: { cwd: string; signal?: AbortSignal; ops: CallerOperations },
): Promise<string> {
	if (!isBuiltinTool(name)) throw new Error(`'${name}' is not one of pi's built-in tools.`);
	const definition = definitionOf(name, context.cwd, context.ops, context.signal);
	const prepared = definition.prepareArguments ? definition.prepareArguments(args) : args;
	const validate = compileSchema(definition.parameters as Record<string, unknown>);
	if (!validate(prepared)) {
		const problems = (validate.errors ?? []).map((e) => `${e.instancePath || "args"} ${e.message}`).join("; ");
		throw new Error(`pi.useTool("${name}"): the arguments do not fit ${name}'s parameters: ${problems}.`);
	}
	// pi's grep, find and ls turn a failed look at their folder into "Path not found": a refusal is said as one first.
	if (name === "grep" || name === "find" || name === "ls") {
		const path = (prepared as { path?: unknown }).path;
		await context.ops.searchable(resolve(context.cwd, typeof path === "string" ? path : "."));
	}
	const bounded = withBoundedLimits(name, prepared);
	let result: Awaited<ReturnType<BuiltinDefinition["execute"]>>;
	try {
		result = await definition.execute(`forge-${name}`, bounded.args, context.signal, undefined, {
			cwd: context.cwd,
			hasUI: false,
		});
	} catch (error) {
		if (error !== EDIT_WRITTEN) throw error;
		// What pi's edit says once the file is written (the diff it would make next is for its own details).
		const { edits, path } = prepared as { edits?: unknown[]; path?: unknown };
		return `Successfully replaced ${edits?.length ?? 1} block(s) in ${String(path)}.`;
	}
	const text = result.content
		.filter((block) => block.type === "text")
		.map((block) => block.text ?? "")
		.join("\n");
	const shown = name === "grep" ? withoutHidden(text, prepared, context) : text;
	return bounded.note ? `${shown}\n\n[${bounded.note}]` : shown;
}

/** grep's, find's and ls's limit (and grep's context) held to what a forged tool may ask, saying so when lowered. */
function withBoundedLimits(name: BuiltinTool, args: unknown): { args: unknown; note?: string } {
	if (name !== "grep" && name !== "find" && name !== "ls") return { args };
	const given = args as { limit?: unknown; context?: unknown };
	const lowered: string[] = [];
	const bounded: Record<string, unknown> = { ...(args as Record<string, unknown>) };
	if (typeof given.limit === "number" && given.limit > MAX_LIMIT) {
		bounded.limit = MAX_LIMIT;
		lowered.push(`limit ${given.limit} → ${MAX_LIMIT}`);
	}
	if (name === "grep" && typeof given.context === "number" && given.context > MAX_CONTEXT) {
		bounded.context = MAX_CONTEXT;
		lowered.push(`context ${given.context} → ${MAX_CONTEXT}`);
	}
	return lowered.length
		? { args: bounded, note: `For a forged tool, ${name}'s ${lowered.join(" and ")} (the most it may ask)` }
		: { args };
}

/**
 * pi's grep runs ripgrep, which reads every file under its folder: the lines it found in a file no forged tool may read
 * (the toolbox's health file and audit log) are left out. A line is `path:N: text` or, around a match, `path-N- text`.
 */
function withoutHidden(text: string, args: unknown, context: { cwd: string; ops: CallerOperations }): string {
	const path = (args as { path?: unknown }).path;
	const root = resolve(context.cwd, typeof path === "string" ? path : ".");
	// The files no tool may read are known by their real paths; pi's cwd may be reached through a link.
	let realRoot = root;
	try {
		realRoot = realpathSync(root);
	} catch {
		// gone meanwhile: ripgrep found nothing there either
	}
	const hidden = (file: string) =>
		context.ops.hidden(resolve(root, file)) || context.ops.hidden(resolve(realRoot, file));
	const rootHidden = context.ops.hidden(root) || context.ops.hidden(realRoot);
	return text
		.split("\n")
		.filter((line) => {
			const file = /^(.+?)(?::\d+:|-\d+-)/.exec(line)?.[1];
			return !(file && (rootHidden || hidden(file)));
		})
		.join("\n");
}

/**
 * find without fd: the files under `dir` (links not followed) whose name, or path if the pattern has a `/`, matches;
 * absolute. The pattern is the calling tool's, so it is matched in the bounded checker, a folder at a time.
 */
async function glob(
	ops: CallerOperations,
	pattern: string,
	dir: string,
	limit: number,
	signal: AbortSignal | undefined,
): Promise<string[]> {
	const onPath = pattern.includes("/");
	const full = onPath && !pattern.startsWith("**/") ? `**/${pattern}` : pattern;
	const found: string[] = [];
	const pending = [""];
	while (pending.length && found.length < limit) {
		if (signal?.aborted) throw new Error("aborted");
		const relativeDir = pending.shift()!;
		const files: string[] = [];
		for (const entry of await ops.list(relativeDir ? `${dir}/${relativeDir}` : dir)) {
			const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
			if (!entry.folder) files.push(relative);
			else if (!SKIPPED_FOLDERS.has(entry.name)) pending.push(relative);
		}
		if (!files.length) continue;
		const subjects = onPath ? files : files.map((file) => file.slice(file.lastIndexOf("/") + 1));
		const verdict = await sharedChecker().globMatches(full, subjects, GLOB_BOUND_MS, signal);
		if (verdict === "timeout" || !Array.isArray(verdict))
			throw new Error(
				`find: the pattern ${JSON.stringify(pattern.slice(0, 200))} could not be matched (${verdict === "timeout" ? `over ${GLOB_BOUND_MS} ms for one folder` : verdict.error}): use a simpler glob, such as "*.ts" or "src/**/*.json".`,
			);
		for (const [index, file] of files.entries()) {
			if (!verdict[index]) continue;
			found.push(`${dir}/${file}`);
			if (found.length >= limit) break;
		}
	}
	return found;
}
