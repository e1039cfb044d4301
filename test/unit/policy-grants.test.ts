// The grants store: a private JSON file of remembered verdicts that survives corruption and concurrent writes.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GrantsStore, parseGrants } from "../../src/policy/grants-store.ts";

let dir: string;
let file: string;

beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "forge-grants-"));
	file = join(dir, "agent", "forge", "grants.json");
});

afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

const onDisk = async () => JSON.parse(await readFile(file, "utf8"));

describe("GrantsStore", () => {
	it("starts empty when the file is missing", async () => {
		const store = new GrantsStore(file);
		await store.load();
		expect(store.file).toBe(file);
		expect(store.get("/p", "t")).toEqual({ allow: [], deny: [] });
	});

	it("persists at once, in the documented format, and reads it back in a new store", async () => {
		const store = new GrantsStore(file);
		await store.load();
		await store.remember("/p", "log-parser", "read:/var/log/", "allow");
		await store.remember("/p", "log-parser", "exec:curl", "deny");
		await store.remember("/q", "other", "env:TOKEN", "allow");
		expect(await onDisk()).toEqual({
			projects: {
				"/p": { "log-parser": { allow: ["read:/var/log/"], deny: ["exec:curl"] } },
				"/q": { other: { allow: ["env:TOKEN"], deny: [] } },
			},
		});
		expect((await readFile(file, "utf8")).split("\n").length).toBeGreaterThan(3);

		const again = new GrantsStore(file);
		await again.load();
		expect(again.get("/p", "log-parser")).toEqual({ allow: ["read:/var/log/"], deny: ["exec:curl"] });
		expect(again.get("/q", "other")).toEqual({ allow: ["env:TOKEN"], deny: [] });
		expect(again.get("/q", "log-parser")).toEqual({ allow: [], deny: [] });
	});

	it("writes the file with mode 0600 in a 0700 dir", async () => {
		const store = new GrantsStore(file);
		await store.remember("/p", "t", "exec:git", "allow");
		expect((await stat(file)).mode & 0o777).toBe(0o600);
		expect((await stat(join(dir, "agent", "forge"))).mode & 0o777).toBe(0o700);
		await store.remember("/p", "t", "exec:ls", "allow");
		expect((await stat(file)).mode & 0o777).toBe(0o600);
	});

	it("moves a key between lists and never duplicates it", async () => {
		const store = new GrantsStore(file);
		await store.remember("/p", "t", "exec:git", "allow");
		await store.remember("/p", "t", "exec:git", "allow");
		expect(store.get("/p", "t")).toEqual({ allow: ["exec:git"], deny: [] });
		await store.remember("/p", "t", "exec:git", "deny");
		expect(store.get("/p", "t")).toEqual({ allow: [], deny: ["exec:git"] });
		await store.remember("/p", "t", "exec:git", "allow");
		expect((await onDisk()).projects["/p"].t).toEqual({ allow: ["exec:git"], deny: [] });
	});

	it("hands out copies, so a caller cannot change the store by accident", async () => {
		const store = new GrantsStore(file);
		await store.remember("/p", "t", "exec:git", "allow");
		store.get("/p", "t").allow.push("exec:rm");
		expect(store.get("/p", "t").allow).toEqual(["exec:git"]);
	});

	it("keeps grants already on disk when remember() comes before load()", async () => {
		await new GrantsStore(file).remember("/p", "t", "exec:git", "allow");
		const store = new GrantsStore(file);
		await store.remember("/p", "t", "exec:ls", "allow");
		expect((await onDisk()).projects["/p"].t.allow).toEqual(["exec:git", "exec:ls"]);
	});

	it("picks up a hand edit made since it loaded", async () => {
		const store = new GrantsStore(file);
		await store.remember("/p", "t", "exec:git", "allow");
		await writeFile(
			file,
			JSON.stringify({ projects: { "/p": { t: { allow: ["exec:git", "exec:make"], deny: [] } } } }),
		);
		await store.remember("/p", "t", "exec:ls", "allow");
		expect(store.get("/p", "t").allow).toEqual(["exec:git", "exec:make", "exec:ls"]);
	});

	it("loses no write when 20 remember() calls run at once", async () => {
		const store = new GrantsStore(file);
		await store.load();
		const keys = Array.from({ length: 20 }, (_, i) => `exec:prog${i}`);
		await Promise.all(keys.map((key) => store.remember("/p", "t", key, "allow")));
		expect(store.get("/p", "t").allow.sort()).toEqual([...keys].sort());
		const again = new GrantsStore(file);
		await again.load();
		expect(again.get("/p", "t").allow.sort()).toEqual([...keys].sort());
	});

	it("keeps a corrupt file aside and starts empty, without throwing", async () => {
		await mkdir(join(dir, "agent", "forge"), { recursive: true });
		await writeFile(file, "{ not json");
		const store = new GrantsStore(file);
		await expect(store.load()).resolves.toBeUndefined();
		expect(store.get("/p", "t")).toEqual({ allow: [], deny: [] });
		const names = await readdir(join(dir, "agent", "forge"));
		const copy = names.find((name) => name.startsWith("grants.json.corrupt-"));
		expect(copy).toBeDefined();
		expect(await readFile(join(dir, "agent", "forge", copy!), "utf8")).toBe("{ not json");

		await store.remember("/p", "t", "exec:git", "allow");
		expect(await onDisk()).toEqual({ projects: { "/p": { t: { allow: ["exec:git"], deny: [] } } } });
	});

	it("treats a file of the wrong shape as corrupt", async () => {
		await mkdir(join(dir, "agent", "forge"), { recursive: true });
		await writeFile(file, JSON.stringify({ projects: [] }));
		const store = new GrantsStore(file);
		await store.load();
		expect((await readdir(join(dir, "agent", "forge"))).some((name) => name.startsWith("grants.json.corrupt-"))).toBe(
			true,
		);
	});

	it("rejects a remember() the disk refuses, keeps the grant for the session, and goes on", async () => {
		await writeFile(join(dir, "agent"), "a file where a dir should be");
		const store = new GrantsStore(file);
		await expect(store.remember("/p", "t", "exec:git", "allow")).rejects.toThrow();
		expect(store.get("/p", "t").allow).toEqual(["exec:git"]);
		await expect(store.load()).resolves.toBeUndefined();
	});
});

describe("parseGrants", () => {
	it("drops non-string and duplicate keys and fills missing lists", () => {
		const parsed = parseGrants(
			JSON.stringify({ projects: { "/p": { t: { allow: ["a", 1, "a", ""], deny: null }, u: {} } } }),
		);
		expect(parsed).toEqual({ projects: { "/p": { t: { allow: ["a"], deny: [] }, u: { allow: [], deny: [] } } } });
	});

	it("keeps a project named __proto__ as a plain key", () => {
		const parsed = parseGrants('{"projects":{"__proto__":{"t":{"allow":["x"],"deny":[]}}}}');
		expect(Object.keys(parsed!.projects)).toEqual(["__proto__"]);
		// biome-ignore lint/suspicious/noProto: the test reads a key named __proto__ on purpose
		expect(parsed!.projects.__proto__!.t).toEqual({ allow: ["x"], deny: [] });
		expect(({} as Record<string, unknown>).t).toBeUndefined();
	});

	it.each(["", "null", "[]", '{"projects":null}', '{"projects":{"/p":[]}}', '{"projects":{"/p":{"t":"x"}}}'])(
		"refuses %s",
		(text) => {
			expect(parseGrants(text)).toBeUndefined();
		},
	);
});
