// A project pi comes to trust during a session (current line, in-process pi): its toolbox is left alone while it is
// untrusted, and opened — its tools run — from the first call after pi trusts it, without a restart.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, type PiHarness, startPi } from "../helpers/pi-harness.ts";
import { PI_LINE } from "../helpers/pi-line.ts";

const INDEX = join(import.meta.dirname, "..", "..", "index.ts");
const READER = {
	name: "notes-reader",
	description: "Reads notes.txt in the project.",
	parametersSchema: { type: "object", properties: {} },
	logic: `import { readFileSync } from "node:fs";\nreturn "notes: " + readFileSync("notes.txt", "utf8");`,
};

let pi: PiHarness | undefined;
afterEach(async () => {
	await pi?.dispose();
	pi = undefined;
});

if (PI_LINE === "current") {
	describe("trust given during the session", () => {
		it("an untrusted project's tool is refused, then runs once pi trusts the project", async () => {
			const cwd = await makeTempDir("forge-trust-session");
			await writeFile(join(cwd, "notes.txt"), "hello");
			// The project's author forged the tool (a trusted session).
			pi = await startPi({ extensionPaths: [INDEX], cwd });
			const forged = await pi.run("forge", [[{ name: "forge_tool", args: READER }], { text: "done" }]);
			expect(forged.toolEvents.map((e) => [e.toolName, e.isError])).toEqual([["forge_tool", false]]);
			await pi.dispose();

			pi = await startPi({ extensionPaths: [INDEX], cwd, projectTrusted: false });
			const use = [[{ name: "use_forge_tool", args: { name: READER.name, args: {} } }], { text: "done" }];
			const refused = await pi.run("use it", use);
			expect(refused.toolEvents[0]).toMatchObject({ toolName: "use_forge_tool", isError: true });
			expect(refused.toolEvents[0].text).toContain("pi does not trust this project");
			expect(refused.toolEvents[0].text).not.toContain("notes: hello");

			pi.session.settingsManager.setProjectTrusted(true);
			const ran = await pi.run("use it again", use);
			expect(ran.toolEvents[0]).toMatchObject({ toolName: "use_forge_tool", isError: false });
			expect(ran.toolEvents[0].text).toContain("notes: hello");
		}, 120_000);
	});
}
