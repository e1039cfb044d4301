// A change whose candidate turns out different once the toolbox is locked (a forge that keeps the previous version's
// tests, when that version changed after the forge's unlocked run) lets the lock go and runs the new candidate's code
// unlocked again, rather than under the lock; it still lands in its turn, with the tests of the version it replaces.
import { describe, expect, it } from "vitest";
import { toolRequest } from "../helpers/toolbox-fixture.ts";
import { isolatedPerTest, locked, message } from "../helpers/unlocked-fixture.ts";

const openBox = isolatedPerTest();

describe("a candidate that changed by the time the toolbox is locked runs unlocked again", () => {
	it("a forge that keeps tests changed meanwhile runs them with the lock free, and lands after the change", async () => {
		const box = await openBox({ PI_FORGE_TIMEOUT_MS: "5000" });
		const { toolbox, dir } = box;
		const fast = [{ args: { text: "x" }, expect: "x" }];
		const slowCase = [{ args: { text: "slow" }, expect: "slow" }];
		expect(message(await toolbox.forge(toolRequest("kept", "return params.text;", { tests: fast }), new Map()))).toBe(
			"ok",
		);
		// The second forge gives no tests: it keeps the first's (fast for it) in its unlocked run, then the second's
		// (slow for it) once the first has landed.
		const first = toolbox.forge(toolRequest("kept", "return `${params.text}`;", { tests: slowCase }), new Map());
		const second = toolbox.forge(
			toolRequest(
				"kept",
				'if (params.text === "slow") await new Promise((r) => setTimeout(r, 1500));\nreturn params.text;',
			),
			new Map(),
		);
		expect(message(await first)).toBe("ok");
		await new Promise((r) => setTimeout(r, 500));
		expect(await locked(dir)).toBe(false);
		const other = await toolbox.forge(toolRequest("other", "return 'other';"), new Map());
		expect(message(other)).toBe("ok");
		const landed = await second;
		expect(message(landed)).toBe("ok");
		expect(landed.ok && landed.value.meta.version).toBe(3);
		expect(landed.ok && landed.value.meta.tests).toEqual(slowCase);
		expect(landed.ok && landed.value.tests?.kind).toBe("kept");
		expect(await toolbox.readSource("kept")).toContain("setTimeout");
	});
});
