// Verified forging: tests run before promotion in the runner real calls use; failures list every case; tests are
// stored and re-run on every re-forge; draft vs verified; repeated failures suggest the version that works.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { host, snapshot, tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";

const counter = (logic: string, tests?: unknown) => ({
	...toolRequest("count-words", logic),
	...(tests === undefined ? {} : { tests }),
});
const good = "return params.text.split(/\\s+/).filter(Boolean).length;";
const offByOne = "return params.text.split(/\\s+/).length - 1;";
const TESTS = [
	{ args: { text: "a b c" }, expect: "3" },
	{ args: { text: "one" }, equals: 1 },
	{ args: { text: "  spaced   out  " }, matches: "^2$" },
];

describe("tests in the forge", () => {
	it("a tool whose tests pass is promoted and verified; the tests are stored with it", async () => {
		const { toolbox, dir } = await tempToolbox();
		const result = await toolbox.forge(counter(good, TESTS), new Map());
		expect(result.ok, !result.ok ? result.error.message : "").toBe(true);
		expect(toolbox.get("count-words")).toMatchObject({ tests: 3, verified: true });
		const meta = JSON.parse(await readFile(join(dir, "forge-count-words.json"), "utf8"));
		expect(meta.tests).toEqual(TESTS);
		expect(meta.verifiedHash).toBe(meta.hash);
	});

	it("a failing test promotes nothing and lists every failing case, expected vs actual", async () => {
		const { toolbox, dir } = await tempToolbox();
		await toolbox.forge(counter(good), new Map());
		await toolbox.flush();
		const before = await snapshot(dir);
		const result = await toolbox.forge(counter(offByOne, TESTS), new Map());
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error.phase).toBe("tests");
		expect(result.error.message).toBe("3 of 3 tests failed; nothing was changed.");
		expect(result.error.details.notes).toEqual([
			'test 1 {"text":"a b c"}: expected output containing "3", got "2"',
			'test 2 {"text":"one"}: expected output equal to the JSON value 1, got "0"',
			'test 3 {"text":"  spaced   out  "}: expected output matching /^2$/, got "3"',
		]);
		expect(result.error.details.source).toContain(offByOne);
		expect(await snapshot(dir)).toEqual(before);
		const still = await toolbox.use("count-words", { text: "x y" }, { host });
		expect(still.ok && still.value.content[0]).toEqual({ type: "text", text: "2" });
	});

	it("expectError passes only when the call fails with that message; a throw is located in the file", async () => {
		const { toolbox } = await tempToolbox();
		const logic = "if (!params.text) throw new Error('text is empty');\nreturn params.text.length;";
		expect(
			(await toolbox.forge(counter(logic, [{ args: { text: "" }, expectError: "text is empty" }]), new Map())).ok,
		).toBe(true);
		const wrong = await toolbox.forge(counter(logic, [{ args: { text: "" }, expect: "0" }]), new Map());
		expect(!wrong.ok && wrong.error.details.notes?.[0]).toMatch(
			/expected output containing "0", got runtime error: "Error: text is empty"/,
		);
		const source = (!wrong.ok && wrong.error.details.source) || "";
		expect(!wrong.ok && wrong.error.details.location?.line).toBe(
			source.split("\n").findIndex((l) => l.includes("throw new Error")) + 1,
		);
	});

	it("a re-forge without tests re-runs the stored ones: a regression is caught", async () => {
		const { toolbox } = await tempToolbox();
		await toolbox.forge(counter(good, TESTS), new Map());
		const regressed = await toolbox.forge(counter(offByOne), new Map());
		expect(!regressed.ok && regressed.error.phase).toBe("tests");
		const fine = await toolbox.forge(counter(`// same, reworded\n${good}`), new Map());
		expect(fine.ok && fine.value.meta.tests).toEqual(TESTS);
	});

	it("a re-forge says what happened to the earlier tests: kept and re-run, or replaced (kept, added, dropped)", async () => {
		const { toolbox } = await tempToolbox();
		await toolbox.forge(counter(good, TESTS), new Map());
		const kept = await toolbox.forge(counter(`// reworded\n${good}`), new Map());
		expect(kept.ok && kept.value.tests).toEqual({ kind: "kept", count: 3, fromVersion: 1 });
		const replaced = await toolbox.forge(counter(good, [TESTS[0], { args: { text: "" }, equals: 0 }]), new Map());
		expect(replaced.ok && replaced.value.tests).toEqual({
			kind: "replaced",
			count: 2,
			kept: 1,
			added: 1,
			dropped: [TESTS[1], TESTS[2]],
			fromVersion: 2,
		});
		expect(replaced.ok && replaced.value.meta.tests).toHaveLength(2);
	});

	it("a failure of kept tests says they are the previous version's, kept because no tests were given", async () => {
		const { toolbox } = await tempToolbox();
		await toolbox.forge(counter(good, TESTS), new Map());
		const regressed = await toolbox.forge(counter(offByOne), new Map());
		expect(!regressed.ok && regressed.error.details.notes?.[0]).toBe(
			"These are the 3 tests of v1, kept and re-run because this call gave no tests; pass tests to replace them.",
		);
	});

	it("tests that hang are stopped at their own deadline", async () => {
		const { toolbox } = await tempToolbox();
		const slow = await toolbox.forge(
			counter("await new Promise((r) => setTimeout(r, 2000));\nreturn 1;", [
				{ args: { text: "x" }, expect: "1", timeoutMs: 100 },
			]),
			new Map(),
		);
		expect(!slow.ok && slow.error.details.notes?.[0]).toMatch(/got timeout error/);
	});

	it("malformed tests are refused with phase tests", async () => {
		const { toolbox } = await tempToolbox();
		const result = await toolbox.forge(counter(good, [{ args: { text: "x" }, expect: "1", equals: 1 }]), new Map());
		expect(!result.ok && result.error.message).toBe("tests[0] has expect and equals: give one expectation per case.");
	});

	it("runs on demand", async () => {
		const { toolbox } = await tempToolbox();
		await toolbox.forge(counter(good, TESTS), new Map());
		const run = await toolbox.runTests("count-words");
		expect(run.ok && run.value.map((v) => v.pass)).toEqual([true, true, true]);
	});

	it("after a few failed repairs in a row, the error points back at the version that works", async () => {
		const { toolbox } = await tempToolbox();
		await toolbox.forge(counter(good, TESTS), new Map());
		let last: Awaited<ReturnType<typeof toolbox.forge>> | undefined;
		for (let i = 0; i < 3; i++) last = await toolbox.forge(counter(offByOne), new Map());
		expect(!last!.ok && last!.error.details.notes?.at(-1)).toBe(
			"This is failed attempt 3 in a row at 'count-words'. The live version v1 (verified) still works and is unchanged: consider a smaller change to it, or keep it as it is.",
		);
	});
});

describe("where a wrong value came from", () => {
	it("a failing expectation points at the logic's only return", async () => {
		const { toolbox } = await tempToolbox();
		const result = await toolbox.forge(counter(offByOne, TESTS), new Map());
		const source = (!result.ok && result.error.details.source) || "";
		expect(!result.ok && result.error.details.location?.line).toBe(
			source.split("\n").findIndex((l) => l.startsWith("return params.text")) + 1,
		);
	});
});

describe("verification after a hand edit", () => {
	it("a hand-edited tool keeps its tests but is unverified until they pass again", async () => {
		const { readFile: read, writeFile, utimes } = await import("node:fs/promises");
		const box = await tempToolbox();
		await box.toolbox.forge(counter(good, TESTS), new Map());
		const path = join(box.dir, "forge-count-words.ts");
		await writeFile(path, (await read(path, "utf8")).replace(good, `// counted by hand\n${good}`));
		const later = new Date(Date.now() + 5000);
		await utimes(path, later, later);
		const reopened = await box.reopen();
		expect(reopened.get("count-words")).toMatchObject({ tests: 3, verified: false });
		const run = await reopened.runTests("count-words");
		expect(run.ok && run.value.every((v) => v.pass)).toBe(true);
		expect(reopened.get("count-words")?.verified).toBe(true);
	});
});

describe("a test whose arguments do not fit the schema", () => {
	it("names the field in the failure", async () => {
		const { toolbox } = await tempToolbox();
		const result = await toolbox.forge(counter(good, [{ args: { txt: "a b" }, expect: "2" }]), new Map());
		expect(!result.ok && result.error.details.notes?.[0]).toContain(
			"params.text: must have required property 'text'",
		);
	});
});
