// The tools the benchmarks forge: realistic few-line logic, distinct per index.
import type { ForgeRequest } from "../src/toolbox/forge-pipeline.ts";

export interface ToolSpec extends ForgeRequest {
	name: string;
	description: string;
	parametersSchema: Record<string, unknown>;
	logic: string;
}

/** Tool `i`: one of five realistic shapes, with constants varied by `i` so no two sources are the same. */
export function toolSpec(prefix: string, i: number): ToolSpec {
	const k = (i % 7) + 2;
	const sep = [",", ";", "\\t", "|"][i % 4];
	const kinds: Array<Omit<ToolSpec, "name">> = [
		{
			description: `Scales numbers by ${k} and returns their total and mean.`,
			parametersSchema: {
				type: "object",
				properties: { values: { type: "array", items: { type: "number" } } },
				required: ["values"],
			},
			logic: `const scaled = params.values.map((x: number) => x * ${k});\nconst total = scaled.reduce((a: number, b: number) => a + b, 0);\nreturn { total, mean: total / (scaled.length || 1), id: ${i} };`,
		},
		{
			description: `Returns the ${k} most frequent words of a text.`,
			parametersSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
			logic: `const words = String(params.text).split(/\\s+/).filter(Boolean);\nconst counts: Record<string, number> = {};\nfor (const w of words) counts[w.toLowerCase()] = (counts[w.toLowerCase()] ?? 0) + 1;\nreturn Object.entries(counts).sort((a, b) => b[1] - a[1]).slice(0, ${k + i});`,
		},
		{
			description: `Groups file paths by extension (variant ${i}).`,
			parametersSchema: {
				type: "object",
				properties: { files: { type: "array", items: { type: "string" } } },
				required: ["files"],
			},
			logic: `import { basename, extname } from "node:path";\nconst groups: Record<string, string[]> = {};\nfor (const file of params.files as string[]) {\n\tconst ext = extname(file) || "(none-${i})";\n\t(groups[ext] ??= []).push(basename(file));\n}\nreturn groups;`,
		},
		{
			description: `Returns up to ${k * 10} lines of a file that contain a needle.`,
			parametersSchema: {
				type: "object",
				properties: { path: { type: "string" }, needle: { type: "string" } },
				required: ["path", "needle"],
			},
			logic: `import { readFile } from "node:fs/promises";\nconst text = await readFile(params.path, "utf8");\nconst hits = text.split("\\n").filter((l) => l.includes(params.needle));\nreturn hits.slice(0, ${k * 10 + i}).join("\\n");`,
		},
		{
			description: `Parses '${sep}'-separated text with a header row into objects.`,
			parametersSchema: {
				type: "object",
				properties: { csv: { type: "string" }, limit: { type: "integer", default: i + 1 } },
				required: ["csv"],
			},
			logic: `const [head, ...rows] = String(params.csv).trim().split("\\n").map((r) => r.split("${sep}"));\nreturn rows.slice(0, params.limit).map((r) => Object.fromEntries(head.map((h, j) => [h.trim(), r[j]?.trim()])));`,
		},
	];
	return { name: `${prefix}-${["scale", "topwords", "byext", "grep", "csv"][i % 5]}-${i}`, ...kinds[i % 5] };
}

/** Valid arguments for tool `i` of toolSpec; `samplePath` is a text file the grep shape may read (absolute). */
export function toolArgs(i: number, samplePath: string): Record<string, unknown> {
	switch (i % 5) {
		case 0:
			return { values: [1, 2, 3, 4, i] };
		case 1:
			return { text: "the quick brown fox jumps over the lazy dog the end" };
		case 2:
			return { files: ["src/a.ts", "src/b.ts", "README.md", "Makefile"] };
		case 3:
			return { path: samplePath, needle: "forge" };
		default:
			return { csv: "name,size\nalpha,1\nbeta,2\ngamma,3" };
	}
}
