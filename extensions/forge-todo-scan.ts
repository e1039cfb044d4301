// Forged by Agent Forge. Edit freely: the forge re-checks this file when it changes.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

export const metadata = {
	name: "todo-scan",
	description: "Find TODO and FIXME comments in the project's source files, with file and line.",
	parameters: {
		"type": "object",
		"properties": {
			"dir": {
				"type": "string",
				"description": "Directory to scan, relative to the project (default '.')"
			},
			"limit": {
				"type": "integer",
				"description": "Most matches to return (default 50)",
				"minimum": 1
			}
		}
	},
};

export async function execute(params: any, pi: ExtensionAPI, ctx: any): Promise<unknown> {
const root = join(ctx.cwd, params.dir ?? ".");
const limit = params.limit ?? 50;
const hits: string[] = [];
const walk = async (dir: string): Promise<void> => {
	for (const entry of await readdir(dir, { withFileTypes: true })) {
		if (hits.length >= limit || entry.name.startsWith(".") || entry.name === "node_modules") continue;
		const path = join(dir, entry.name);
		if (entry.isDirectory()) await walk(path);
		else if (/\.(ts|js|py|go|rs|md)$/.test(entry.name)) {
			(await readFile(path, "utf8")).split("\n").forEach((line, i) => {
				if (hits.length < limit && /\b(TODO|FIXME)\b/.test(line)) hits.push(`${relative(ctx.cwd, path)}:${i + 1}: ${line.trim()}`);
			});
		}
	}
};
await walk(root);
return hits.length ? hits.join("\n") : "No TODO or FIXME found.";
}
