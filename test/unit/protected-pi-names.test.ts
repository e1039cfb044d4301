// The names pi itself reads as instructions or loads skills from, taken from pi's own code on both lines (its
// context-file candidates, the dot folders it joins with "skills"): each is refused to a forged tool under every policy,
// and held for granted commands. A name a later pi adds fails here instead of being missed.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { decide, REASONS } from "../../src/policy/decide.ts";
import { CANONICAL_INSTRUCTION_FILES, nestedPathsAt, protectedLocations } from "../../src/policy/protected.ts";

const REPO = resolve(import.meta.dirname, "../..");
const LINES = {
	current: join(REPO, "node_modules/@earendil-works/pi-coding-agent/dist/core"),
	legacy: join(REPO, "node_modules/@mariozechner/pi-coding-agent/dist/core"),
};

/** The text of every .js file of pi's core (not the bundle: the same code, unminified). */
function piCore(dir: string): string {
	return readdirSync(dir, { recursive: true, encoding: "utf8" })
		.filter((file) => file.endsWith(".js"))
		.map((file) => readFileSync(join(dir, file), "utf8"))
		.join("\n");
}

/** The file names pi tries, in order, for a folder's context file (`loadContextFileFromDir`). */
function contextFileNames(core: string): string[] {
	const found = /const candidates = (\[[^\]]*\]);/.exec(core);
	if (!found) throw new Error("pi's context-file candidates were not found: read resource-loader.js again");
	return JSON.parse(found[1]!) as string[];
}

/** The dot folders pi loads skills from (`join(dir, ".agents", "skills")`). */
function skillFolders(core: string): string[] {
	const names = [...core.matchAll(/join\([^()]*(?:\(\))?, "(\.[\w.-]+)", "skills"\)/g)].map((match) => match[1]!);
	return [...new Set(names)];
}

const home = "/home/u";
const project = "/work/p";
const locations = protectedLocations({
	projectDir: project,
	tempDir: "/tmp",
	agentDir: `${home}/.pi/agent`,
	toolboxDir: `${project}/.pi/forge/extensions`,
	forgeHome: `${home}/.pi/agent/forge`,
	homeDir: home,
});
const writeUnderPermissive = (path: string) =>
	decide(
		{ kind: "fs-write", path },
		{
			policy: "permissive",
			projectDir: project,
			tempDir: "/tmp",
			protected: locations,
			grants: { allow: ["write:/"], deny: [] },
		},
	);

describe.each(Object.entries(LINES))("pi's own instruction names (%s line)", (_line, dir) => {
	const core = piCore(dir);
	const names = contextFileNames(core);
	const folders = skillFolders(core);

	it("finds pi's lists", () => {
		expect(names).toContain("AGENTS.md");
		expect(folders).toContain(".agents");
	});

	it.each(names)("%s is never writable, in the project, below it or above it", (name) => {
		for (const path of [join(project, name), join(project, "sub", name), join(home, name), join("/work", name)]) {
			const decision = writeUnderPermissive(path);
			expect(decision.verdict, path).toBe("deny");
			expect(decision.verdict === "deny" && decision.reason.endsWith(REASONS.protected)).toBe(true);
		}
	});

	it.each(names)("%s is held for granted commands at the top of the project", (name) => {
		const held = CANONICAL_INSTRUCTION_FILES.map((file) => file.toLowerCase());
		expect(held).toContain(name.toLowerCase());
	});

	it.each(folders)("%s/skills is never writable, in the project, its parents or the home", (folder) => {
		for (const base of [project, join(project, "pkg"), "/work", home]) {
			const path = join(base, folder, "skills", "setup", "SKILL.md");
			expect(writeUnderPermissive(path).verdict, path).toBe("deny");
		}
		expect(nestedPathsAt(project)).toContain(join(project, folder));
	});
});
