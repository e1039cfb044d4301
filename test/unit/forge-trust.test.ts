// Where pi trusts a project without asking (no pi settings or extensions of its own), Agent Forge opens its toolbox
// only on explicit trust: pi decided, --approve, pi's saved decision, "defaultProjectTrust": "always", a toolbox this
// agent dir made, or no toolbox yet. Facts from a stand-in for pi; the trust store and the record are real files.
import { mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { ForgeTrust, projectToolboxOf } from "../../src/pi/forge-trust.ts";
import { OWN_TOOLBOXES_FILE, OwnToolboxes } from "../../src/pi/own-toolboxes.ts";
import { nearestSaved, piTrustEvidence, type TrustEvidence } from "../../src/pi/trust-evidence.ts";
import { CACHE_KEY_FILE, CacheKey } from "../../src/store/cache-key.ts";
import { CompileCache } from "../../src/store/compile-cache.ts";

/** A project with a toolbox of its own (as a clone brings it) and an empty agent dir. */
async function cloned() {
	const root = await mkdtemp(join(tmpdir(), "forge-trust2-"));
	const cwd = join(root, "repo");
	const agentDir = join(root, "agent");
	await mkdir(projectToolboxOf(cwd), { recursive: true });
	await writeFile(join(projectToolboxOf(cwd), "forge-repo-reader.ts"), "export {};\n");
	await mkdir(agentDir);
	return { root, cwd, agentDir };
}

/** pi's facts as given; the trust store and settings are read from the agent dir as pi keeps them. */
const evidence = (facts: { piDecides?: boolean; approve?: boolean } = {}): TrustEvidence => ({
	piDecides: () => facts.piDecides ?? false,
	approve: () => facts.approve,
	saved: piTrustEvidence.saved,
	trustsAll: piTrustEvidence.trustsAll,
});

const ctx = (trusted: boolean | "stale") => ({
	isProjectTrusted: () => {
		if (trusted === "stale") throw new Error("stale");
		return trusted;
	},
});

describe("a project pi trusted without asking", () => {
	it("its toolbox is left out, nothing else saying the person trusts it", async () => {
		const { cwd, agentDir } = await cloned();
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)).toEqual({ trusted: false, why: "not-asked" });
	});

	it("pi's own answers stand: untrusted, and the legacy line (no trust) and a stale context", async () => {
		const { cwd, agentDir } = await cloned();
		const trust = new ForgeTrust(evidence({ piDecides: true }));
		expect(trust.check(ctx(false), cwd, agentDir)).toEqual({ trusted: false, why: "pi" });
		expect(trust.check({}, cwd, agentDir)).toEqual({ trusted: true });
		expect(trust.check(ctx("stale"), cwd, agentDir)).toBeUndefined();
		// pi decided (the project has resources pi asks about): its yes is explicit.
		expect(trust.check(ctx(true), cwd, agentDir)).toEqual({ trusted: true });
	});

	it("--approve trusts it; --no-approve is pi's own untrusted answer", async () => {
		const { cwd, agentDir } = await cloned();
		expect(new ForgeTrust(evidence({ approve: true })).check(ctx(true), cwd, agentDir)).toEqual({ trusted: true });
		expect(new ForgeTrust(evidence({ approve: false })).check(ctx(true), cwd, agentDir)?.trusted).toBe(false);
	});

	it("pi's saved decision: the folder's or the nearest parent's; a saved no withholds it; read afresh each call", async () => {
		const { root, cwd, agentDir } = await cloned();
		const trust = new ForgeTrust(evidence());
		const store = (data: object) => writeFile(join(agentDir, "trust.json"), JSON.stringify(data));
		await store({ [cwd]: null, [join(root, "elsewhere")]: true });
		expect(trust.check(ctx(true), cwd, agentDir)?.trusted).toBe(false);
		await store({ [cwd]: false, [root]: true });
		expect(trust.check(ctx(true), cwd, agentDir)).toEqual({ trusted: false, why: "declined" });
		// /trust during the session: taken up at the next call, and kept for the session.
		await store({ [root]: true });
		expect(trust.check(ctx(true), cwd, agentDir)).toEqual({ trusted: true });
		await store({});
		expect(trust.check(ctx(true), cwd, agentDir)).toEqual({ trusted: true });
		// pi withdrawing its own trust still counts.
		expect(trust.check(ctx(false), cwd, agentDir)).toEqual({ trusted: false, why: "pi" });
	});

	it("a store pi would refuse (a value other than true, false, null) is no decision; so is one that is not JSON", async () => {
		const { cwd, agentDir } = await cloned();
		await writeFile(join(agentDir, "trust.json"), JSON.stringify({ [cwd]: true, "/x": "yes" }));
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)?.trusted).toBe(false);
		await writeFile(join(agentDir, "trust.json"), `{ "${cwd}": true`);
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)?.trusted).toBe(false);
	});

	it('"defaultProjectTrust": "always" in pi\'s settings trusts it; "ask" and "never" do not', async () => {
		const { cwd, agentDir } = await cloned();
		for (const [value, trusted] of [
			["ask", false],
			["never", false],
			["always", true],
		] as const) {
			await writeFile(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: value }));
			expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)?.trusted, value).toBe(trusted);
		}
	});

	it("with no toolbox yet it is opened, to be recorded as made here; a dangling link there is a toolbox", async () => {
		const { root, agentDir } = await cloned();
		const cwd = join(root, "fresh");
		await mkdir(cwd);
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)).toEqual({ trusted: true, record: true });
		await mkdir(join(cwd, ".pi", "forge"), { recursive: true });
		await symlink(join(root, "nowhere"), projectToolboxOf(cwd));
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)?.trusted).toBe(false);
	});
});

describe("the toolboxes this agent dir made", () => {
	it("a recorded toolbox is trusted after a restart; the file is 0600 and keyed by the project's real path", async () => {
		const { root, cwd, agentDir } = await cloned();
		const own = new OwnToolboxes(join(agentDir, "forge"));
		expect(own.add(cwd, projectToolboxOf(cwd))).toBe(true);
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)).toEqual({ trusted: true });
		const file = join(agentDir, "forge", OWN_TOOLBOXES_FILE);
		expect((await stat(file)).mode & 0o777).toBe(0o600);
		expect(Object.keys(JSON.parse(await readFile(file, "utf8")))).toEqual([cwd]);
		// The same project through a link is the same project.
		await symlink(cwd, join(root, "link"));
		expect(own.has(join(root, "link"), projectToolboxOf(join(root, "link")))).toBe(true);
	});

	it("another project, a folder inside the project, or another folder at the recorded path is not recorded", async () => {
		const { root, cwd, agentDir } = await cloned();
		const own = new OwnToolboxes(join(agentDir, "forge"));
		own.add(cwd, projectToolboxOf(cwd));
		// A repository cloned inside the project, with a toolbox of its own.
		const inside = join(cwd, "vendor", "evil");
		await mkdir(projectToolboxOf(inside), { recursive: true });
		expect(own.has(inside, projectToolboxOf(inside))).toBe(false);
		expect(new ForgeTrust(evidence()).check(ctx(true), inside, agentDir)?.trusted).toBe(false);
		// A repository whose .pi/forge is a link to the recorded project's.
		const linked = join(root, "linked");
		await mkdir(join(linked, ".pi"), { recursive: true });
		await symlink(join(cwd, ".pi", "forge"), join(linked, ".pi", "forge"));
		expect(own.has(linked, projectToolboxOf(linked))).toBe(false);
		// The project deleted and another cloned in its place: the same path, another folder.
		await rename(cwd, join(root, "old"));
		await mkdir(projectToolboxOf(cwd), { recursive: true });
		expect(own.has(cwd, projectToolboxOf(cwd))).toBe(false);
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)?.trusted).toBe(false);
	});

	it("a record that cannot be read counts for nothing; one that cannot be written says so", async () => {
		const { cwd, agentDir } = await cloned();
		await mkdir(join(agentDir, "forge"));
		await writeFile(join(agentDir, "forge", OWN_TOOLBOXES_FILE), "not json");
		expect(new OwnToolboxes(join(agentDir, "forge")).has(cwd, projectToolboxOf(cwd))).toBe(false);
		await writeFile(join(agentDir, "blocked"), "a file, not a folder");
		expect(new OwnToolboxes(join(agentDir, "blocked")).add(cwd, projectToolboxOf(cwd))).toBe(false);
		expect(new OwnToolboxes(join(agentDir, "forge")).add(cwd, join(cwd, "missing"))).toBe(false);
	});
});

describe("pi's trust store, read as pi reads it", () => {
	it("the nearest entry that is true or false, from the folder up", () => {
		expect(nearestSaved({ "/a": true, "/a/b": null }, "/a/b/c")).toEqual({ path: "/a", trusted: true });
		expect(nearestSaved({ "/a": true, "/a/b": false }, "/a/b/c")).toEqual({ path: "/a/b", trusted: false });
		expect(nearestSaved({ "/a/b/c/d": true, "/x": true }, "/a/b/c")).toBeUndefined();
		expect(nearestSaved({ "/": true }, "/a")).toEqual({ path: "/", trusted: true });
	});
});

describe("a toolbox this agent dir's forge wrote to before toolboxes were recorded", () => {
	const compiled = { code: "module.exports = {};", map: "{}" };
	const hash = `sha256-${"a".repeat(64)}`;

	it("is trusted, and recorded, when its compile cache holds an entry signed with this agent dir's key", async () => {
		const { cwd, agentDir } = await cloned();
		const key = new CacheKey(join(agentDir, "forge", CACHE_KEY_FILE));
		await new CompileCache(projectToolboxOf(cwd), key).put(hash, compiled);
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)).toEqual({ trusted: true });
		expect(new OwnToolboxes(join(agentDir, "forge")).has(cwd, projectToolboxOf(cwd))).toBe(true);
	});

	it("is left out when its entries were signed with another agent dir's key, or its .state is a link", async () => {
		const { root, cwd, agentDir } = await cloned();
		const other = join(root, "other-agent");
		await new CompileCache(projectToolboxOf(cwd), new CacheKey(join(other, "forge", CACHE_KEY_FILE))).put(
			hash,
			compiled,
		);
		// This agent dir has a key of its own, which did not sign them.
		await new CacheKey(join(agentDir, "forge", CACHE_KEY_FILE)).readOrCreate();
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)).toEqual({
			trusted: false,
			why: "not-asked",
		});
		// A .state that links to a toolbox this agent dir did sign does not count either.
		const signed = join(root, "signed-toolbox");
		await new CompileCache(signed, new CacheKey(join(agentDir, "forge", CACHE_KEY_FILE))).put(hash, compiled);
		await rm(join(projectToolboxOf(cwd), ".state"), { recursive: true });
		await symlink(join(signed, ".state"), join(projectToolboxOf(cwd), ".state"));
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)?.trusted).toBe(false);
		expect(new OwnToolboxes(join(agentDir, "forge")).has(cwd, projectToolboxOf(cwd))).toBe(false);
	});
});

describe("a project toolbox agent-forge made", () => {
	it("counts as this agent dir's own at pi's next start: its import signed the compile cache", async () => {
		const root = await mkdtemp(join(tmpdir(), "forge-trust-cli-"));
		const cwd = join(root, "project");
		const agentDir = join(root, "agent");
		await mkdir(cwd);
		const io = { out: () => undefined, err: () => undefined };
		const samples = join(import.meta.dirname, "..", "..", "extensions");
		const env = { PI_CODING_AGENT_DIR: agentDir, HOME: root };
		expect(await main(["import", samples, "--cwd", cwd], io, env)).toBe(0);
		expect(new ForgeTrust(evidence()).check(ctx(true), cwd, agentDir)).toEqual({ trusted: true });
	}, 60_000);
});
