// The forge's render step (order: toolbox/forge-pipeline.ts): render `forge-<name>.ts` from the template, the metadata
// and the logic.

export interface RenderInput {
	name: string;
	description: string;
	parameters: Record<string, unknown>;
	/** The TypeScript body of `execute`. Leading single-line `import` statements are hoisted to the module header. */
	logic: string;
}

export interface RenderedTool {
	source: string;
	/** Line of the rendered file where the (non-hoisted) logic starts, 1-based. */
	logicStartLine: number;
	hoistedImports: string[];
}

/** `import … from "x"`, `import "x"`, and TypeScript's `import x = require("x")`: one line each. */
const IMPORT_LINE =
	/^\s*import\s+(?:type\s+)?(?:(?:[\w*{}\s,$]+\s+from\s+)?["'][^"']+["']|[\w$]+\s*=\s*require\(\s*["'][^"']+["']\s*\))\s*;?\s*$/;
const SKIPPABLE = /^\s*(?:\/\/.*)?$/;

/** Where a hoisted import stood in the logic: keeps every later line on its own number (and maps errors back). */
export const HOISTED_MARKER = "// ↑ import moved to the top of the file";

/** Moves leading import lines to the module header; each leaves HOISTED_MARKER in its place, comments stay. */
export function hoistImports(logic: string): { imports: string[]; body: string } {
	const lines = logic.replace(/\r\n/g, "\n").split("\n");
	const imports: string[] = [];
	let index = 0;
	for (; index < lines.length; index++) {
		if (IMPORT_LINE.test(lines[index])) imports.push(lines[index].trim());
		else if (!SKIPPABLE.test(lines[index])) break;
	}
	if (imports.length === 0) return { imports, body: lines.join("\n") };
	const head = lines.slice(0, index).map((line) => (IMPORT_LINE.test(line) ? HOISTED_MARKER : line));
	return { imports, body: [...head, ...lines.slice(index)].join("\n") };
}

export function renderTool(template: string, input: RenderInput): RenderedTool {
	const { imports, body } = hoistImports(input.logic);
	const values: Record<string, string> = {
		name: JSON.stringify(input.name),
		description: JSON.stringify(input.description),
		parameters: indentAfterFirstLine(JSON.stringify(input.parameters, null, "\t"), "\t"),
		imports: imports.length > 0 ? `${imports.join("\n")}\n` : "",
		logic: body.replace(/\s+$/, ""),
	};
	const fill = (text: string) => text.replace(/\{\{(\w+)\}\}/g, (match, key: string) => values[key] ?? match);
	const marker = template.indexOf("{{logic}}");
	const prefix = fill(template.slice(0, marker));
	const source = prefix + values.logic + fill(template.slice(marker + "{{logic}}".length));
	return { source, logicStartLine: prefix.split("\n").length, hoistedImports: imports };
}

function indentAfterFirstLine(text: string, indent: string): string {
	return text.replace(/\n/g, `\n${indent}`);
}

export interface ExtractedLogic {
	/**
	 * The logic as forge_tool takes it: the body of `execute`, with the imports the forge moved to the header put back.
	 */
	logic: string;
	/** Lines of the file the body of `execute` spans, 1-based, inclusive. */
	startLine: number;
	endLine: number;
	/** Whether imports were put back (then `logic` differs from the file's lines). */
	restoredImports: boolean;
}

/**
 * The inverse of `renderTool` for a file in the template's shape: the logic to pass to forge_tool again. Undefined
 * when the file is not in that shape (a hand-written file), so no wrong logic is ever offered.
 */
export function extractLogic(source: string): ExtractedLogic | undefined {
	const lines = source.split("\n");
	const execute = lines.findIndex((line) => /^export\s+async\s+function\s+execute\s*\(.*\{\s*$/.test(line));
	const closing = lines.findLastIndex((line) => /^\}\s*$/.test(line));
	const metadata = lines.findIndex((line) => line.startsWith("export const metadata"));
	if (execute < 0 || closing <= execute || metadata < 0) return undefined;
	const body = lines.slice(execute + 1, closing);
	// The template's own two imports come first; the hoisted ones follow them.
	const hoisted = lines
		.slice(0, metadata)
		.filter((line) => /^import\s/.test(line))
		.slice(2);
	const markers = body.filter((line) => line.trim() === HOISTED_MARKER).length;
	if (markers !== hoisted.length) return undefined;
	let next = 0;
	const logic = body.map((line) => (line.trim() === HOISTED_MARKER ? hoisted[next++] : line)).join("\n");
	return { logic, startLine: execute + 2, endLine: closing, restoredImports: hoisted.length > 0 };
}
