// Regenerates the sample toolbox in extensions/ with the real forge pipeline: `node --import jiti/register demo/build-samples.ts`.
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { readConfig } from "../src/config.ts";
import { InlineRunner } from "../src/run/inline-runner.ts";
import { createToolbox } from "../src/toolbox/open-toolbox.ts";
import { SAMPLE_TOOLS } from "./sample-tools.ts";

const dir = fileURLToPath(new URL("../extensions/", import.meta.url));
await rm(dir, { recursive: true, force: true });
const toolbox = createToolbox(readConfig(process.cwd(), { PI_FORGE_DIR: dir }).config, new InlineRunner());
await toolbox.open();
for (const request of SAMPLE_TOOLS) {
	const result = await toolbox.forge(request, new Map());
	if (!result.ok) throw result.error;
	console.log(`forged ${result.value.meta.name} v${result.value.meta.version}`);
}
await toolbox.close();
// The sample is the tools' own files (and the registry): no history, caches, health or audit of this build.
for (const local of [".forge-health.json", ".forge-audit.jsonl", ".history", ".state"])
	await rm(`${dir}${local}`, { recursive: true, force: true });
