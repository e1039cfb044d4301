// The toolbox's stores on a folder a cloned repository filled: links in it are never followed and names read from disk
// never become paths outside it. Each case plants what a hostile repository can commit and checks a folder beside the
// toolbox ("outside") is left exactly as it was.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog, readAudit } from "../../src/policy/audit-log.ts";
import { CompileCache } from "../../src/store/compile-cache.ts";
import { HealthStore } from "../../src/store/health.ts";
import { ToolHistory } from "../../src/store/history.ts";
import { withToolboxLock } from "../../src/store/lock.ts";
import { parseRegistry } from "../../src/store/registry.ts";
import { ToolboxStore } from "../../src/store/toolbox-store.ts";
import { recoverStaging } from "../../src/store/transaction.ts";

/** A toolbox folder and, beside it, a folder with files nothing may touch. */
async function setup(): Promise<{ dir: string; outside: string; untouched: () => Promise<void> }> {
	const root = await mkdtemp(join(tmpdir(), "forge-disk-"));
	const dir = join(root, "toolbox");
	const outside = join(root, "outside");
	await mkdir(join(outside, "sub"), { recursive: true });
	await mkdir(dir);
	await writeFile(join(outside, "keep.txt"), "keep\n");
	await writeFile(join(outside, "sub", "deep.txt"), "deep\n");
	await writeFile(join(outside, "forge-evil.ts"), "outside source\n");
	const untouched = async () => {
		expect((await readdir(outside, { recursive: true })).sort()).toEqual(
			["forge-evil.ts", "keep.txt", "sub", join("sub", "deep.txt")].sort(),
		);
		expect(await readFile(join(outside, "keep.txt"), "utf8")).toBe("keep\n");
		expect(await readFile(join(outside, "forge-evil.ts"), "utf8")).toBe("outside source\n");
	};
	return { dir, outside, untouched };
}

async function plantCommit(dir: string, folder: string, marker: unknown, files: Record<string, string> = {}) {
	const staged = join(dir, ".staging", folder);
	await mkdir(staged, { recursive: true });
	for (const [file, text] of Object.entries(files)) await writeFile(join(staged, file), text);
	await writeFile(join(staged, "COMMIT"), JSON.stringify(marker));
}

describe("recovery of the staging folder", () => {
	it("a .staging that is a link: nothing it points to is removed; the link itself goes", async () => {
		const { dir, untouched } = await setup();
		await symlink("../outside", join(dir, ".staging"));
		expect(await recoverStaging(dir)).toEqual({ rolledForward: [], discarded: [".staging"] });
		await untouched();
		expect(existsSync(join(dir, ".staging"))).toBe(false);
	});

	it("an entry of .staging that is a link: discarded as a link, never followed", async () => {
		const { dir, untouched } = await setup();
		await mkdir(join(dir, ".staging"));
		await symlink("../../outside", join(dir, ".staging", "x-1234"));
		expect(await recoverStaging(dir)).toEqual({ rolledForward: [], discarded: ["x-1234"] });
		await untouched();
	});

	it("a marker whose name climbs out, or whose staged file is a link, is discarded: nothing renamed or removed", async () => {
		const { dir, untouched } = await setup();
		await plantCommit(dir, "a", { op: "promote", name: "a/../../outside/evil" }, { "forge-a": "" });
		await plantCommit(dir, "b", { op: "remove", name: "a/../../outside/evil" });
		await plantCommit(dir, "c", { op: "remove", name: "../outside/keep" });
		await mkdir(join(dir, ".staging", "d"));
		await symlink("../../../outside/forge-evil.ts", join(dir, ".staging", "d", "forge-evil.ts"));
		await writeFile(join(dir, ".staging", "d", "COMMIT"), JSON.stringify({ op: "promote", name: "evil" }));
		const recovered = await recoverStaging(dir);
		expect(recovered.rolledForward).toEqual([]);
		expect(recovered.discarded.sort()).toEqual(["a", "b", "c", "d"]);
		await untouched();
		expect(await readdir(dir)).toEqual([]);
	});

	it("a dead holder's committed change is rolled forward as the lock is taken, not replayed over a newer one", async () => {
		const { dir } = await setup();
		const store = new ToolboxStore(dir);
		await writeFile(join(dir, "forge-x.ts"), "v1");
		await writeFile(join(dir, "forge-x.json"), "{}");
		// A process committed v2 (its marker durable) and died before renaming it in.
		await plantCommit(dir, "x-dead", { op: "promote", name: "x" }, { "forge-x.ts": "v2", "forge-x.json": "{}" });
		const seen = await store.locked(async () => {
			const live = await store.readSource("x");
			await (await store.promote(await store.stage("x", "v3", "{}"))).settled;
			return live;
		});
		expect(seen).toBe("v2");
		expect(await store.recover()).toMatchObject({ rolledForward: [], discarded: [] });
		expect(await store.readSource("x")).toBe("v3");
		expect(await store.readBackup("x")).toBe("v2");
	});
});

describe("the toolbox's own files", () => {
	it("the audit log as a link: the outside file is not written; the log becomes a file of the toolbox", async () => {
		const { dir, outside, untouched } = await setup();
		await symlink("../outside/keep.txt", join(dir, ".forge-audit.jsonl"));
		const log = new AuditLog(join(dir, ".forge-audit.jsonl"));
		log.append({ at: "now", tool: "t", version: "v", outcome: "error", detail: "$(touch x)" });
		await log.flush();
		await untouched();
		expect((await readAudit(join(dir, ".forge-audit.jsonl"))).map((r) => r.detail)).toEqual(["$(touch x)"]);
		expect(existsSync(join(outside, "x"))).toBe(false);
	});

	it("the health file as a link: not read, and replaced (not written through) by the next flush", async () => {
		const { dir } = await setup();
		await writeFile(join(dir, "..", "outside", "health.json"), JSON.stringify({ tools: { t: { calls: 7 } } }));
		await symlink("../outside/health.json", join(dir, ".forge-health.json"));
		const health = new HealthStore(dir, [], 0);
		await health.load();
		expect(health.get("t")).toBeUndefined();
		health.record("t", { ok: true, durationMs: 1, at: new Date() });
		await health.flush();
		expect(JSON.parse(await readFile(join(dir, "..", "outside", "health.json"), "utf8"))).toEqual({
			tools: { t: { calls: 7 } },
		});
		expect(JSON.parse(await readFile(join(dir, ".forge-health.json"), "utf8")).tools.t.calls).toBe(1);
	});

	it("health keys that are not tool names are dropped", async () => {
		const { dir } = await setup();
		await writeFile(
			join(dir, ".forge-health.json"),
			JSON.stringify({ tools: { "../x": { calls: 1 }, ok: { calls: 2 } } }),
		);
		const health = new HealthStore(dir, [], 0);
		await health.load();
		expect([health.get("../x"), health.get("ok")?.calls]).toEqual([undefined, 2]);
	});

	it("a lock that is a link (or a file) is refused at once, not after the wait", async () => {
		const { dir } = await setup();
		await symlink("../outside", join(dir, ".forge.lock"));
		await writeFile(join(dir, ".forge-registry.lock"), "");
		const started = Date.now();
		await expect(withToolboxLock(dir, async () => "ran")).rejects.toThrow(/\.forge\.lock is a symbolic link/);
		await expect(withToolboxLock(dir, async () => "ran", { target: "registry" })).rejects.toThrow(/not a folder/);
		expect(Date.now() - started).toBeLessThan(2_000);
	});

	it("a .state link: the compile cache neither writes nor reads through it", async () => {
		const { dir, outside, untouched } = await setup();
		const key = Buffer.alloc(32, 7);
		const cache = new CompileCache(dir, { read: async () => key, readOrCreate: async () => key });
		const hash = `sha256-${"a".repeat(64)}`;
		await symlink("../outside", join(dir, ".state"));
		await cache.put(hash, { code: "1", map: "" });
		await untouched();
		await mkdir(join(outside, "compiled"));
		await rm(join(dir, ".state"));
		await mkdir(join(dir, ".state"));
		await symlink("../../outside/compiled", join(dir, ".state", "compiled"));
		await cache.put(hash, { code: "1", map: "" });
		expect(await readdir(join(outside, "compiled"))).toEqual([]);
		expect(await cache.get(hash)).toBeUndefined();
	});

	it("a registry filed under a name that is not a tool name is not trusted", () => {
		const entry = {
			name: "a/../b",
			hash: "h",
			description: "d",
			version: 1,
			status: "ok",
			parameters: {},
			stamps: {},
		};
		expect(parseRegistry(JSON.stringify({ format: 1, tools: { "a/../b": entry } }))).toBeUndefined();
		expect(parseRegistry(JSON.stringify({ format: 1, tools: { b: { ...entry, name: "b" } } }))).toBeDefined();
	});
});

describe("the history", () => {
	it("an index whose file fields climb out is not read; its lines are skipped", async () => {
		const { dir } = await setup();
		const history = new ToolHistory(dir, 10);
		await history.record("t", "forged", 1, "source v1", "{}", new Date());
		const planted = {
			version: 2,
			event: "forged",
			at: "x",
			ts: "../../../outside/forge-evil",
			json: "../../../outside/forge-evil",
		};
		await writeFile(join(dir, ".history", "t", "index.jsonl"), `${JSON.stringify(planted)}\n`, { flag: "a" });
		expect((await history.entries("t")).map((e) => e.version)).toEqual([1]);
		expect(await history.read("t", 2)).toBeUndefined();
		expect((await history.all("t")).map((v) => v.source)).toEqual(["source v1"]);
	});

	it(".history or .history/<name> as a link: nothing is written, read or removed through it", async () => {
		const { dir, untouched } = await setup();
		const history = new ToolHistory(dir, 10);
		await mkdir(join(dir, ".history"));
		await symlink("../../outside", join(dir, ".history", "t"));
		await expect(history.record("t", "forged", 1, "s", "{}", new Date())).rejects.toThrow(/symbolic link/);
		expect(await history.entries("t")).toEqual([]);
		await history.drop("t");
		await untouched();
		const linked = new ToolHistory(join(dir, "..", "box2"), 10);
		await mkdir(join(dir, "..", "box2"));
		await symlink("../outside", join(dir, "..", "box2", ".history"));
		await expect(linked.record("u", "forged", 1, "s", "{}", new Date())).rejects.toThrow(/symbolic link/);
		await untouched();
	});
});
