// Issue class 3: reads outside the project without a grant, through a link in the project, named by something other
// than a plain string (a Uint8Array, a URL-like object, an object whose string changes) or after rewriting the
// built-ins the facade's checks use. Each is refused (prompt, no UI); the same forms still read inside the project.
import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host as noUI, toolRequest } from "../helpers/toolbox-fixture.ts";

const NO_PARAMS = { type: "object", properties: {} };
const HOSTNAME = readFileSync("/etc/hostname", "utf8");
let box: IsolatedBox;

beforeAll(async () => {
	box = await isolatedToolbox({ PI_FORGE_POLICY: "prompt", PI_FORGE_TIMEOUT_MS: "20000" });
	symlinkSync("/etc", join(box.cwd, "etc-link"));
	writeFileSync(join(box.cwd, "inside.txt"), "inside");
});
afterAll(async () => {
	await box.toolbox.close();
	rmSync(box.cwd, { recursive: true, force: true });
});

async function run(name: string, logic: string): Promise<{ ok: boolean; text: string }> {
	const forged = await box.toolbox.forge(
		toolRequest(name, `import * as fs from "node:fs";\n${logic}`, { parametersSchema: NO_PARAMS }),
		new Map(),
	);
	expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
	const used = await box.toolbox.use(name, {}, { host: noUI });
	return used.ok
		? { ok: true, text: used.value.content.map((c) => ("text" in c ? c.text : "")).join("") }
		: { ok: false, text: `${used.error.phase}: ${used.error.message}` };
}

describe("reads that leave the project through a link", () => {
	it.each([
		["a Uint8Array path", 'return fs.readFileSync(new TextEncoder().encode("etc-link/hostname"), "utf8");'],
		[
			"a Buffer path after Buffer.isBuffer is rewritten",
			'Buffer.isBuffer = () => false;\nreturn fs.readFileSync(Buffer.from("etc-link/hostname"), "utf8");',
		],
		[
			"a URL-like object",
			'return fs.readFileSync({ href: "file://" + process.cwd() + "/etc-link/hostname", protocol: "file:", pathname: process.cwd() + "/etc-link/hostname" } as any, "utf8");',
		],
		[
			"a polluted String.prototype.startsWith",
			'String.prototype.startsWith = () => true;\nreturn fs.readFileSync("etc-link/hostname", "utf8");',
		],
		[
			"polluted Array.prototype.some and every",
			'Array.prototype.some = () => true;\nArray.prototype.every = () => true;\nreturn fs.readFileSync("etc-link/hostname", "utf8");',
		],
		[
			"a rewritten global URL",
			'(globalThis as any).URL = class { constructor() { return { href: "x" }; } };\nreturn fs.readFileSync("etc-link/hostname", "utf8");',
		],
		[
			"fs.promises with a Uint8Array",
			'return await fs.promises.readFile(new TextEncoder().encode("etc-link/hostname"), "utf8");',
		],
		[
			"a stream opened from a URL-like object",
			'return String(fs.createReadStream({ href: "file://" + process.cwd() + "/etc-link/hostname", protocol: "file:" } as any));',
		],
	])("%s is refused", async (label, logic) => {
		const result = await run(`out-${label.replace(/\W+/g, "-").toLowerCase()}`.slice(0, 48).replace(/-$/, ""), logic);
		expect(result.ok, result.text).toBe(false);
		expect(result.text).not.toContain(HOSTNAME.trim());
		expect(result.text).toMatch(
			/^(permission: .* may not read \/etc\/hostname|runtime: (Error: )?fs\.createReadStream outside the project is not available)/,
		);
	});

	it("an object whose path would change between the check and the read is not taken as a path", async () => {
		const result = await run(
			"shifty",
			'let n = 0;\nconst shifty = { toString: () => (n++ === 0 ? "inside.txt" : "etc-link/hostname") };\nreturn fs.readFileSync(shifty as any, "utf8");',
		);
		expect(result.ok).toBe(false);
		expect(result.text).toContain("A path must be a string, a Buffer, a Uint8Array or a file: URL.");
	});
});

describe("the same forms inside the project still read", () => {
	it.each([
		["a Uint8Array", 'return fs.readFileSync(new TextEncoder().encode("inside.txt"), "utf8");'],
		["a file: URL", 'return fs.readFileSync(new URL("file://" + process.cwd() + "/inside.txt"), "utf8");'],
		["a Buffer", 'return fs.readFileSync(Buffer.from("inside.txt"), "utf8");'],
	])("%s", async (label, logic) => {
		const result = await run(`in-${label.replace(/\W+/g, "-").toLowerCase()}`.replace(/-$/, ""), logic);
		expect(result).toEqual({ ok: true, text: "inside" });
	});
});
