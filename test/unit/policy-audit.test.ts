// The audit log: ordered JSON Lines that are never fatal to write and tolerant to read.
import { appendFile, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditLog, type AuditRecord, readAudit } from "../../src/policy/audit-log.ts";

let dir: string;

beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "forge-audit-"));
});

afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

const record = (i: number, extra: Partial<AuditRecord> = {}): AuditRecord => ({
	at: new Date(1_700_000_000_000 + i).toISOString(),
	tool: "log-parser",
	version: "sha256-abc",
	capability: `read:/data/${i}`,
	decision: "allow",
	reason: "inside the project",
	...extra,
});

describe("AuditLog", () => {
	it("writes 100 records in the order they were appended, one JSON object per line", async () => {
		const log = new AuditLog(join(dir, ".forge-audit.jsonl"));
		for (let i = 0; i < 100; i++) log.append(record(i));
		await log.flush();
		const text = await readFile(log.file, "utf8");
		const lines = text.trimEnd().split("\n");
		expect(lines).toHaveLength(100);
		expect(lines.map((line) => JSON.parse(line).capability)).toEqual(
			Array.from({ length: 100 }, (_, i) => `read:/data/${i}`),
		);
		expect(await readAudit(log.file)).toEqual(Array.from({ length: 100 }, (_, i) => record(i)));
	});

	it("keeps order across appends made while a write is under way", async () => {
		const log = new AuditLog(join(dir, "a.jsonl"));
		log.append(record(0));
		const first = log.flush();
		log.append(record(1));
		await first;
		log.append(record(2));
		await log.flush();
		expect((await readAudit(log.file)).map((r) => r.capability)).toEqual([
			"read:/data/0",
			"read:/data/1",
			"read:/data/2",
		]);
	});

	it("appends to what is already there", async () => {
		const file = join(dir, "a.jsonl");
		const first = new AuditLog(file);
		first.append(record(0));
		await first.flush();
		const second = new AuditLog(file);
		second.append(record(1, { decision: undefined, outcome: "timeout", durationMs: 30000 }));
		await second.flush();
		const records = await readAudit(file);
		expect(records).toHaveLength(2);
		expect(records[1]).toMatchObject({ outcome: "timeout", durationMs: 30000 });
	});

	it("resolves flush() at once when nothing is pending", async () => {
		const log = new AuditLog(join(dir, "a.jsonl"));
		await expect(log.flush()).resolves.toBeUndefined();
		await expect(stat(log.file)).rejects.toThrow();
	});

	it("creates a missing parent dir and keeps the file private", async () => {
		const log = new AuditLog(join(dir, "deep", "er", "a.jsonl"));
		log.append(record(0));
		await log.flush();
		expect(await readAudit(log.file)).toHaveLength(1);
		expect((await stat(log.file)).mode & 0o777).toBe(0o600);
	});

	it("never throws when the file cannot be written, and goes on", async () => {
		const log = new AuditLog(dir);
		expect(() => log.append(record(0))).not.toThrow();
		await expect(log.flush()).resolves.toBeUndefined();
		const cyclic: Record<string, unknown> = { ...record(1) };
		cyclic.self = cyclic;
		expect(() => log.append(cyclic as unknown as AuditRecord)).not.toThrow();
	});

	it("cuts a very long detail", async () => {
		const log = new AuditLog(join(dir, "a.jsonl"));
		log.append(record(0, { outcome: "error", detail: "x".repeat(100_000) }));
		await log.flush();
		const [only] = await readAudit(log.file);
		expect(only!.detail!.length).toBeLessThanOrEqual(4000);
		expect(only!.detail!.endsWith("…")).toBe(true);
	});
});

describe("readAudit", () => {
	it("skips corrupt lines and keeps the rest", async () => {
		const file = join(dir, "a.jsonl");
		const log = new AuditLog(file);
		log.append(record(0));
		await log.flush();
		await appendFile(file, '{"at":"2024-01-01T00:00:00.000Z","tool":"cut sho\n');
		await appendFile(file, '42\nnull\n{"no":"fields"}\n\n');
		log.append(record(1));
		await log.flush();
		expect((await readAudit(file)).map((r) => r.capability)).toEqual(["read:/data/0", "read:/data/1"]);
	});

	it("reads a missing file as empty", async () => {
		expect(await readAudit(join(dir, "none.jsonl"))).toEqual([]);
	});
});
