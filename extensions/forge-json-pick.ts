// Forged by Agent Forge. Edit freely: the forge re-checks this file when it changes.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";

export const metadata = {
	name: "json-pick",
	description: "Read a JSON file of the project and return the value at a dotted path (e.g. 'scripts.test').",
	parameters: {
		"type": "object",
		"properties": {
			"file": {
				"type": "string",
				"description": "JSON file, relative to the project"
			},
			"path": {
				"type": "string",
				"description": "Dotted path such as 'dependencies.react'; empty for the whole document"
			}
		},
		"required": [
			"file"
		]
	},
};

export async function execute(params: any, pi: ExtensionAPI, ctx: any): Promise<unknown> {
const data = JSON.parse(await readFile(resolve(ctx.cwd, params.file), "utf8"));
const keys = (params.path ?? "").split(".").filter(Boolean);
let value: unknown = data;
for (const key of keys) {
	if (value === null || typeof value !== "object" || !(key in value)) throw new Error(`No '${key}' in ${params.file} at '${keys.join(".")}'`);
	value = (value as Record<string, unknown>)[key];
}
return value;
}
