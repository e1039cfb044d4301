// What a forge's tests may change (issue 11; red team F14): a forge that is refused says "nothing was changed", so its
// tests write only in the tool's private temp dir (its TMPDIR); a test that writes in the project is refused with a
// message that says so, and a granted command run by a test cannot write the project either (OS sandbox). Once
// forged, the tool's calls write the project as before.
import { existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host as noUI, toolRequest } from "../helpers/toolbox-fixture.ts";

const NO_PARAMS = { type: "object", properties: {} };

describe("a forge's tests write only in the tool's private temp dir", () => {
	let box: IsolatedBox;
	let permissive: IsolatedBox;
	beforeAll(async () => {
		box = await isolatedToolbox({ PI_FORGE_POLICY: "prompt", PI_FORGE_TIMEOUT_MS: "4000" });
		permissive = await isolatedToolbox({ PI_FORGE_POLICY: "permissive", PI_FORGE_TIMEOUT_MS: "4000" });
	});
	afterAll(async () => {
		for (const b of [box, permissive]) {
			await b.toolbox.close();
			rmSync(b.cwd, { recursive: true, force: true });
			rmSync(dirname(dirname(b.grants.file)), { recursive: true, force: true });
		}
	});

	it("a refused forge whose test wrote into the project leaves nothing there", async () => {
		const forged = await box.toolbox.forge(
			toolRequest(
				"side-effect",
				'require("fs").writeFileSync(process.cwd() + "/written-by-test.txt", "side effect"); return "nope";',
				{ parametersSchema: NO_PARAMS, tests: [{ args: {}, expect: "this never matches" }] },
			),
			new Map(),
		);
		expect(forged.ok).toBe(false);
		if (!forged.ok) expect(forged.error.message).toMatch(/nothing was changed/);
		expect(existsSync(join(box.cwd, "written-by-test.txt"))).toBe(false);
		expect(box.toolbox.get("side-effect")).toBeUndefined();
	}, 30_000);

	it("a test that writes into the project fails the forge, saying tests write only in the tool's temp dir", async () => {
		const forged = await box.toolbox.forge(
			toolRequest("reporter", 'require("fs").writeFileSync(process.cwd() + "/report.txt", "r"); return "done";', {
				parametersSchema: NO_PARAMS,
				tests: [{ args: {}, expect: "done" }],
			}),
			new Map(),
		);
		expect(forged.ok).toBe(false);
		if (!forged.ok) {
			expect(forged.error.phase).toBe("tests");
			expect(JSON.stringify(forged.error.details)).toMatch(
				/may not write .*report\.txt while a forge tests it: .*write only in the tool's private temp dir \(process\.env\.TMPDIR\)/,
			);
		}
		expect(existsSync(join(box.cwd, "report.txt"))).toBe(false);
	}, 30_000);

	it("a test that writes in the tool's TMPDIR passes, and the forged tool's calls write the project", async () => {
		const logic = `const fs = require("fs"); const path = require("path");
const dir = params.where === "project" ? process.cwd() : process.env.TMPDIR;
fs.mkdirSync(path.join(dir, "out"), { recursive: true }); fs.writeFileSync(path.join(dir, "out", "r.txt"), "r");
return fs.readFileSync(path.join(dir, "out", "r.txt"), "utf8");`;
		const forged = await box.toolbox.forge(
			toolRequest("temp-writer", logic, {
				parametersSchema: { type: "object", properties: { where: { type: "string" } } },
				tests: [{ args: { where: "temp" }, expect: "r" }],
			}),
			new Map(),
		);
		expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
		expect(existsSync(join(box.cwd, "out"))).toBe(false);
		const used = await box.toolbox.use("temp-writer", { where: "project" }, { host: noUI });
		expect(used.ok).toBe(true);
		expect(existsSync(join(box.cwd, "out", "r.txt"))).toBe(true);
	}, 30_000);

	it("a granted command run by a test cannot write the project (OS sandbox)", async () => {
		const forged = await permissive.toolbox.forge(
			toolRequest(
				"cmd-side-effect",
				'require("child_process").execSync("touch cmd-by-test.txt; echo ok"); return "nope";',
				{ parametersSchema: NO_PARAMS, tests: [{ args: {}, expect: "this never matches" }] },
			),
			new Map(),
		);
		expect(forged.ok).toBe(false);
		expect(existsSync(join(permissive.cwd, "cmd-by-test.txt"))).toBe(false);
	}, 30_000);
});
