// `agent-forge`: the toolbox from outside pi — list, show, history, diff, test, check (for CI of a shared toolbox),
// export as a pi package; rollback, remove, import. Same core code as pi's /forge. Every failure is one line on
// stderr, never a stack trace; exit codes: 0 ok, 1 failed or not found, 2 usage error.
import { readFileSync, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { loadConfig } from "../config.ts";
import { inertJson, inertText } from "../policy/terminal-text.ts";
import { type OpenedToolbox, openToolbox } from "../toolbox/open-toolbox.ts";
import { type Io, RUN } from "./commands.ts";
import { COMMANDS, parseInvocation } from "./parse-args.ts";
import { USAGE } from "./usage.ts";

export type { Io } from "./commands.ts";

const consoleIo: Io = { out: (text) => console.log(text), err: (text) => console.error(text) };

/** Runs one command; resolves to the exit code (0 ok, 1 failed, 2 usage). */
export async function main(
	argv: string[],
	io: Io = consoleIo,
	/** The settings' environment; by default the process's (read by config.ts). */
	env?: Record<string, string | undefined>,
): Promise<number> {
	const invocation = parseInvocation(argv);
	if (invocation.kind === "help" || invocation.kind === "version") {
		io.out(invocation.kind === "help" ? USAGE : packageVersion());
		return 0;
	}
	if (invocation.kind === "usage-error") return usageError(io, invocation.message);

	const project = projectDir(invocation.cwd);
	if (!project.ok) return project.usage ? usageError(io, project.message) : fail(io, project.message);
	let opened: OpenedToolbox | undefined;
	try {
		opened = await openToolbox(loadConfig(project.dir, env), { readOnly: COMMANDS[invocation.command].readOnly });
		for (const problem of opened.problems) io.err(`agent-forge: warning: ${problem.message}`);
		// What is printed comes from tool files, which anyone may edit: escape sequences are shown, never acted on.
		const inert: Io = {
			out: (text) => io.out(invocation.json ? inertJson(text) : inertText(text)),
			err: (text) => io.err(inertText(text)),
		};
		return await RUN[invocation.command](invocation, opened, inert);
	} catch (error) {
		return fail(io, inertText((error as Error).message.split("\n")[0]));
	} finally {
		await opened?.toolboxes.close().catch(() => undefined);
	}
}

function fail(io: Io, message: string): number {
	io.err(`agent-forge: ${message}`);
	return 1;
}

function usageError(io: Io, message: string): number {
	io.err(`agent-forge: ${message}\nRun 'agent-forge --help' for usage.`);
	return 2;
}

/** The project folder: `--cwd` (a usage error when it is not a folder) or the current directory. */
function projectDir(
	given: string | undefined,
): { ok: true; dir: string } | { ok: false; usage: boolean; message: string } {
	let dir: string;
	try {
		dir = realpathSync(resolve(given ?? process.cwd()));
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (given === undefined)
			return {
				ok: false,
				usage: false,
				message: `the current directory cannot be read (${code ?? (error as Error).message}).`,
			};
		return {
			ok: false,
			usage: true,
			message: `--cwd ${given}: ${code === "ENOENT" ? "no such folder" : (error as Error).message}.`,
		};
	}
	if (!statSync(dir).isDirectory()) return { ok: false, usage: true, message: `--cwd ${given ?? dir}: not a folder.` };
	return { ok: true, dir };
}

function packageVersion(): string {
	const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
		version?: string;
	};
	return manifest.version ?? "unknown";
}
