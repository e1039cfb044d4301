// The real `pi` command line in json mode with the scripted model and Agent Forge loaded from this repository:
// one process, one or more prompts (each an agent run), the events it printed and how it ended.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { makeTempDir } from "./pi-harness.ts";
import { PI_CLI } from "./pi-line.ts";
import { trustProject } from "./trust-project.ts";

const REPO = resolve(import.meta.dirname, "../..");
const PROVIDER = join(REPO, "test", "fixtures", "scripted-provider.ts");

export interface JsonEvent {
	type: string;
	toolName?: string;
	isError?: boolean;
	result?: { content?: Array<{ type: string; text?: string }> };
}
export interface ToolEnd {
	tool?: string;
	isError?: boolean;
	text: string;
}

export interface PiJsonRun {
	code: number | null;
	stdout: string;
	stderr: string;
	events: JsonEvent[];
	/** The tool_execution_end events: tool, isError and the result's text. */
	ends: ToolEnd[];
}

/** Runs pi in `cwd` with `script` (the scripted provider's steps); `agentDir` defaults to a fresh one. */
export async function runPiJson(options: {
	cwd: string;
	script: unknown[];
	prompts: string[];
	agentDir?: string;
	env?: Record<string, string>;
	/** More of pi's options, e.g. `--approve` (trust the project for this run). */
	args?: string[];
	/** pi still running this long after it started is killed (its code is then null). */
	timeoutMs?: number;
	/** Load Agent Forge from this repository with `-e` (default); false for a pi that has it installed as a package. */
	extension?: boolean;
	/** Called with pi's process once it is started (e.g. to kill it at a chosen moment). */
	onSpawn?: (child: ChildProcess) => void;
}): Promise<PiJsonRun> {
	const agentDir = options.agentDir ?? (await makeTempDir("forge-cli-agent"));
	// A fresh agent dir of the helper trusts the project (trust-project.ts); tests of trust bring their own.
	if (!options.agentDir) await trustProject(agentDir, options.cwd);
	const scriptPath = join(agentDir, "script.json");
	await writeFile(scriptPath, JSON.stringify(options.script));
	const child = spawn(
		process.execPath,
		[
			PI_CLI,
			"--provider",
			"scripted",
			"--model",
			"s",
			"-e",
			PROVIDER,
			...(options.extension === false ? [] : ["-e", REPO]),
			"--no-session",
			"--mode",
			"json",
			...(options.args ?? []),
			...options.prompts,
		],
		{
			cwd: options.cwd,
			env: {
				...process.env,
				PI_CODING_AGENT_DIR: agentDir,
				PI_OFFLINE: "1",
				FORGE_SCRIPT: scriptPath,
				...options.env,
			},
			stdio: ["ignore", "pipe", "pipe"],
		},
	);
	options.onSpawn?.(child);
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (d) => (stdout += d));
	child.stderr.on("data", (d) => (stderr += d));
	const killer = options.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), options.timeoutMs) : undefined;
	const code = await new Promise<number | null>((done) => child.on("close", done));
	clearTimeout(killer);
	const events = stdout
		.split("\n")
		.filter((line) => line.startsWith("{"))
		.map((line) => JSON.parse(line) as JsonEvent);
	const ends = events
		.filter((e) => e.type === "tool_execution_end")
		.map((e) => ({
			tool: e.toolName,
			isError: e.isError,
			text: e.result?.content?.map((c) => c.text).join("") ?? "",
		}));
	return { code, stdout, stderr, events, ends };
}
