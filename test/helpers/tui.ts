// Drives pi's interactive TUI in tmux, as a person would: type, press keys, read the screen back with capture-pane.
// The scripted provider (test/fixtures/scripted-provider.ts) answers for the model.
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { makeTempDir } from "./pi-harness.ts";
import { PI_CLI } from "./pi-line.ts";

const REPO = resolve(import.meta.dirname, "../..");
const PROVIDER = join(REPO, "test", "fixtures", "scripted-provider.ts");

export interface Tui {
	cwd: string;
	agentDir: string;
	screen(): string;
	/** The pane's title, as escape sequences in the output may have set it. */
	title(): string;
	/** Types text (no Enter). */
	type(text: string): void;
	press(...keys: string[]): void;
	/** Waits until the screen contains `text` (or matches it), returning the screen. */
	waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
	stop(): void;
}

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });

export async function startTui(
	script: unknown[],
	options: {
		cwd?: string;
		env?: Record<string, string> /** More of pi's options, e.g. `--no-approve`. */;
		args?: string[];
	} = {},
): Promise<Tui> {
	const cwd = options.cwd ?? (await makeTempDir("forge-tui"));
	const agentDir = await makeTempDir("forge-tui-agent");
	const scriptPath = join(agentDir, "script.json");
	await writeFile(scriptPath, JSON.stringify(script));
	const session = `forge-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
	const env = { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", FORGE_SCRIPT: scriptPath, ...options.env };
	const exports = Object.entries(env)
		.map(([k, v]) => `${k}=${JSON.stringify(v)}`)
		.join(" ");
	tmux(
		"new-session",
		"-d",
		"-s",
		session,
		"-x",
		"140",
		"-y",
		"50",
		`cd ${JSON.stringify(cwd)} && ${exports} ${JSON.stringify(process.execPath)} ${JSON.stringify(PI_CLI)} --provider scripted --model s -e ${PROVIDER} -e ${REPO} --no-session${(options.args ?? []).map((arg) => ` ${JSON.stringify(arg)}`).join("")}; sleep 30`,
	);
	const tui: Tui = {
		cwd,
		agentDir,
		screen: () => tmux("capture-pane", "-p", "-t", session),
		title: () => tmux("display-message", "-p", "-t", session, "#{pane_title}").trim(),
		type: (text) => void tmux("send-keys", "-t", session, "-l", text),
		press: (...keys) => void tmux("send-keys", "-t", session, ...keys),
		async waitFor(text, timeoutMs = 15_000) {
			const started = Date.now();
			for (;;) {
				const screen = tui.screen();
				if (typeof text === "string" ? screen.includes(text) : text.test(screen)) return screen;
				if (Date.now() - started > timeoutMs)
					throw new Error(`timed out waiting for ${String(text)}; the screen was:\n${screen}`);
				await new Promise((r) => setTimeout(r, 100));
			}
		},
		stop: () => {
			try {
				tmux("kill-session", "-t", session);
			} catch {
				// already gone
			}
		},
	};
	await tui.waitFor("Forge Tier:");
	return tui;
}

/** Sends a prompt and waits for the scripted model's closing text. */
export async function prompt(tui: Tui, text: string, until: string | RegExp): Promise<string> {
	tui.type(text);
	tui.press("Enter");
	return tui.waitFor(until);
}
