// Which tools a forged tool calls: the names given as a literal to `pi.useTool(…)` in its source. Read from the text
// (a call with a computed name is not seen), so `list_forge` can show what a tool calls and what calls it. Pure.
import { isForgeableName } from "./names.ts";

const USE_TOOL = /\.\s*useTool\s*\(\s*(["'`])([a-z][a-z0-9_-]{0,47})\1/g;

/** The distinct tool names `source` passes to `useTool` as a literal, in order of first appearance. */
export function calledTools(source: string): string[] {
	const names = new Set<string>();
	for (const match of source.matchAll(USE_TOOL)) names.add(match[2]);
	return [...names];
}

/** pi's built-in tools a forged tool may call through `pi.useTool`. */
export const BUILTIN_TOOLS = ["read", "grep", "find", "ls", "bash", "write", "edit"] as const;
export type BuiltinTool = (typeof BUILTIN_TOOLS)[number];

export const isBuiltinTool = (name: string): name is BuiltinTool => (BUILTIN_TOOLS as readonly string[]).includes(name);

/** The forged tools among the calls (built-ins and names no tool could have left out). */
export const forgedCallees = (source: string): string[] =>
	calledTools(source).filter((name) => !isBuiltinTool(name) && isForgeableName(name));

/**
 * File and command operations that act as one calling tool: each checks what the caller may do (its policy, grants and
 * the protected locations) and throws the caller's permission error when refused. pi's built-ins run on these.
 */
export interface CallerOperations {
	readFile(path: string): Promise<Buffer>;
	readText(path: string): Promise<string>;
	/** Throws unless the caller may read (or, with `write`, write) `path` and it exists. */
	access(path: string, write: boolean): Promise<void>;
	exists(path: string): Promise<boolean>;
	stat(path: string): Promise<{ isDirectory(): boolean }>;
	readdir(path: string): Promise<string[]>;
	/** A folder's entries; a link is listed as a file and never followed. */
	list(path: string): Promise<Array<{ name: string; folder: boolean }>>;
	/** A file no forged tool may read (Agent Forge's own): what a search reads of it is left out. */
	hidden(path: string): boolean;
	/** Checks that the caller may read everything under `path` (grep's search reads it); says whether it is a folder. */
	searchable(path: string): Promise<{ isDirectory: boolean }>;
	writeFile(path: string, content: string): Promise<void>;
	mkdir(path: string): Promise<void>;
	/** Runs a shell command line as the caller's own commands run (its grant, its environment, the sandbox, its deadline). */
	shell(
		command: string,
		cwd: string,
		options: { onData: (data: Buffer) => void; signal?: AbortSignal; timeout?: number },
	): Promise<{ exitCode: number | null }>;
}
