// Which pi the tests drive: the current line (`@earendil-works/*`, the default) or the legacy one
// (`@mariozechner/*` 0.73.x), chosen with FORGE_PI_LINE=legacy. Both are devDependencies; CI runs the end-to-end tests
// on each. Everything a test needs from pi comes through here, so one test source serves both lines.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export type PiLine = "current" | "legacy";

export const PI_LINE: PiLine = process.env.FORGE_PI_LINE === "legacy" ? "legacy" : "current";
const SCOPE = PI_LINE === "legacy" ? "@mariozechner" : "@earendil-works";
const REPO = resolve(import.meta.dirname, "../..");
const AGENT_DIR = join(REPO, "node_modules", SCOPE, "pi-coding-agent");

/** pi's command line, as its package.json `bin` names it: run it with `process.execPath` (`spawn(process.execPath, [PI_CLI, …])`). */
export const PI_CLI = (() => {
	const bin = (
		JSON.parse(readFileSync(join(AGENT_DIR, "package.json"), "utf8")) as { bin: string | Record<string, string> }
	).bin;
	return join(AGENT_DIR, typeof bin === "string" ? bin : bin.pi);
})();

/** The pi version under test, e.g. "0.87.1". */
export const PI_VERSION = (JSON.parse(readFileSync(join(AGENT_DIR, "package.json"), "utf8")) as { version: string })
	.version;

// The current line's API as the type: the legacy one is a subset of what the tests use, and the harness adapts the rest.
type CodingAgent = typeof import("@earendil-works/pi-coding-agent");
type AiCompat = typeof import("@earendil-works/pi-ai/compat");

export const codingAgent: CodingAgent = await import(join(AGENT_DIR, "dist", "index.js"));
export const piAi: AiCompat = await import(
	PI_LINE === "legacy"
		? join(dirname(AGENT_DIR), "pi-ai", "dist", "index.js")
		: join(dirname(AGENT_DIR), "pi-ai", "dist", "compat.js")
);
