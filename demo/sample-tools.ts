// The sample toolbox shipped in extensions/: three small tools, forged by the real pipeline (see build-samples.ts).
import type { ForgeRequest } from "../src/toolbox/forge-pipeline.ts";

export const SAMPLE_TOOLS: ForgeRequest[] = [
	{
		name: "word-count",
		description: "Count the words, lines and characters of a text.",
		parametersSchema: {
			type: "object",
			properties: { text: { type: "string", description: "The text to count" } },
			required: ["text"],
		},
		logic: [
			"const text: string = params.text;",
			"const words = text.split(/\\s+/).filter(Boolean).length;",
			'const lines = text === "" ? 0 : text.split("\\n").length;',
			"return { words, lines, characters: text.length };",
		].join("\n"),
		tests: [
			{ args: { text: "one two\nthree" }, equals: { words: 3, lines: 2, characters: 13 } },
			{ args: { text: "" }, equals: { words: 0, lines: 0, characters: 0 } },
		],
	},
	{
		name: "json-pick",
		description: "Read a JSON file of the project and return the value at a dotted path (e.g. 'scripts.test').",
		parametersSchema: {
			type: "object",
			properties: {
				file: { type: "string", description: "JSON file, relative to the project" },
				path: {
					type: "string",
					description: "Dotted path such as 'dependencies.react'; empty for the whole document",
				},
			},
			required: ["file"],
		},
		logic: [
			'import { readFile } from "node:fs/promises";',
			'import { resolve } from "node:path";',
			'const data = JSON.parse(await readFile(resolve(ctx.cwd, params.file), "utf8"));',
			'const keys = (params.path ?? "").split(".").filter(Boolean);',
			"let value: unknown = data;",
			"for (const key of keys) {",
			"\tif (value === null || typeof value !== \"object\" || !(key in value)) throw new Error(`No '${key}' in ${params.file} at '${keys.join(\".\")}'`);",
			"\tvalue = (value as Record<string, unknown>)[key];",
			"}",
			"return value;",
		].join("\n"),
		tests: [{ args: { file: "no-such-file.json" }, expectError: "ENOENT" }],
	},
	{
		name: "todo-scan",
		description: "Find TODO and FIXME comments in the project's source files, with file and line.",
		parametersSchema: {
			type: "object",
			properties: {
				dir: { type: "string", description: "Directory to scan, relative to the project (default '.')" },
				limit: { type: "integer", description: "Most matches to return (default 50)", minimum: 1 },
			},
		},
		logic: [
			'import { readdir, readFile } from "node:fs/promises";',
			'import { join, relative } from "node:path";',
			'const root = join(ctx.cwd, params.dir ?? ".");',
			"const limit = params.limit ?? 50;",
			"const hits: string[] = [];",
			"const walk = async (dir: string): Promise<void> => {",
			"\tfor (const entry of await readdir(dir, { withFileTypes: true })) {",
			'\t\tif (hits.length >= limit || entry.name.startsWith(".") || entry.name === "node_modules") continue;',
			"\t\tconst path = join(dir, entry.name);",
			"\t\tif (entry.isDirectory()) await walk(path);",
			"\t\telse if (/\\.(ts|js|py|go|rs|md)$/.test(entry.name)) {",
			'\t\t\t(await readFile(path, "utf8")).split("\\n").forEach((line, i) => {',
			"\t\t\t\tif (hits.length < limit && /\\b(TODO|FIXME)\\b/.test(line)) hits.push(`${relative(ctx.cwd, path)}:${i + 1}: ${line.trim()}`);",
			"\t\t\t});",
			"\t\t}",
			"\t}",
			"};",
			"await walk(root);",
			'return hits.length ? hits.join("\\n") : "No TODO or FIXME found.";',
		].join("\n"),
		tests: [{ args: { dir: "no-such-dir" }, expectError: "ENOENT" }],
	},
];
