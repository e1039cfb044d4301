// pi's TUI and the forge's trust and policy. An untrusted project (current line; `pi --no-approve`, as a person
// declines trust for one session, or a project pi did not ask about whose toolbox was made elsewhere): the status bar
// and /forge say that the project's toolbox is left alone, and why. On both
// lines: a project's looser policy is reported at the start, and /forge shows the policy in effect and where it was set.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/pi-harness.ts";
import { PI_LINE } from "../helpers/pi-line.ts";
import { prompt, startTui, type Tui } from "../helpers/tui.ts";

let tui: Tui | undefined;
afterEach(() => {
	tui?.stop();
	tui = undefined;
});

if (PI_LINE === "current") {
	describe("an untrusted project in the TUI", () => {
		it("the status bar and /forge say its toolbox is left alone; /forge names the policy in effect", async () => {
			const cwd = await makeTempDir("forge-trust-tui");
			const tools = join(cwd, ".pi", "forge", "extensions");
			await mkdir(tools, { recursive: true });
			// pi asks for trust because of .pi/settings.json; the tool's file is listed by name, never read.
			await writeFile(join(cwd, ".pi", "settings.json"), "{}");
			await writeFile(join(tools, "forge-repo-reader.ts"), "export const never = 'read';\n");
			await writeFile(join(cwd, ".pi", "forge", "config.json"), JSON.stringify({ policy: "permissive" }));
			tui = await startTui([{ text: "the model has answered" }], { cwd, args: ["--no-approve"] });
			// The start report says it once, and the status bar keeps saying it.
			let screen = await tui.waitFor("project not trusted: its forged tools are off");
			expect(screen).toMatch(/Forge Tier: .* project not trusted: its forged tools are off/);
			expect(screen).toContain("Warning: Agent Forge: pi does not trust this project");
			screen = await prompt(tui, "/forge", "Policy: prompt (the default).");
			const forge = screen.slice(screen.lastIndexOf("Policy: prompt")).replace(/\s+/g, " ");
			expect(forge).toContain("pi does not trust this project: Agent Forge leaves its toolbox");
			expect(forge).toContain("(1 tool: repo-reader) alone");
			expect(forge).toContain("--approve");
			expect(screen).not.toContain("permissive");
		});

		it("a project pi did not ask about, with a toolbox made elsewhere: the status bar and /forge say why", async () => {
			const cwd = await makeTempDir("forge-unasked-tui");
			const tools = join(cwd, ".pi", "forge", "extensions");
			await mkdir(tools, { recursive: true });
			// Only .pi/forge: pi trusts the project without asking; the toolbox came with the project.
			await writeFile(join(tools, "forge-repo-reader.ts"), "export const never = 'read';\n");
			await writeFile(join(cwd, ".pi", "forge", "config.json"), JSON.stringify({ policy: "permissive" }));
			tui = await startTui([{ text: "the model has answered" }], { cwd });
			let screen = await tui.waitFor("project not trusted: its forged tools are off");
			expect(screen.replace(/\s+/g, " ")).toContain(
				"Warning: Agent Forge: you have not trusted this project and its toolbox was not made by your Agent Forge",
			);
			screen = await prompt(tui, "/forge", "Policy: prompt (the default).");
			const forge = screen.slice(screen.lastIndexOf("Policy: prompt")).replace(/\s+/g, " ");
			expect(forge).toContain("pi did not ask: the project has no pi settings or extensions, only .pi/forge");
			expect(forge).toContain("(1 tool: repo-reader) alone");
			expect(forge).toContain("Agent Forge takes it up from the next call");
			expect(screen).not.toContain("permissive");
		});
	});
}

describe(`a project's config in the TUI (${PI_LINE} line)`, () => {
	it("a looser policy there is reported at the start and /forge shows the user's policy in effect", async () => {
		const cwd = await makeTempDir("forge-policy-tui");
		await mkdir(join(cwd, ".pi", "forge"), { recursive: true });
		await writeFile(join(cwd, ".pi", "forge", "config.json"), JSON.stringify({ policy: "permissive" }));
		tui = await startTui([{ text: "the model has answered" }], { cwd });
		let screen = await tui.waitFor("a project's config file may only tighten the policy");
		expect(screen.replace(/\s+/g, " ")).toContain(
			'"policy": "permissive" is looser than your policy (prompt, from the default)',
		);
		screen = await prompt(tui, "/forge", "Policy: prompt (the default).");
		expect(screen).not.toContain("project not trusted");
	});
});
