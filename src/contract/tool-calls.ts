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
