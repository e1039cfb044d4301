// A person's "always" that cannot be saved is not lost in silence: the gate tries again (a write may fail for a
// moment), and when it still cannot, the grant holds for this session and the person is told why it will not last,
// as the audit log records.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import { AuditLog, readAudit } from "../../src/policy/audit-log.ts";
import { ASK_OPTIONS, createPolicyGate } from "../../src/policy/gate.ts";
import { GrantsStore } from "../../src/policy/grants-store.ts";
import type { BrokerCall } from "../../src/run/isolated/parent/broker.ts";

let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "forge-gate-remember-"));
});
afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

/** A store whose first `failures` saves fail, as a busy or unwritable file would. */
class FlakyGrants extends GrantsStore {
	saves = 0;
	constructor(
		file: string,
		private failures: number,
	) {
		super(file);
	}
	override async remember(...args: Parameters<GrantsStore["remember"]>): Promise<void> {
		this.saves++;
		if (this.failures-- > 0) throw new Error("EBUSY: resource busy or locked");
		return super.remember(...args);
	}
}

async function gateWith(grants: GrantsStore) {
	const { config } = readConfig(dir, { PI_FORGE_POLICY: "prompt" });
	await grants.load();
	const audit = new AuditLog(join(dir, "audit.jsonl"));
	const gate = createPolicyGate({ config, grants, audit, runtimeDir: join(dir, "agent", "runtime") });
	const asked: string[] = [];
	const notes: Array<[string, string | undefined]> = [];
	const call: BrokerCall = {
		tool: "probe",
		hash: "h1",
		host: {
			pi: undefined,
			hasUI: true,
			notify: (message, level) => notes.push([message, level]),
			select: async (title) => {
				asked.push(title);
				return ASK_OPTIONS.always;
			},
		},
		pause: () => () => undefined,
		children: new Set(),
		alive: () => true,
	};
	return { gate, audit, call, asked, notes, config };
}

const saved = async (file: string, project: string) => {
	const store = new GrantsStore(file);
	await store.load();
	return store.get(project, "probe", "h1").allow;
};

describe("remembering an 'always'", () => {
	it("a save that fails for a moment is tried again, and the grant is saved with nothing to tell", async () => {
		const grants = new FlakyGrants(join(dir, "agent", "grants.json"), 1);
		const { gate, audit, call, asked, notes, config } = await gateWith(grants);
		expect(await gate.authorise({ kind: "env", name: "SECRET_THING" }, call)).toBeUndefined();
		expect(grants.saves).toBe(2);
		expect(await saved(grants.file, config.realCwd)).toEqual(["env:SECRET_THING"]);
		expect(notes).toEqual([]);
		await audit.flush();
		const [record] = await readAudit(audit.file);
		expect([record.decision, record.reason]).toEqual(["ask-allow-always", "allowed by the user"]);
		expect(asked).toHaveLength(1);
	});

	it("a save that keeps failing: allowed for this session, the person told, the audit saying so", async () => {
		const grants = new FlakyGrants(join(dir, "agent", "grants.json"), Number.POSITIVE_INFINITY);
		const { gate, audit, call, asked, notes, config } = await gateWith(grants);
		expect(await gate.authorise({ kind: "env", name: "SECRET_THING" }, call)).toBeUndefined();
		expect(grants.saves).toBe(3);
		expect(notes).toHaveLength(1);
		expect(notes[0][1]).toBe("warning");
		expect(notes[0][0]).toContain("'probe': the grant 'env:SECRET_THING' holds in this session only");
		expect(notes[0][0]).toContain(`could not be saved to ${grants.file} (EBUSY: resource busy or locked)`);
		await audit.flush();
		const [record] = await readAudit(audit.file);
		expect(record.decision).toBe("ask-allow-always");
		expect(record.reason).toContain("allowed by the user; the grant 'env:SECRET_THING' holds in this session only");
		expect(await saved(grants.file, config.realCwd)).toEqual([]);
		expect(asked).toHaveLength(1);
	});

	it("a grants file that cannot be written at all (its folder is a file): said, and the grant holds in this session", async () => {
		await mkdir(join(dir, "agent"), { recursive: true });
		await writeFile(join(dir, "agent", "forge"), "a file where the folder should be");
		const grants = new GrantsStore(join(dir, "agent", "forge", "grants.json"));
		const { gate, audit, call, asked, notes } = await gateWith(grants);
		expect(await gate.authorise({ kind: "env", name: "SECRET_THING" }, call)).toBeUndefined();
		expect(notes.map(([message]) => message)).toEqual([
			expect.stringMatching(/holds in this session only: it could not be saved to .*grants\.json \(E[A-Z]+: /),
		]);
		// The next ask in this session needs no dialog: the grant is kept in memory.
		expect(await gate.authorise({ kind: "env", name: "SECRET_THING" }, call)).toBeUndefined();
		expect(asked).toHaveLength(1);
		await audit.flush();
	});
});
