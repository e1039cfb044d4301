// What Agent Forge says and does about pi's project trust: the trust read from pi's context, the scope a forge goes
// into, the left-out project toolbox's tools (by file name only), and the model's and the person's notes.
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	answerUntrusted,
	forgeScope,
	HOW_TO_TRUST,
	HOW_TO_TRUST_UNASKED,
	HOW_TO_UNLINK,
	isTrusted,
	startNote,
	untrustedForgeScope,
	untrustedListingNote,
	untrustedNote,
	untrustedToolError,
	whyUntrusted,
	withheldTools,
} from "../../src/pi/project-trust.ts";

/** A project whose toolbox holds 'repo-reader' (its files, never read), and the config an untrusted pi gives it. */
async function untrustedProject() {
	const cwd = await mkdtemp(join(tmpdir(), "forge-trust-unit-"));
	const dir = join(cwd, ".pi", "forge", "extensions");
	await mkdir(dir, { recursive: true });
	for (const file of ["forge-repo-reader.ts", "forge-repo-reader.json", ".forge-health.json", "notes.txt"])
		await writeFile(join(dir, file), "not read");
	return { withheldToolboxDir: dir, projectConfigFile: join(cwd, ".pi", "forge", "config.json") };
}

describe("isTrusted", () => {
	it("asks pi's context; a pi without the API (the legacy line) trusts; a context that throws says nothing", () => {
		expect(isTrusted({ isProjectTrusted: () => true })).toBe(true);
		expect(isTrusted({ isProjectTrusted: () => false })).toBe(false);
		expect(isTrusted({})).toBe(true);
		expect(
			isTrusted({
				isProjectTrusted: () => {
					throw new Error("stale");
				},
			}),
		).toBeUndefined();
	});
});

describe("an untrusted project's toolbox", () => {
	it("its tools are known by their file names only", async () => {
		const config = await untrustedProject();
		expect(withheldTools(config)).toEqual(["repo-reader"]);
		expect(withheldTools({})).toEqual([]);
		expect(withheldTools({ withheldToolboxDir: join(config.withheldToolboxDir, "missing") })).toEqual([]);
	});

	it("a call of one of them is a permission error saying how to trust the project; other names are not", async () => {
		const config = await untrustedProject();
		const error = untrustedToolError("repo-reader", config);
		expect(error?.phase).toBe("permission");
		expect(error?.message).toContain("pi does not trust this project");
		expect(error?.details.hint).toContain("--approve");
		expect(error?.details.hint).toContain("/trust");
		expect(untrustedToolError("other", config)).toBeUndefined();
		expect(untrustedToolError("repo-reader", {})).toBeUndefined();
	});

	it("pi's bare 'not found' for one of them is answered with why; other results are left alone", async () => {
		const config = await untrustedProject();
		const notFound = (name: string) => ({
			role: "toolResult",
			toolName: name,
			toolCallId: name,
			isError: true,
			content: [{ type: "text", text: `Tool ${name} not found` }],
		});
		const ok = {
			role: "toolResult",
			toolName: "repo-reader",
			isError: false,
			content: [{ type: "text", text: "x" }],
		};
		const messages = [notFound("repo-reader"), notFound("other"), ok];
		const answered = answerUntrusted(messages, config, (e) => `[${e.phase}] ${e.message}`);
		expect(answered[0].content[0].text).toMatch(
			/^Tool repo-reader not found: \[permission\] 'repo-reader' is a tool of this project's toolbox/,
		);
		expect(answered.slice(1)).toEqual(messages.slice(1));
		expect(answerUntrusted(messages, {}, () => "never")).toBe(messages);
	});

	it("forge_tool: only scope user forges (into the one toolbox there is); a trusted project is unchanged", async () => {
		const config = await untrustedProject();
		expect(forgeScope("user", config)).toEqual({ ok: true, scope: "project" });
		for (const scope of [undefined, "project", "elsewhere"]) {
			const into = forgeScope(scope, config);
			expect(into.ok).toBe(false);
			if (!into.ok) {
				expect(into.error.message).toContain("nothing was forged");
				expect(into.error.details.hint).toContain('scope "user"');
			}
		}
		expect(forgeScope(undefined, {})).toEqual({ ok: true, scope: "project" });
		expect(forgeScope("user", {})).toEqual({ ok: true, scope: "user" });
		expect(forgeScope("elsewhere", {})).toEqual({ ok: true, scope: "elsewhere" });
	});

	it("the notes for the person and the model name the toolbox and its tools; none in a trusted project", async () => {
		const config = await untrustedProject();
		expect(untrustedNote(config)).toContain(`its toolbox ${config.withheldToolboxDir} (1 tool: repo-reader) alone`);
		expect(untrustedListingNote(config)).toContain("Its 1 tool (repo-reader) cannot be run here.");
		expect(startNote(config)).toEqual({
			origin: { file: config.withheldToolboxDir },
			message: untrustedNote(config),
		});
		expect(untrustedForgeScope({ ...config, toolboxDir: "/agent/forge/extensions" })).toBe(
			"Scope: the user toolbox (/agent/forge/extensions): every project sees it. pi does not trust this project, so its own toolbox is left out.",
		);
		expect(untrustedForgeScope({ toolboxDir: "/p/.pi/forge/extensions" })).toBeUndefined();
		expect(untrustedNote({ projectConfigFile: "/p/.pi/forge/config.json" })).toBeUndefined();
		expect(untrustedListingNote({})).toBeUndefined();
	});

	it("every note says why the toolbox is left out and how to trust the project, for each reason", async () => {
		const base = await untrustedProject();
		const cases = [
			[undefined, "pi does not trust this project", HOW_TO_TRUST],
			["pi", "pi does not trust this project", HOW_TO_TRUST],
			["declined", "you told pi not to trust this project", HOW_TO_TRUST_UNASKED],
			[
				"not-asked",
				"you have not trusted this project and its toolbox was not made by your Agent Forge",
				HOW_TO_TRUST_UNASKED,
			],
			["linked", "/p/.pi/forge/extensions is a symbolic link (Agent Forge follows no link", HOW_TO_UNLINK],
		] as const;
		for (const [untrustedWhy, why, how] of cases) {
			const untrustedDetail = "/p/.pi/forge/extensions is a symbolic link";
			const config = { ...base, untrustedWhy, untrustedDetail, toolboxDir: "/agent/forge/extensions" };
			expect(whyUntrusted(config)).toContain(why);
			for (const text of [
				untrustedNote(config),
				untrustedListingNote(config),
				untrustedToolError("repo-reader", config)?.message,
				untrustedForgeScope(config),
			])
				expect(text?.toLowerCase(), `${untrustedWhy}: ${text}`).toContain(why.toLowerCase());
			for (const text of [
				untrustedNote(config),
				untrustedListingNote(config),
				untrustedToolError("repo-reader", config)?.details.hint,
			])
				expect(text, `${untrustedWhy}: ${text}`).toContain(how);
			const refused = forgeScope(undefined, config);
			expect(refused.ok).toBe(false);
			if (!refused.ok) expect(refused.error.message.toLowerCase()).toContain(why.toLowerCase());
		}
		expect(HOW_TO_TRUST_UNASKED).toContain("/trust");
		expect(HOW_TO_TRUST_UNASKED).toContain("--approve");
		// Trust does not help a linked toolbox: the model asks for a real folder instead.
		const linked = { ...base, untrustedWhy: "linked" as const };
		expect(untrustedListingNote(linked)).toContain("ask the user to make the project's toolbox a real folder");
		expect(untrustedListingNote(linked)).not.toContain("trust the project");
		// Said at the start even when the link leads nowhere.
		expect(startNote({ ...linked, withheldToolboxDir: "/nowhere/.pi/forge/extensions" })?.message).toContain(
			HOW_TO_UNLINK,
		);
	});

	it("the start says nothing in an untrusted project with no forge folder of its own", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "forge-trust-unit-"));
		const config = {
			withheldToolboxDir: join(cwd, ".pi", "forge", "extensions"),
			projectConfigFile: join(cwd, ".pi", "forge", "config.json"),
		};
		expect(startNote(config)).toBeUndefined();
		expect(untrustedNote(config)).toContain("pi does not trust this project");
	});
});
