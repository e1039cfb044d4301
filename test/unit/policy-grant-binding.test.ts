// Grants bound to what a person approved: the program's path, the shell line, the environment and the tool's version;
// the file read again when it changes; old files migrated; capabilities typed by hand checked for their form.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Capability, capabilityKey, describeCapability, digestKey } from "../../src/policy/capability.ts";
import { grantCovers } from "../../src/policy/decide.ts";
import { parseGrantKey } from "../../src/policy/grant-key.ts";
import { migrateGrants } from "../../src/policy/grants-migration.ts";
import { GrantsStore, parseGrants } from "../../src/policy/grants-store.ts";

describe("capabilityKey of a command", () => {
	const exec = (overrides: Partial<Extract<Capability, { kind: "exec" }>>): Capability => ({
		kind: "exec",
		program: "/usr/bin/git",
		commandLine: "git status",
		...overrides,
	});

	it("a program is keyed by its resolved path, whatever its arguments", () => {
		expect(capabilityKey(exec({}))).toBe("exec:/usr/bin/git");
		expect(capabilityKey(exec({ commandLine: "git push --force" }))).toBe("exec:/usr/bin/git");
		expect(capabilityKey(exec({ program: "/p/bin/git" }))).toBe("exec:/p/bin/git");
	});

	it("a shell line is keyed by the whole line", () => {
		expect(capabilityKey(exec({ shell: true, program: "/bin/sh", commandLine: "git status" }))).toBe(
			"shell:git status",
		);
		expect(capabilityKey(exec({ shell: true, program: "/bin/sh", commandLine: "git status; rm -rf ~" }))).toBe(
			"shell:git status; rm -rf ~",
		);
	});

	it("a changed environment has its own key: names readable, values only as a digest, other values another key", () => {
		const key = capabilityKey(
			exec({
				env: [
					{ name: "GIT_PAGER", value: "cat" },
					{ name: "A_TOKEN", value: "s3cr3t-token-value" },
				],
			}),
		);
		expect(key).toMatch(/^exec:\/usr\/bin\/git env:A_TOKEN,GIT_PAGER#[0-9a-f]{12}$/);
		expect(key).not.toContain("s3cr3t");
		expect(
			capabilityKey(
				exec({
					env: [
						{ name: "A_TOKEN", value: "s3cr3t-token-value" },
						{ name: "GIT_PAGER", value: "cat" },
					],
				}),
			),
		).toBe(key);
		expect(
			capabilityKey(
				exec({
					env: [
						{ name: "GIT_PAGER", value: "less" },
						{ name: "A_TOKEN", value: "s3cr3t-token-value" },
					],
				}),
			),
		).not.toBe(key);
		expect(capabilityKey(exec({ env: [] }))).toBe("exec:/usr/bin/git");
	});
});

describe("a key that holds a secret, granted by its digest", () => {
	it("sha256:<hex of the key> covers exactly that key", () => {
		const key = "shell:curl -H 'Authorization: Bearer s3cr3t' https://x.example";
		expect(digestKey(key)).toMatch(/^sha256:[0-9a-f]{64}$/);
		expect(digestKey(key)).not.toContain("s3cr3t");
		expect(grantCovers(digestKey(key), key)).toBe(true);
		expect(grantCovers(digestKey(key), `${key} `)).toBe(false);
		expect(grantCovers(digestKey(key), "shell:id")).toBe(false);
		expect(parseGrantKey(digestKey(key))).toEqual({ ok: true, key: digestKey(key) });
		expect(parseGrantKey("sha256:abc").ok).toBe(false);
	});
});

describe("GrantsStore, bound to versions", () => {
	let dir: string;
	let file: string;
	beforeEach(async () => {
		dir = await mkdtemp(join(tmpdir(), "forge-grant-binding-"));
		file = join(dir, "grants.json");
	});
	afterEach(async () => rm(dir, { recursive: true, force: true }));

	it("an allow holds for the version it was given to; another version has none, a deny holds for all", async () => {
		const store = new GrantsStore(file);
		await store.remember("/p", "t", "read:/etc/hostname", "allow", "hash-1");
		await store.remember("/p", "t", "exec:/usr/bin/curl", "deny", "hash-1");
		expect(store.get("/p", "t", "hash-1")).toEqual({ allow: ["read:/etc/hostname"], deny: ["exec:/usr/bin/curl"] });
		expect(store.get("/p", "t", "hash-2")).toEqual({ allow: [], deny: ["exec:/usr/bin/curl"] });
		expect(JSON.parse(await readFile(file, "utf8")).projects["/p"].t).toEqual({
			hash: "hash-1",
			allow: ["read:/etc/hostname"],
			deny: ["exec:/usr/bin/curl"],
		});
	});

	it("a grant for a new version starts its list afresh; going back to the old version (a rollback) then asks again", async () => {
		const store = new GrantsStore(file);
		await store.remember("/p", "t", "read:/a", "allow", "hash-1");
		await store.remember("/p", "t", "read:/b", "allow", "hash-2");
		expect(store.get("/p", "t", "hash-2").allow).toEqual(["read:/b"]);
		expect(store.get("/p", "t", "hash-1").allow).toEqual([]);
	});

	it("an unchanged re-forge (the same hash) keeps its grants", async () => {
		const store = new GrantsStore(file);
		await store.remember("/p", "t", "read:/a", "allow", "hash-1");
		await store.remember("/p", "t", "read:/b", "allow", "hash-1");
		expect(store.get("/p", "t", "hash-1").allow).toEqual(["read:/a", "read:/b"]);
	});

	it('"hash": "*" written by a person holds for every version, and stays', async () => {
		await writeFile(file, JSON.stringify({ projects: { "/p": { t: { hash: "*", allow: ["read:/a"], deny: [] } } } }));
		const store = new GrantsStore(file);
		await store.load();
		expect(store.get("/p", "t", "any-hash").allow).toEqual(["read:/a"]);
		await store.remember("/p", "t", "read:/b", "allow", "hash-9");
		expect(store.entry("/p", "t")).toEqual({ hash: "*", allow: ["read:/a", "read:/b"], deny: [] });
	});

	it("refresh() reads the file again when another process changed it, and not otherwise", async () => {
		const store = new GrantsStore(file);
		await store.load();
		expect(store.get("/p", "t", "h").allow).toEqual([]);
		const other = new GrantsStore(file);
		await other.remember("/p", "t", "read:/etc/hostname", "allow", "h");
		expect(store.get("/p", "t", "h").allow).toEqual([]);
		await store.refresh();
		expect(store.get("/p", "t", "h").allow).toEqual(["read:/etc/hostname"]);
		await writeFile(file, JSON.stringify({ projects: {} }));
		await store.refresh();
		expect(store.get("/p", "t", "h").allow).toEqual([]);
	});

	it("revoke() forgets one key from either list, or the whole entry, and says whether anything was there", async () => {
		const store = new GrantsStore(file);
		await store.remember("/p", "t", "read:/a", "allow", "h");
		await store.remember("/p", "t", "read:/b", "deny", "h");
		expect(await store.revoke("/p", "t", "read:/b")).toBe(true);
		expect(store.entry("/p", "t")).toEqual({ hash: "h", allow: ["read:/a"], deny: [] });
		expect(await store.revoke("/p", "t", "read:/zzz")).toBe(false);
		expect(await store.revoke("/p", "t")).toBe(true);
		expect(await store.revoke("/p", "t")).toBe(false);
		expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ projects: {} });
	});
});

describe("migrateGrants", () => {
	const context = {
		project: "/p",
		hashOf: (tool: string) => ({ t: "hash-t", u: "hash-u" })[tool],
		resolveProgram: (name: string) => ({ git: "/usr/bin/git", make: "/usr/bin/make" })[name],
	};

	it("binds entries without a version to the current one, exec names to their paths, and drops exec:sh", () => {
		const data = parseGrants(
			JSON.stringify({
				projects: {
					"/p": {
						t: {
							allow: ["exec:git", "exec:sh", "exec:nowhere", "read:/etc/hosts", "inline"],
							deny: ["exec:make"],
						},
						gone: { allow: ["exec:git"], deny: [] },
						u: { hash: "old", allow: ["exec:git"], deny: [] },
					},
					"/q": { t: { allow: ["exec:git"], deny: [] } },
				},
			}),
		)!;
		expect(migrateGrants(data, context)).toBe(true);
		expect(data.projects["/p"].t).toEqual({
			hash: "hash-t",
			allow: ["exec:/usr/bin/git", "read:/etc/hosts", "inline"],
			deny: ["exec:/usr/bin/make"],
		});
		// A tool that is not in the toolbox now, an entry already bound, another project: left alone.
		expect(data.projects["/p"].gone).toEqual({ allow: ["exec:git"], deny: [] });
		expect(data.projects["/p"].u).toEqual({ hash: "old", allow: ["exec:git"], deny: [] });
		expect(data.projects["/q"].t).toEqual({ allow: ["exec:git"], deny: [] });
		expect(migrateGrants(data, context)).toBe(false);
	});
});

describe("parseGrantKey", () => {
	it.each([
		"read:/etc/hostname",
		"read:/data/",
		"write:/srv/out.txt",
		"env:GITHUB_TOKEN",
		"inline",
		"shell:git status | head -3",
		"exec:/usr/bin/git",
		"exec:/usr/bin/git env:A,B#0123456789ab",
	])("accepts %s as it is", (key) => {
		expect(parseGrantKey(key)).toEqual({ ok: true, key });
	});

	it("looks a bare program name up on PATH", () => {
		expect(parseGrantKey("exec:git")).toEqual({ ok: true, lookup: "git", env: "" });
	});

	it.each([
		["read:etc/hostname", "absolute path"],
		["write:", "absolute path"],
		["env:", "one variable"],
		["env:A B", "one variable"],
		["shell: ", "command line"],
		["exec:", "needs a program"],
		["exec:git status", "shell:<line>"],
		["exec:./bin/x", "absolute path"],
		["read:<outside the project>/hostname", "absolute path"],
		["net:https://example.com", "net: needs a host name"],
		["/etc/hostname", "is not a capability"],
	])("refuses %s (%s)", (key, message) => {
		const parsed = parseGrantKey(key);
		expect(parsed.ok).toBe(false);
		expect(!parsed.ok && parsed.error).toContain(message);
	});
});

describe("net: grant keys", () => {
	it("a host, with its port when it is not the default; the case of a name does not matter", () => {
		expect(parseGrantKey("net:api.github.com")).toEqual({ ok: true, key: "net:api.github.com" });
		expect(parseGrantKey("net:127.0.0.1:8080")).toEqual({ ok: true, key: "net:127.0.0.1:8080" });
		expect(parseGrantKey("net:API.Example.COM")).toEqual({ ok: true, key: "net:api.example.com" });
		expect(parseGrantKey("net:[::1]:3000")).toEqual({ ok: true, key: "net:[::1]:3000" });
	});

	it("a URL, a path or an empty host is refused with the form that works", () => {
		for (const bad of ["net:https://api.github.com", "net:api.github.com/x", "net:", "net:a b"]) {
			const parsed = parseGrantKey(bad);
			expect(parsed.ok, bad).toBe(false);
			if (!parsed.ok) expect(parsed.error).toContain("net: needs a host name");
		}
	});

	it("the key is what a capability of that host is remembered under", () => {
		expect(capabilityKey({ kind: "net", host: "127.0.0.1:8080" })).toBe("net:127.0.0.1:8080");
		expect(describeCapability({ kind: "net", host: "api.github.com" })).toBe("connect to api.github.com");
	});
});
