// The capability policy: every rule of decide() under every policy, grant keys, and the hint given on refusal.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { Capability } from "../../src/policy/capability.ts";
import {
	type Decision,
	decide,
	grantCommands,
	grantCovers,
	isInside,
	type PolicyContext,
	protectedReason,
	REASONS,
	refusalHint,
} from "../../src/policy/decide.ts";
import { protectedLocations } from "../../src/policy/protected.ts";

type Policy = PolicyContext["policy"];
const POLICIES: Policy[] = ["strict", "prompt", "permissive"];

const PROJECT = "/home/me/project";
const TOOLBOX = "/home/me/project/.pi/forge/extensions";
const FORGE_CONFIG = "/home/me/.pi/agent/forge";

function context(policy: Policy, grants: Partial<PolicyContext["grants"]> = {}): PolicyContext {
	return {
		policy,
		projectDir: PROJECT,
		tempDir: "/tmp",
		protected: [
			{ path: TOOLBOX, what: "the toolbox" },
			{ path: FORGE_CONFIG, what: "Agent Forge's settings and grants" },
		],
		grants: { allow: grants.allow ?? [], deny: grants.deny ?? [] },
	};
}

const read = (path: string): Capability => ({ kind: "fs-read", path });
const write = (path: string): Capability => ({ kind: "fs-write", path });
const exec = (program: string, commandLine = program): Capability => ({ kind: "exec", program, commandLine });
const env = (name: string): Capability => ({ kind: "env", name });
const inline: Capability = { kind: "inline" };

const allow = (reason: string): Decision => ({ verdict: "allow", reason });
const deny = (reason: string): Decision => ({ verdict: "deny", reason });
const ask: Decision = { verdict: "ask" };
const TOOLBOX_DENIED = deny(protectedReason("the toolbox"));
const SETTINGS_DENIED = deny(protectedReason("Agent Forge's settings and grants"));
const HOLDER_DENIED = deny(protectedReason("a folder that holds the toolbox"));

describe("decide, without remembered grants", () => {
	// Each row: the capability, then the decision under strict, prompt and permissive.
	const rows: Array<[string, Capability, Decision, Decision, Decision]> = [
		["write in the toolbox", write(`${TOOLBOX}/forge-x.ts`), TOOLBOX_DENIED, TOOLBOX_DENIED, TOOLBOX_DENIED],
		["write the toolbox dir itself", write(TOOLBOX), TOOLBOX_DENIED, TOOLBOX_DENIED, TOOLBOX_DENIED],
		[
			"write the grants file",
			write(`${FORGE_CONFIG}/grants.json`),
			SETTINGS_DENIED,
			SETTINGS_DENIED,
			SETTINGS_DENIED,
		],
		[
			"write in the project",
			write(`${PROJECT}/src/a.ts`),
			allow(REASONS.insideProject),
			allow(REASONS.insideProject),
			allow(REASONS.insideProject),
		],
		// The project folder holds the toolbox: writing it as a whole (rm -r, rename) would take the toolbox along.
		["write the project dir", write(PROJECT), HOLDER_DENIED, HOLDER_DENIED, HOLDER_DENIED],
		[
			"read in the project",
			read(`${PROJECT}/README.md`),
			allow(REASONS.insideProject),
			allow(REASONS.insideProject),
			allow(REASONS.insideProject),
		],
		[
			"read the toolbox",
			read(`${TOOLBOX}/forge-x.ts`),
			allow(REASONS.insideProject),
			allow(REASONS.insideProject),
			allow(REASONS.insideProject),
		],
		[
			"write in the temp dir",
			write("/tmp/out.txt"),
			allow(REASONS.insideTemp),
			allow(REASONS.insideTemp),
			allow(REASONS.insideTemp),
		],
		[
			"read in the temp dir",
			read("/tmp/in.txt"),
			allow(REASONS.insideTemp),
			allow(REASONS.insideTemp),
			allow(REASONS.insideTemp),
		],
		["read outside", read("/etc/hosts"), deny(REASONS.strict), ask, allow(REASONS.permissive)],
		["write outside", write("/etc/hosts"), deny(REASONS.strict), ask, allow(REASONS.permissive)],
		[
			"read a sibling with the project as prefix",
			read("/home/me/project-other/x"),
			deny(REASONS.strict),
			ask,
			allow(REASONS.permissive),
		],
		["read the project's parent", read("/home/me"), deny(REASONS.strict), ask, allow(REASONS.permissive)],
		["read an escaping path", read(`${PROJECT}/../secrets`), deny(REASONS.strict), ask, allow(REASONS.permissive)],
		[
			"read a relative path",
			read("src/a.ts"),
			deny(REASONS.notAbsolute),
			deny(REASONS.notAbsolute),
			deny(REASONS.notAbsolute),
		],
		[
			"write a relative path",
			write("../x"),
			deny(REASONS.notAbsolute),
			deny(REASONS.notAbsolute),
			deny(REASONS.notAbsolute),
		],
		["see a safe variable", env("PATH"), allow(REASONS.safeEnv), allow(REASONS.safeEnv), allow(REASONS.safeEnv)],
		["see a secret variable", env("OPENAI_API_KEY"), deny(REASONS.strict), ask, allow(REASONS.permissive)],
		["run a program", exec("git", "git status"), deny(REASONS.strict), ask, allow(REASONS.permissive)],
		["run a shell command", exec("sh", "ls | wc -l"), deny(REASONS.strict), ask, allow(REASONS.permissive)],
		["run inline", inline, deny(REASONS.strict), ask, ask],
	];

	for (const [name, capability, ...decisions] of rows) {
		POLICIES.forEach((policy, i) => {
			it(`${name} under ${policy}`, () => {
				expect(decide(capability, context(policy))).toEqual(decisions[i]);
			});
		});
	}

	it("keeps a protected dir inside the project closed even under permissive", () => {
		const inside = {
			...context("permissive"),
			protected: [{ path: `${PROJECT}/tools/forge/extensions`, what: "the toolbox" }],
		};
		expect(decide(write(`${PROJECT}/tools/forge/extensions/forge-evil.ts`), inside)).toEqual(TOOLBOX_DENIED);
		expect(decide(write(`${PROJECT}/tools/forge/extensions/sub/../forge-evil.ts`), inside)).toEqual(TOOLBOX_DENIED);
		expect(decide(write(`${PROJECT}/tools/forge/extensions-not/x.ts`), inside)).toEqual(allow(REASONS.insideProject));
		expect(decide(write(`${PROJECT}/tools/forge/x.ts`), inside)).toEqual(allow(REASONS.insideProject));
	});

	it("protects a dir even when a protected dir is given with a trailing slash", () => {
		const ctx = { ...context("permissive"), protected: [{ path: `${TOOLBOX}/`, what: "the toolbox" }] };
		expect(decide(write(TOOLBOX), ctx)).toEqual(TOOLBOX_DENIED);
		expect(decide(write(`${TOOLBOX}/a`), ctx)).toEqual(TOOLBOX_DENIED);
	});

	it("never grants writing the toolbox, whatever is remembered", () => {
		for (const policy of POLICIES) {
			const ctx = context(policy, { allow: [`write:${TOOLBOX}/`, `write:${TOOLBOX}/forge-x.ts`, "write:/"] });
			expect(decide(write(`${TOOLBOX}/forge-x.ts`), ctx)).toEqual(TOOLBOX_DENIED);
		}
	});
});

describe("decide, with remembered grants", () => {
	const rows: Array<[string, Capability, Partial<PolicyContext["grants"]>, Decision, Decision, Decision]> = [
		[
			"remembered allow",
			exec("git"),
			{ allow: ["exec:git"] },
			deny(REASONS.strict),
			allow(REASONS.rememberedAllow),
			allow(REASONS.rememberedAllow),
		],
		[
			"remembered deny",
			exec("git"),
			{ deny: ["exec:git"] },
			deny(REASONS.rememberedDeny),
			deny(REASONS.rememberedDeny),
			deny(REASONS.rememberedDeny),
		],
		[
			"deny beats allow",
			exec("git"),
			{ allow: ["exec:git"], deny: ["exec:git"] },
			deny(REASONS.rememberedDeny),
			deny(REASONS.rememberedDeny),
			deny(REASONS.rememberedDeny),
		],
		[
			"another program's grant",
			exec("curl"),
			{ allow: ["exec:git"] },
			deny(REASONS.strict),
			ask,
			allow(REASONS.permissive),
		],
		[
			"an env grant",
			env("GITHUB_TOKEN"),
			{ allow: ["env:GITHUB_TOKEN"] },
			deny(REASONS.strict),
			allow(REASONS.rememberedAllow),
			allow(REASONS.rememberedAllow),
		],
		[
			"an inline grant",
			inline,
			{ allow: ["inline"] },
			deny(REASONS.strict),
			allow(REASONS.rememberedAllow),
			allow(REASONS.rememberedAllow),
		],
		[
			"a prefix grant, a file below",
			read("/data/a/b.csv"),
			{ allow: ["read:/data/"] },
			deny(REASONS.strict),
			allow(REASONS.rememberedAllow),
			allow(REASONS.rememberedAllow),
		],
		[
			"a prefix grant, the dir itself",
			read("/data"),
			{ allow: ["read:/data/"] },
			deny(REASONS.strict),
			allow(REASONS.rememberedAllow),
			allow(REASONS.rememberedAllow),
		],
		[
			"a prefix grant, a sibling sharing the prefix",
			read("/database/x"),
			{ allow: ["read:/data/"] },
			deny(REASONS.strict),
			ask,
			allow(REASONS.permissive),
		],
		[
			"a prefix grant, escaping with ..",
			read("/data/../etc/passwd"),
			{ allow: ["read:/data/"] },
			deny(REASONS.strict),
			ask,
			allow(REASONS.permissive),
		],
		[
			"a read grant does not cover a write",
			write("/data/x"),
			{ allow: ["read:/data/"] },
			deny(REASONS.strict),
			ask,
			allow(REASONS.permissive),
		],
		[
			"an exact file grant does not cover a dir below",
			read("/data/x/y"),
			{ allow: ["read:/data/x"] },
			deny(REASONS.strict),
			ask,
			allow(REASONS.permissive),
		],
		[
			"a prefix deny under a prefix allow",
			read("/data/secret/k"),
			{ allow: ["read:/data/"], deny: ["read:/data/secret/"] },
			deny(REASONS.rememberedDeny),
			deny(REASONS.rememberedDeny),
			deny(REASONS.rememberedDeny),
		],
		[
			"a remembered deny inside the project does not matter",
			read(`${PROJECT}/a`),
			{ deny: [`read:${PROJECT}/a`] },
			allow(REASONS.insideProject),
			allow(REASONS.insideProject),
			allow(REASONS.insideProject),
		],
		[
			"a remembered deny of a safe variable does not matter",
			env("HOME"),
			{ deny: ["env:HOME"] },
			allow(REASONS.safeEnv),
			allow(REASONS.safeEnv),
			allow(REASONS.safeEnv),
		],
	];

	for (const [name, capability, grants, ...decisions] of rows) {
		POLICIES.forEach((policy, i) => {
			it(`${name} under ${policy}`, () => {
				expect(decide(capability, context(policy, grants))).toEqual(decisions[i]);
			});
		});
	}
});

describe("grantCovers", () => {
	it.each<[string, string, boolean]>([
		["exec:git", "exec:git", true],
		["exec:git", "exec:gitk", false],
		["exec:g/", "exec:g/x", false],
		["read:/data/", "read:/data/x", true],
		["read:/data/", "read:/data", true],
		["read:/data", "read:/data/", true],
		["read:/data/", "read:/datax", false],
		["read:/", "read:/anything/at/all", true],
		["read:data/", "read:data/x", false],
		["write:/data/", "read:/data/x", false],
		["env:A", "env:AB", false],
	])("%s covers %s: %s", (grant, key, covers) => {
		expect(grantCovers(grant, key)).toBe(covers);
	});
});

describe("isInside", () => {
	it.each<[string, string, boolean]>([
		["/a/b", "/a/b", true],
		["/a/b/", "/a/b", true],
		["/a/b", "/a/b/", true],
		["/a/b/c", "/a/b", true],
		["/a/b/c/d", "/a/b/", true],
		["/a/bc", "/a/b", false],
		["/a/bc", "/a/b/", false],
		["/a", "/a/b", false],
		["/a/b/../c", "/a/b", false],
		["/a/b/./c", "/a/b", true],
		["/anything", "/", true],
		["/", "/", true],
		["/a", "", false],
		["", "/a", false],
	])("%s inside %s: %s", (path, dir, inside) => {
		expect(isInside(path, dir)).toBe(inside);
	});
});

describe("refusalHint", () => {
	const grantsFile = "/home/me/.pi/agent/forge/grants.json";

	it("under prompt, frames the refusal as a permission to grant (not a bug), on one line, naming the grants file", () => {
		const hint = refusalHint("log-parser", "prompt", grantsFile);
		expect(hint).toContain("a permission to grant, not a fault in the code of 'log-parser'");
		expect(hint).toContain("run the command below");
		expect(hint).toContain("then call 'log-parser' again");
		expect(hint).toContain("Grants are kept per version of a tool");
		expect(hint).toContain(grantsFile);
		expect(hint).not.toContain("projects[");
		expect(hint.split("\n")).toHaveLength(1);
	});

	it("under strict, says strict never grants and names prompt", () => {
		const hint = refusalHint("llm", "strict", grantsFile);
		expect(hint).toContain("strict never grants");
		expect(hint).toContain("PI_FORGE_POLICY=prompt");
		expect(hint).not.toContain("PI_FORGE_POLICY=permissive");
	});

	it("after a remembered deny, says the command turns the refusal into a grant", () => {
		const decision = decide(exec("git"), context("prompt", { deny: ["exec:git"] }));
		const hint = refusalHint("t", "prompt", grantsFile, decision);
		expect(hint).toContain("refused it for good");
		expect(hint).toContain("only with their say-so, the command below turns that refusal into a grant");
	});

	it("after a person said no just now, says to respect it and offers no way around it", () => {
		const hint = refusalHint("t", "prompt", grantsFile, { verdict: "deny", reason: REASONS.deniedByUser });
		expect(hint).toContain("The user was asked and refused");
		expect(hint).not.toContain("command below");
	});

	it("offers no grant for writing the toolbox", () => {
		for (const policy of POLICIES) {
			const decision = decide(write(`${TOOLBOX}/forge-x.ts`), context(policy));
			const hint = refusalHint("t", policy, grantsFile, decision);
			expect(hint).toContain("No policy");
			expect(hint).not.toContain(grantsFile);
		}
	});
});

describe("grantCommands", () => {
	it.each([
		["read:/etc/hostname", "agent-forge grant t read:/etc/hostname", "/forge grant t read:/etc/hostname"],
		["exec:/usr/bin/git", "agent-forge grant t exec:/usr/bin/git", "/forge grant t exec:/usr/bin/git"],
		["shell:ls -l | wc -l", "agent-forge grant t 'shell:ls -l | wc -l'", "/forge grant t shell:ls -l | wc -l"],
		["shell:echo 'hi'", String.raw`agent-forge grant t 'shell:echo '\''hi'\'''`, "/forge grant t shell:echo 'hi'"],
		["read:/data/my files/", "agent-forge grant t 'read:/data/my files/'", "/forge grant t read:/data/my files/"],
	])("%s", (key, cli, tui) => {
		expect(grantCommands("t", key)).toEqual({ cli, tui });
	});

	it("a quoted key reads back as the key in a POSIX shell", () => {
		for (const key of ["shell:echo 'a' \"b\" $HOME `x`", "read:/a b/c", "exec:/usr/bin/git env:A,B#0123456789ab"]) {
			const { cli } = grantCommands("t", key);
			const echoed = execFileSync("/bin/sh", ["-c", `printf %s ${cli.slice("agent-forge grant t ".length)}`], {
				encoding: "utf8",
			});
			expect(echoed).toBe(key);
		}
	});
});

describe("folders above a protected one", () => {
	const context = {
		policy: "permissive" as const,
		projectDir: "/p",
		tempDir: "/t",
		protected: [{ path: "/p/.pi/forge/extensions", what: "the toolbox" }],
		grants: { allow: [], deny: [] },
	};
	it("cannot be written (removing or renaming .pi would take the toolbox along)", () => {
		expect(decide({ kind: "fs-write", path: "/p/.pi" }, context)).toEqual(HOLDER_DENIED);
		expect(decide({ kind: "fs-write", path: "/p" }, context)).toEqual(HOLDER_DENIED);
		expect(decide({ kind: "fs-write", path: "/p/src/a.ts" }, context).verdict).toBe("allow");
	});
	it("inline is asked for even under permissive: it gives up the isolation", () => {
		expect(decide({ kind: "inline" }, context)).toEqual({ verdict: "ask" });
	});
});

describe("the locations pi, git and other agents run or trust (every policy, every grant)", () => {
	const locations = protectedLocations({
		projectDir: "/p",
		tempDir: "/t",
		agentDir: "/home/u/.pi/agent",
		toolboxDir: "/p/.pi/forge/extensions",
		forgeHome: "/home/u/.pi/agent/forge",
	});
	const everything = { allow: ["write:/", "write:/p/", "write:/t/", "write:/home/"], deny: [] };
	it.each([
		["/p/.pi/extensions/helper.ts", ".pi/ (pi loads extensions, settings and prompts from it)"],
		["/p/.pi/settings.json", ".pi/ (pi loads extensions, settings and prompts from it)"],
		["/p/.pi/forge/config.json", ".pi/ (pi loads extensions, settings and prompts from it)"],
		["/p/.git/hooks/pre-commit", ".git/ (git runs its hooks and reads its config from it)"],
		["/p/.git/config", ".git/ (git runs its hooks and reads its config from it)"],
		["/p/.husky/pre-commit", ".husky/ (git hooks run at the next commit)"],
		["/p/.claude/settings.json", ".claude/ (another agent's settings and hooks)"],
		["/p/AGENTS.md", "an agent instruction file (AGENTS.md)"],
		["/p/docs/CLAUDE.md", "an agent instruction file (CLAUDE.md)"],
		["/p/Agents.MD", "an agent instruction file (Agents.MD)"],
		["/t/jiti/main-index.abc123.mjs", "pi's module cache (jiti), run at pi's next start"],
		["/t/node-compile-cache/v24/x", "Node's compile cache"],
		["/home/u/.pi/agent/extensions/evil.ts", "pi's agent dir (its extensions, settings and credentials)"],
		["/home/u/.pi/agent/forge/grants.json", "Agent Forge's settings and grants"],
		["/p/.pi/forge/extensions/forge-x.ts", "the toolbox"],
		["/t", "a folder that holds pi's module cache (jiti), run at pi's next start"],
	])("writing %s is refused: %s", (path, what) => {
		for (const policy of POLICIES) {
			expect(
				decide(write(path), { policy, projectDir: "/p", tempDir: "/t", protected: locations, grants: everything }),
			).toEqual(deny(protectedReason(what)));
		}
	});
	it("reading them is not refused for that, and neighbours stay writable", () => {
		const ctx: PolicyContext = {
			policy: "prompt",
			projectDir: "/p",
			tempDir: "/t",
			protected: locations,
			grants: { allow: [], deny: [] },
		};
		expect(decide(read("/p/.git/config"), ctx)).toEqual(allow(REASONS.insideProject));
		expect(decide(read("/p/AGENTS.md"), ctx)).toEqual(allow(REASONS.insideProject));
		for (const path of [
			"/p/.github/workflows/ci.yml",
			"/p/docs/agents.mdx",
			"/p/.pirate/x",
			"/p/.gitignore",
			"/t/jiti-not/x",
			"/t/out.txt",
		]) {
			expect(decide(write(path), ctx).verdict, path).toBe("allow");
		}
	});
	it("the refusal says no grant can lift it", () => {
		const decision = decide(write("/p/.git/hooks/pre-commit"), {
			policy: "permissive",
			projectDir: "/p",
			tempDir: "/t",
			protected: locations,
			grants: everything,
		});
		expect(refusalHint("evil", "permissive", "/g.json", decision)).toMatch(
			/^No policy or grant lets a forged tool write there/,
		);
	});
});
