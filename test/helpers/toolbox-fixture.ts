// A Toolbox on a fresh temp directory, with helpers to read what is on disk.
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfig } from "../../src/config.ts";
import { InlineRunner } from "../../src/run/inline-runner.ts";
import type { RunHost } from "../../src/run/runner.ts";
import type { ForgeRequest } from "../../src/toolbox/forge-pipeline.ts";
import { createToolbox } from "../../src/toolbox/open-toolbox.ts";
import type { Toolbox } from "../../src/toolbox/toolbox.ts";

export const host: RunHost = { pi: {}, hasUI: false, notify() {} };

export async function tempToolbox(
	env: Record<string, string> = {},
): Promise<{ toolbox: Toolbox; cwd: string; dir: string; reopen(): Promise<Toolbox> }> {
	const cwd = await mkdtemp(join(tmpdir(), "forge-it-"));
	const make = async () => {
		const toolbox = createToolbox(readConfig(cwd, env).config, new InlineRunner());
		await toolbox.open();
		return toolbox;
	};
	const toolbox = await make();
	return { toolbox, cwd, dir: toolbox.config.toolboxDir, reopen: make };
}

/** Every file in the toolbox (recursively, including staging) with its content: compare before/after to prove nothing changed. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
		if (!entry.isFile()) continue;
		const path = join(entry.parentPath, entry.name);
		out[path.slice(dir.length + 1)] = await readFile(path, "utf8");
	}
	return out;
}

export function toolRequest(name: string, logic: string, overrides: Partial<ForgeRequest> = {}): ForgeRequest {
	return {
		name,
		description: `The ${name} tool.`,
		parametersSchema: {
			type: "object",
			properties: { text: { type: "string", description: "Input text" } },
			required: ["text"],
		},
		logic,
		...overrides,
	};
}
