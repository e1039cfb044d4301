// The permission dialog in pi's real TUI (tmux): a shell line is shown whole, with its terminal escapes made visible
// instead of acting on the terminal (no title set, no screen cleared); the answer decides what runs and what is kept.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { prompt, startTui, type Tui } from "../helpers/tui.ts";

const NO_PARAMS = { type: "object", properties: {} };
/** A shell line carrying OSC 0 (set the window title) and ED 2 (clear the screen). */
const LOGIC =
	'import { execSync } from "node:child_process";\nreturn execSync("echo \\u001b]0;PWNED\\u0007\\u001b[2J visible-marker && echo second", { encoding: "utf8" });';
const forge = {
	calls: [
		{
			name: "forge_tool",
			args: { name: "ansi-run", description: "Runs a line.", parametersSchema: NO_PARAMS, logic: LOGIC },
		},
	],
};
const use = { calls: [{ name: "use_forge_tool", args: { name: "ansi-run", args: {} } }] };

let tui: Tui | undefined;
afterEach(() => {
	tui?.stop();
	tui = undefined;
});

describe("the permission dialog in the TUI", () => {
	it("shows the whole shell line with escapes made visible; Always keeps exactly that line for this version", async () => {
		tui = await startTui([forge, { text: "forged it" }, use, { text: "ran it" }], {
			env: { PI_FORGE_POLICY: "prompt" },
		});
		await prompt(tui, "forge it", "forged it");
		const titleBefore = tui.title();
		tui.type("run it");
		tui.press("Enter");
		const dialog = await tui.waitFor("wants to run a shell command:");
		expect(dialog).toContain("shell line: echo \\e]0;PWNED\\x07\\e[2J visible-marker && echo second");
		expect(dialog).toContain("program: /bin/sh -c <the line above>");
		expect(dialog).toContain(`"Always" allows exactly this shell line for this version of 'ansi-run'.`);
		// The screen was not cleared: the forge's result from before the dialog is still on it.
		expect(dialog).toContain("forged it");
		expect(tui.title()).toBe(titleBefore);
		expect(tui.title()).not.toContain("PWNED");

		tui.press("Down");
		tui.press("Enter");
		const screen = await tui.waitFor("ran it");
		expect(screen).toContain("visible-marker");
		const grants = JSON.parse(await readFile(join(tui.agentDir, "forge", "grants.json"), "utf8"));
		const entry = Object.values(
			grants.projects as Record<string, Record<string, { hash: string; allow: string[] }>>,
		)[0]["ansi-run"];
		expect(entry.allow).toEqual(["shell:echo \u001b]0;PWNED\u0007\u001b[2J visible-marker && echo second"]);
		const meta = JSON.parse(
			await readFile(join(tui.cwd, ".pi", "forge", "extensions", "forge-ansi-run.json"), "utf8"),
		);
		expect(entry.hash).toBe(meta.hash);
	});
});
