// The audit log cannot fill the disk (issue 11; red team F21): a tool that makes refusals by the thousand under
// `strict` grows the log to its cap, then the older part is moved aside (replacing the one before), so the log takes at
// most twice the cap; the older part is as unreadable to tools as the log, and `readAudit` still reads both, in order.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLog, MAX_AUDIT_BYTES, readAudit } from "../../src/policy/audit-log.ts";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host as noUI, toolRequest } from "../helpers/toolbox-fixture.ts";

const NO_PARAMS = { type: "object", properties: {} };

describe("the audit log is capped", () => {
	it("moves its older part aside past the cap and reads both back in order", async () => {
		const dir = mkdtempSync(join(tmpdir(), "forge-audit-"));
		try {
			const log = new AuditLog(join(dir, "audit.jsonl"));
			const detail = "x".repeat(3000);
			const lines = Math.ceil((MAX_AUDIT_BYTES * 2.5) / 3100);
			for (let i = 0; i < lines; i++) {
				log.append({ at: new Date().toISOString(), tool: "t", version: "h", detail: `${i} ${detail}` });
				if (i % 200 === 0) await log.flush();
			}
			await log.flush();
			expect(statSync(log.file).size).toBeLessThanOrEqual(MAX_AUDIT_BYTES);
			expect(statSync(`${log.file}.1`).size).toBeLessThanOrEqual(MAX_AUDIT_BYTES);
			expect(statSync(`${log.file}.1`).mode & 0o777).toBe(0o600);
			const records = await readAudit(log.file);
			const numbers = records.map((record) => Number(record.detail?.split(" ")[0]));
			expect(numbers.at(-1)).toBe(lines - 1);
			expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe("a strict tool's refusals by the thousand (isolated runner)", () => {
	let box: IsolatedBox;
	beforeAll(async () => {
		box = await isolatedToolbox({ PI_FORGE_POLICY: "strict", PI_FORGE_TIMEOUT_MS: "12000" });
	});
	afterAll(async () => {
		await box.toolbox.close();
		rmSync(box.cwd, { recursive: true, force: true });
		rmSync(dirname(dirname(box.grants.file)), { recursive: true, force: true });
	});

	it("fill the log to at most twice its cap, and its older part stays unreadable", async () => {
		const forged = await box.toolbox.forge(
			toolRequest(
				"refused",
				`const fs = require("fs"); const long = "/etc/" + "x".repeat(3000); let n = 0; const t0 = Date.now();
while (Date.now() - t0 < 6000) { try { fs.statSync(long + n); } catch {} n++; }
return String(n);`,
				{ parametersSchema: NO_PARAMS },
			),
			new Map(),
		);
		expect(forged.ok).toBe(true);
		const used = await box.toolbox.use("refused", {}, { host: noUI });
		expect(used.ok).toBe(true);
		await box.audit.flush();
		const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
		expect(size(box.audit.file) + size(`${box.audit.file}.1`)).toBeLessThanOrEqual(2 * MAX_AUDIT_BYTES);
		expect(existsSync(`${box.audit.file}.1`)).toBe(true);

		const reader = await box.toolbox.forge(
			toolRequest(
				"audit-reader",
				`const fs = require("fs"); try { return fs.readFileSync(${JSON.stringify(`${box.audit.file}.1`)}, "utf8").slice(0, 50); } catch (e) { return e.code; }`,
				{ parametersSchema: NO_PARAMS },
			),
			new Map(),
		);
		expect(reader.ok).toBe(true);
		const read = await box.toolbox.use("audit-reader", {}, { host: noUI });
		expect(read.ok && read.value.content[0]).toEqual({ type: "text", text: "EACCES" });
		expect(readFileSync(box.audit.file, "utf8").length).toBeGreaterThan(0);
	}, 60_000);
});
