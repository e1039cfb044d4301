// A roll-back and an import run the candidate's code — its preflight load and its tests — before they lock the toolbox,
// as a forge does: while a slow test runs, the lock file is free, another tool is forged and called and the registry
// read, and changes of one name still land in the order they were asked for.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importTools } from "../../src/share/package.ts";
import type { IsolatedBox } from "../helpers/isolated-fixture.ts";
import { host, toolRequest } from "../helpers/toolbox-fixture.ts";
import { isolatedPerTest, locked, message, SLOW_TEST, slow } from "../helpers/unlocked-fixture.ts";

const openBox = isolatedPerTest();

/** While `change` runs a slow test: the lock is free, and a forge, a call and a listing go on without waiting for it. */
async function othersGoOn(box: IsolatedBox, change: Promise<unknown>): Promise<void> {
	const { toolbox, dir } = box;
	await new Promise((r) => setTimeout(r, 500));
	expect(await locked(dir)).toBe(false);
	const started = performance.now();
	const other = await toolbox.forge(toolRequest("other", "return 'other';"), new Map());
	const call = await toolbox.use("quick", { text: "abc" }, { host });
	const listed = toolbox.list().tools.map((view) => view.entry.name);
	const meanwhile = performance.now() - started;
	expect(message(other)).toBe("ok");
	expect(message(call)).toBe("ok");
	expect(listed).toContain("other");
	expect(meanwhile).toBeLessThan(900); // not behind the slow test's remaining two seconds
	let settled = false;
	void change.finally(() => (settled = true));
	await new Promise((r) => setTimeout(r, 0));
	expect(settled).toBe(false); // the slow test was still running all along
}

describe("a roll-back's tests run with the toolbox unlocked", () => {
	it("while the restored version's slow test runs, the lock is free and other tools are forged and called", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox } = box;
		await toolbox.forge(toolRequest("quick", "return params.text.length;"), new Map());
		expect(message(await toolbox.forge(toolRequest("slow-one", slow(2500), { tests: SLOW_TEST }), new Map()))).toBe(
			"ok",
		);
		expect(message(await toolbox.forge(toolRequest("slow-one", "return params.text;"), new Map()))).toBe("ok");
		const rolledBack = toolbox.rollback("slow-one", 1);
		await othersGoOn(box, rolledBack);
		const result = await rolledBack;
		expect(message(result)).toBe("ok");
		expect(toolbox.get("slow-one")?.version).toBe(3);
		expect(await toolbox.readSource("slow-one")).toContain("setTimeout");
	});

	it("a roll-back and a forge of one name asked for in a row land in that order, whatever their tests take", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox } = box;
		await toolbox.forge(toolRequest("ordered", slow(800), { tests: SLOW_TEST }), new Map());
		await toolbox.forge(toolRequest("ordered", "return params.text;", { tests: SLOW_TEST }), new Map());
		const back = toolbox.rollback("ordered", 1);
		const again = toolbox.forge(toolRequest("ordered", "return `${params.text}`;", { tests: SLOW_TEST }), new Map());
		const [a, b] = await Promise.all([back, again]);
		expect([message(a), message(b)]).toEqual(["ok", "ok"]);
		expect(a.ok && a.value.meta.version).toBe(3);
		expect(b.ok && b.value.meta.version).toBe(4);
		expect(await toolbox.readSource("ordered")).toContain("`${params.text}`");
	});

	it("a restored version whose test fails now is refused as before, and the live version stays", async () => {
		const box = await openBox();
		const { toolbox, cwd } = box;
		const marker = join(cwd, "marker");
		await writeFile(marker, "");
		const logic =
			'import { existsSync } from "node:fs";\nreturn existsSync(`${ctx.cwd}/marker`) ? params.text : "gone";';
		expect(message(await toolbox.forge(toolRequest("flaky", logic, { tests: SLOW_TEST }), new Map()))).toBe("ok");
		expect(message(await toolbox.forge(toolRequest("flaky", "return params.text;"), new Map()))).toBe("ok");
		await rm(marker);
		const back = await toolbox.rollback("flaky", 1);
		expect(!back.ok && back.error.phase).toBe("tests");
		expect(toolbox.get("flaky")?.version).toBe(2);
		expect(await toolbox.readSource("flaky")).not.toContain("existsSync");
		const missing = await toolbox.rollback("flaky", 9);
		expect(!missing.ok && missing.error.phase).toBe("not-found");
	});
});

describe("an import's tests run with the toolbox unlocked", () => {
	it("while the imported tool's slow test runs, the lock is free and other tools are forged and called", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox } = box;
		await toolbox.forge(toolRequest("quick", "return params.text.length;"), new Map());
		const from = await exported(box, "slow-one", slow(2500));
		const imported = importTools(toolbox, from);
		await othersGoOn(box, imported);
		const outcomes = await imported;
		expect(outcomes.map((o) => [o.name, o.ok, o.error?.message])).toEqual([["slow-one", true, undefined]]);
		expect(toolbox.get("slow-one")?.version).toBe(1); // the removed tool's numbering starts again
	});

	it("an import whose test fails is refused, and nothing of it is left", async () => {
		const box = await openBox();
		const { toolbox } = box;
		const from = await exported(box, "wrong", "return 'nope';");
		const [outcome] = await importTools(toolbox, from);
		expect(outcome.ok).toBe(false);
		expect(outcome.error?.phase).toBe("tests");
		expect(toolbox.get("wrong")).toBeUndefined();
		expect(await toolbox.readSource("wrong")).toBeUndefined();
	});
});

/** A folder holding `name` as forged elsewhere (one version, with a test), to import from; `name` is gone here. */
async function exported(box: IsolatedBox, name: string, logic: string): Promise<string> {
	const { toolbox } = box;
	const draft = await toolbox.forge(toolRequest(name, "return params.text;", { tests: SLOW_TEST }), new Map());
	expect(message(draft)).toBe("ok");
	const { metaText } = await toolbox.readTool(name);
	const source = (await toolbox.readSource(name))!.replace("return params.text;", logic);
	expect(source).toContain(logic);
	const from = await mkdtemp(join(tmpdir(), "forge-import-"));
	await writeFile(join(from, `forge-${name}.ts`), source);
	await writeFile(join(from, `forge-${name}.json`), metaText!);
	expect(message(await toolbox.remove(name))).toBe("ok");
	return from;
}
