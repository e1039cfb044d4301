// The TUI as a person sees it: pi in tmux with a scripted model; the widget, the status bar, a tool broken on disk
// showing up in Health, and /forge with its sub-commands, read back from the screen.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { prompt, startTui, type Tui } from "../helpers/tui.ts";

const forge = (name: string, logic: string, description = `The ${name} tool.`) => ({
	calls: [
		{
			name: "forge_tool",
			args: {
				name,
				description,
				parametersSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
				logic,
			},
		},
	],
});
const use = (name: string, text: string) => ({ calls: [{ name: "use_forge_tool", args: { name, args: { text } } }] });

let tui: Tui | undefined;
afterEach(() => {
	tui?.stop();
	tui = undefined;
});

describe("the TUI", () => {
	it("shows the widget and the Forge Tier, and keeps them current", async () => {
		tui = await startTui([
			forge("shout", "return params.text.toUpperCase();"),
			use("shout", "hey"),
			{ text: "all done" },
		]);
		let screen = await tui.waitFor("Evolved Tools: 0");
		expect(screen).toContain("Last Action: none yet");
		expect(screen).toContain("Forge Tier: Cold Anvil");

		screen = await prompt(tui, "make a shouter", "all done");
		screen = await tui.waitFor("Evolved Tools: 1 (1 ok)");
		expect(screen).toMatch(/forge_tool shout The shout tool\. \(1 line of logic\)/);
		expect(screen).toMatch(/✓ shout v1 \(new\) · schema · syntax · imports · preflight ✓/);
		expect(screen).toMatch(/use_forge_tool shout \{"text":"hey"\}/);
		expect(screen).toContain("HEY");
		expect(screen).toMatch(/Last Action: Ran 'shout' \(\d+ ms\) just now/);
		expect(screen).toContain("Health: all ok");
		expect(screen).toContain("Forge Tier: Apprentice (1 tool · 2 to Journeyman)");
	});

	it("a tool broken on disk shows up in Health at once", async () => {
		tui = await startTui([forge("fragile", "return params.text;"), { text: "forged" }]);
		await prompt(tui, "forge it", "forged");
		await tui.waitFor("Health: all ok");
		const path = join(tui.cwd, ".pi", "forge", "extensions", "forge-fragile.ts");
		await writeFile(path, (await readFile(path, "utf8")).replace("return params.text;", "return params.text(;"));
		const screen = await tui.waitFor("Health: broken: fragile");
		expect(screen).toContain("Evolved Tools: 1 (0 ok · 1 broken)");
		expect(screen).toMatch(/Last Action: Reloaded 'fragile' from disk \(broken\)/);
		expect(screen).toContain("Forge Tier: Cold Anvil");
	});

	it("/forge: the table, show, history, diff, rollback and remove", async () => {
		tui = await startTui([
			forge("greet", 'return "hello " + params.text;'),
			{ text: "v1 done" },
			forge("greet", 'return "hi " + params.text;'),
			{ text: "v2 done" },
		]);
		await prompt(tui, "forge greet", "v1 done");
		await prompt(tui, "change greet", "v2 done");

		let screen = await prompt(tui, "/forge", /TOOL\s+VER\s+STATE/);
		expect(screen).toMatch(/OS sandbox: bubblewrap \d[\d.]* \(kernel-enforced; Node's permission model inside it\)/);
		expect(screen).toMatch(/greet\s+v2\s+draft\s+0\s+0\s+never\s+The greet tool\./);

		screen = await prompt(tui, "/forge show greet", "forge-greet.ts:");
		expect(screen).toContain("greet v2 — ok, draft (no tests)");
		expect(screen).toContain("text: string");
		expect(screen).toContain("History: v1 forged, v2 forged");

		screen = await prompt(tui, "/forge diff greet", "forge-greet.ts v2");
		expect(screen).toContain('-return "hello " + params.text;');
		expect(screen).toContain('+return "hi " + params.text;');

		screen = await prompt(tui, "/forge rollback greet v1", "Rolled 'greet' back to v1: it is now v3.");
		screen = await tui.waitFor(/Last Action: Rolled back 'greet' to v1 \(now v3\)/);

		screen = await prompt(tui, "/forge history greet", "History of 'greet'");
		expect(screen).toMatch(/v3\s+rolled-back/);

		tui.type("/forge remove greet");
		tui.press("Enter");
		await tui.waitFor("Remove 'greet'?");
		tui.press("Enter");
		screen = await tui.waitFor("Removed 'greet'. It is no longer offered to the model.");
		screen = await tui.waitFor("Evolved Tools: 0");
	});

	it("without an OS sandbox the status bar and /forge say so", async () => {
		// A reply no other text on the screen contains ("ok" is in pi's own start-up help): the run is over when it shows.
		tui = await startTui([{ text: "the model has answered" }], { env: { PI_FORGE_SANDBOX: "off" } });
		let screen = await prompt(tui, "hello", "the model has answered");
		expect(screen).toContain("Forge Tier: Cold Anvil (0 tools · 1 to Apprentice) · no OS sandbox");
		screen = await prompt(tui, "/forge", "No OS sandbox");
		expect(screen).toContain("No OS sandbox: turned off (PI_FORGE_SANDBOX=off).");
	});

	it("/forge completes sub-commands and tool names", async () => {
		tui = await startTui([
			forge("word-count", "return params.text.split(/\\s+/).length;"),
			{ text: "the model has answered" },
		]);
		await prompt(tui, "forge", "the model has answered");
		tui.type("/forge sh");
		await tui.waitFor("metadata, health, history and source of one tool");
		tui.press("Tab");
		await new Promise((resolve) => setTimeout(resolve, 300)); // a person's pause: pi-tui refreshes suggestions between keys
		tui.type("wo");
		await tui.waitFor(/→ word-count/);
		tui.press("Tab");
		await tui.waitFor("/forge show word-count");
		tui.press("Enter");
		const screen = await tui.waitFor("word-count v1 — ok, draft");
		expect(screen).toContain("forge-word-count.ts:");
	});
});
