// The installations pi runs code from (Agent Forge's package, pi's, the Node that runs them) are refused to a forged
// tool under every policy, permissive and a grant included; one that holds the project is the project's.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decide, REASONS } from "../../src/policy/decide.ts";
import { currentInstallations, installationLocations } from "../../src/policy/installations.ts";
import { protectedLocations } from "../../src/policy/protected.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "forge-installations-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, text = ""): string {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
	return path;
}

const forge = join(root, "agent-forge");
file(join(forge, "package.json"), JSON.stringify({ name: "pi-agent-forge" }));
const forgeFile = file(join(forge, "src", "policy", "installations.ts"));
const pi = join(root, "lib", "node_modules", "@earendil-works", "pi-coding-agent");
file(join(pi, "package.json"), JSON.stringify({ name: "@earendil-works/pi-coding-agent" }));
// A package.json between the entry and pi's root that is not pi's (pi's dist has none, but a bundle might).
file(join(pi, "dist", "package.json"), JSON.stringify({ type: "module" }));
const entry = file(join(pi, "dist", "cli.js"));
const node = join(root, "node-v24");
const nodeBin = file(join(node, "bin", "node"));
mkdirSync(join(node, "include"));
const project = join(root, "work", "p");
mkdirSync(project, { recursive: true });

function refusal(
	path: string,
	locations = installationLocations({ forgeFile, entry, nodes: [nodeBin], projectDir: project }),
) {
	const all = protectedLocations({
		projectDir: project,
		tempDir: join(root, "tmp"),
		agentDir: join(root, "home", ".pi", "agent"),
		toolboxDir: join(project, ".pi", "forge", "extensions"),
		forgeHome: join(root, "home", ".pi", "agent", "forge"),
		installations: locations,
	});
	return decide(
		{ kind: "fs-write", path },
		{
			policy: "permissive",
			projectDir: project,
			tempDir: join(root, "tmp"),
			protected: all,
			grants: { allow: ["write:/"], deny: [] },
		},
	);
}

describe("the code pi runs at its next start is never writable by a forged tool", () => {
	it.each([
		[join(forge, "index.ts"), "Agent Forge's own package"],
		[join(forge, "src", "pi", "forge-session.ts"), "Agent Forge's own package"],
		[join(pi, "dist", "cli.js"), "pi's own package"],
		[join(pi, "dist", "core", "new.js"), "pi's own package"],
		[join(node, "bin", "node"), "the Node installation"],
		[join(node, "lib", "node_modules", "npm", "index.js"), "the Node installation"],
	])("%s: refused, saying what it is", (path, what) => {
		const decision = refusal(path);
		expect(decision.verdict).toBe("deny");
		expect(decision.verdict === "deny" && decision.reason).toContain(what);
		expect(decision.verdict === "deny" && decision.reason.endsWith(REASONS.protected)).toBe(true);
	});

	it("the folders beside them stay the policy's to decide", () => {
		expect(refusal(join(root, "lib", "other.txt")).verdict).toBe("allow");
		expect(refusal(join(project, "src", "a.ts")).verdict).toBe("allow");
	});

	it("an installation that holds the project (Agent Forge worked on with pi) is left to the project's rules", () => {
		const inside = join(forge, "examples", "p");
		const locations = installationLocations({ forgeFile, entry, nodes: [nodeBin], projectDir: inside });
		expect(locations.map((location) => location.path)).not.toContain(forge);
		expect(locations.map((location) => location.path)).toContain(pi);
	});

	it("a Node in a home's bin folder protects that folder, not the whole home", () => {
		const home = join(root, "home2");
		const homeNode = file(join(home, "bin", "node"));
		const locations = installationLocations({ forgeFile, nodes: [homeNode], projectDir: project });
		expect(locations.map((location) => location.path)).toContain(join(home, "bin"));
		expect(locations.map((location) => location.path)).not.toContain(home);
	});

	it("this process: this repository, the pi it would load, and the Node running it", () => {
		const paths = currentInstallations(project).map((location) => location.path);
		expect(paths).toContain(resolve(import.meta.dirname, "../.."));
		const execRoot = dirname(dirname(realpathSync(process.execPath)));
		expect(paths.some((path) => path === execRoot || path === dirname(realpathSync(process.execPath)))).toBe(true);
	});
});
