// The compile cache's entries are authenticated with the user's key (cache-key.ts, compile-cache.ts): an entry counts
// only when this key's MAC covers all it asserts; the key is made at the first write, 0600, and only then.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CACHE_KEY_FILE, CacheKey } from "../../src/store/cache-key.ts";
import { CACHE_DIR, CompileCache } from "../../src/store/compile-cache.ts";

const HASH = `sha256-${"a".repeat(64)}`;
const OTHER_HASH = `sha256-${"b".repeat(64)}`;
const CODE = { code: 'module.exports = () => "benign";', map: '{"version":3}' };
const SHAPE = { name: "greet", description: "Greets.", parameters: { type: "object", properties: {} } };

async function fixture() {
	const toolboxDir = await mkdtemp(join(tmpdir(), "forge-cc-box-"));
	const forgeHome = join(await mkdtemp(join(tmpdir(), "forge-cc-agent-")), "forge");
	const keyFile = join(forgeHome, CACHE_KEY_FILE);
	const cache = (key = new CacheKey(keyFile)) => new CompileCache(toolboxDir, key);
	const entryFile = () => {
		const dir = join(toolboxDir, CACHE_DIR);
		const [file] = readdirSync(dir).filter((name) => name.endsWith(".json"));
		return join(dir, file!);
	};
	return { toolboxDir, forgeHome, keyFile, cache, entryFile };
}

describe("the compile cache's key", () => {
	it("is made at the first write, 32 bytes and 0600, and not by a read", async () => {
		const { keyFile, cache } = await fixture();
		expect(await cache().getChecked(HASH)).toBeUndefined();
		expect(existsSync(keyFile)).toBe(false);
		await cache().put(HASH, CODE, SHAPE);
		expect(statSync(keyFile).size).toBe(32);
		expect(statSync(keyFile).mode & 0o777).toBe(0o600);
		expect(await cache().getChecked(HASH)).toEqual({ code: CODE, shape: SHAPE });
	});

	it("two processes' first writes at once end with one key both use", async () => {
		const { keyFile } = await fixture();
		const keys = await Promise.all(Array.from({ length: 8 }, () => new CacheKey(keyFile).readOrCreate()));
		const onDisk = readFileSync(keyFile);
		for (const key of keys) expect(key?.equals(onDisk)).toBe(true);
		expect(readdirSync(join(keyFile, "..")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
	});

	it("a key file others may read is made 0600 and still used", async () => {
		const { keyFile, cache } = await fixture();
		await cache().put(HASH, CODE);
		await chmod(keyFile, 0o644);
		expect((await cache().get(HASH))?.code).toBe(CODE.code);
		expect(statSync(keyFile).mode & 0o777).toBe(0o600);
	});

	it("a file that is no key (another size) is no key to read by, and is replaced at the next write", async () => {
		const { keyFile, forgeHome, cache } = await fixture();
		await cache().put(HASH, CODE);
		await writeFile(keyFile, "short");
		expect(await cache().get(HASH)).toBeUndefined();
		await cache().put(OTHER_HASH, CODE);
		expect(statSync(keyFile).size).toBe(32);
		expect(readdirSync(forgeHome)).toEqual([CACHE_KEY_FILE]);
		expect((await cache().get(OTHER_HASH))?.code).toBe(CODE.code);
	});

	it("without a key that can be made, nothing is written and nothing read", async () => {
		const { toolboxDir } = await fixture();
		const blocked = join(toolboxDir, "not-a-folder");
		await writeFile(blocked, "");
		const cache = new CompileCache(toolboxDir, new CacheKey(join(blocked, CACHE_KEY_FILE)));
		await cache.put(HASH, CODE);
		expect(existsSync(join(toolboxDir, CACHE_DIR))).toBe(false);
		expect(await cache.get(HASH)).toBeUndefined();
	});
});

describe("an entry counts only with this key's MAC over all it asserts", () => {
	const tampered: [string, (text: string) => string][] = [
		["its code", (text) => text.replace("benign", "PWNED")],
		["its map", (text) => text.replace('\\"version\\":3', '\\"version\\":4')],
		["its shape", (text) => text.replace("Greets.", "Greets you.")],
		["its source hash", (text) => text.replace(HASH, OTHER_HASH)],
		["its rules", (text) => text.replace(/"salt":"r\d+/, '"salt":"r1')],
		["its MAC", (text) => `${text.slice(0, 10)}${text[10] === "0" ? "1" : "0"}${text.slice(11)}`],
		["its form (the entry of before, without a MAC)", (text) => text.slice(text.indexOf("\n") + 1)],
	];
	it.each(tampered)("an entry with %s changed is a miss", async (_, change) => {
		const { cache, entryFile } = await fixture();
		await cache().put(HASH, CODE, SHAPE);
		const file = entryFile();
		const text = readFileSync(file, "utf8");
		expect(change(text)).not.toBe(text);
		writeFileSync(file, change(text));
		expect(await cache().getChecked(HASH)).toBeUndefined();
	});

	it("an entry put under another source's file name is a miss", async () => {
		const { cache, entryFile } = await fixture();
		await cache().put(HASH, CODE);
		const file = entryFile();
		writeFileSync(file.replace("a".repeat(64), "b".repeat(64)), readFileSync(file));
		expect(await cache().get(OTHER_HASH)).toBeUndefined();
		expect((await cache().get(HASH))?.code).toBe(CODE.code);
	});

	it("an entry written under another user's key is a miss, and a write under this key makes it count", async () => {
		const theirs = await fixture();
		const { cache } = theirs;
		const elsewhere = new CacheKey(join(await mkdtemp(join(tmpdir(), "forge-cc-other-")), CACHE_KEY_FILE));
		await cache(elsewhere).put(HASH, { ...CODE, code: 'module.exports = () => "PWNED";' }, SHAPE);
		expect((await cache(elsewhere).get(HASH))?.code).toContain("PWNED");
		expect(await cache().getChecked(HASH)).toBeUndefined();
		await cache().put(HASH, CODE, SHAPE);
		expect(await cache().getChecked(HASH)).toEqual({ code: CODE, shape: SHAPE });
		expect(await cache(elsewhere).getChecked(HASH)).toBeUndefined();
	});
});
