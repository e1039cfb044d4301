// A private temp dir per tool instead of the shared one (issue 11; red team F8, F18): a tool's TMPDIR (process.env) and its
// commands' TMPDIR are a folder of its own, the one temp folder it writes without a grant; the shared OS temp dir
// (other projects, other sessions' files, pi's output logs, caches other programs run) and other tools' temp dirs are
// outside its roots, and a link left in /tmp cannot be moved into the project.
import {
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Result } from "../../src/contract/forge-error.ts";
import type { UseSuccess } from "../../src/toolbox/toolbox.ts";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host as noUI, toolRequest } from "../helpers/toolbox-fixture.ts";

const NO_PARAMS = { type: "object", properties: {} };
const OS_TEMP = realpathSync(tmpdir());

async function forge(box: IsolatedBox, name: string, logic: string): Promise<void> {
	const forged = await box.toolbox.forge(toolRequest(name, logic, { parametersSchema: NO_PARAMS }), new Map());
	expect(forged.ok, forged.ok ? "" : `${forged.error.phase}: ${forged.error.message}`).toBe(true);
}

function text(result: Result<UseSuccess>): string {
	if (!result.ok) throw new Error(`expected success, got ${result.error.phase}: ${result.error.message}`);
	return result.value.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

async function run(box: IsolatedBox, name: string): Promise<string> {
	return text(await box.toolbox.use(name, {}, { host: noUI }));
}

async function close(box: IsolatedBox | undefined): Promise<void> {
	if (!box) return;
	await box.toolbox.close();
	rmSync(box.cwd, { recursive: true, force: true });
	rmSync(dirname(dirname(box.grants.file)), { recursive: true, force: true });
}

describe("each tool has a private temp dir (strict: nothing granted)", () => {
	let box: IsolatedBox;
	let shared: string;
	beforeAll(async () => {
		box = await isolatedToolbox({ PI_FORGE_POLICY: "strict", PI_FORGE_TIMEOUT_MS: "6000" });
		shared = mkdtempSync(join(OS_TEMP, "forge-shared-"));
		writeFileSync(join(shared, "pi-output-demo.log"), "secret output of pi's bash tool");
		mkdirSync(join(shared, "other-project", ".pi", "extensions"), { recursive: true });
		mkdirSync(join(shared, "other-project", "src"), { recursive: true });
		symlinkSync("/etc", join(shared, "etc-link"));
	});
	afterAll(async () => {
		await close(box);
		rmSync(shared, { recursive: true, force: true });
	});

	it("TMPDIR is the tool's own folder, not the shared one, and writable", async () => {
		await forge(
			box,
			"temp-a",
			`const fs = require("fs"); const path = require("path");
const dir = process.env.TMPDIR; fs.writeFileSync(path.join(dir, "mine.txt"), "a's"); fs.mkdirSync(path.join(dir, "sub/deeper"), { recursive: true });
return JSON.stringify({ dir, env: process.env.TMPDIR, read: fs.readFileSync(path.join(dir, "mine.txt"), "utf8") });`,
		);
		const outcome = JSON.parse(await run(box, "temp-a")) as { dir: string; env: string; read: string };
		expect(outcome.dir).not.toBe(OS_TEMP);
		expect(outcome.dir.startsWith(`${OS_TEMP}/agent-forge-`)).toBe(true);
		expect(outcome.dir.endsWith("/temp-a")).toBe(true);
		expect(outcome.env).toBe(outcome.dir);
		expect(outcome.read).toBe("a's");
	}, 30_000);

	it("another tool's temp dir is another folder, and its files are outside the second tool's roots", async () => {
		await forge(
			box,
			"temp-b",
			`const fs = require("fs"); const path = require("path");
const other = path.join(path.dirname(process.env.TMPDIR), "temp-a", "mine.txt"); const out = { dir: process.env.TMPDIR };
try { out.read = fs.readFileSync(other, "utf8"); } catch (e) { out.read = e.code; }
try { fs.writeFileSync(other, "overwritten by b"); out.write = "written"; } catch (e) { out.write = e.code; }
return JSON.stringify(out);`,
		);
		const outcome = JSON.parse(await run(box, "temp-b")) as { dir: string; read: string; write: string };
		expect(outcome.dir.endsWith("/temp-b")).toBe(true);
		expect(outcome.read).toBe("ERR_FORGE_PERMISSION");
		expect(outcome.write).toBe("ERR_FORGE_PERMISSION");
	}, 30_000);

	it("the shared temp dir is outside: its files, listing and other projects are refused", async () => {
		await forge(
			box,
			"temp-shared",
			`const fs = require("fs"); const out = [];
const tries = [
  () => fs.readFileSync(${JSON.stringify(join(shared, "pi-output-demo.log"))}, "utf8"),
  () => fs.readdirSync(${JSON.stringify(OS_TEMP)}).length,
  () => fs.writeFileSync(${JSON.stringify(join(shared, "rt-shared-state.json"))}, "{}"),
  () => fs.writeFileSync(${JSON.stringify(join(shared, "other-project", ".pi", "extensions", "evil.ts"))}, "pwned"),
  () => fs.writeFileSync(${JSON.stringify(join(shared, "other-project", "src", "a.ts"))}, "pwned"),
  () => fs.mkdirSync(${JSON.stringify(join(OS_TEMP, "tsx-0", "x"))}, { recursive: true }),
];
for (const t of tries) try { t(); out.push("done"); } catch (e) { out.push(e.code); }
return out.join(",");`,
		);
		expect((await run(box, "temp-shared")).split(",")).toEqual(Array(6).fill("ERR_FORGE_PERMISSION"));
		expect(existsSync(join(shared, "other-project", ".pi", "extensions", "evil.ts"))).toBe(false);
		expect(existsSync(join(shared, "rt-shared-state.json"))).toBe(false);
	}, 30_000);

	it("a link left in the shared temp dir cannot be moved into the project", async () => {
		await forge(
			box,
			"temp-link",
			`const fs = require("fs");
try { fs.renameSync(${JSON.stringify(join(shared, "etc-link"))}, process.cwd() + "/etc"); return "moved"; } catch (e) { return e.code; }`,
		);
		expect(await run(box, "temp-link")).toBe("ERR_FORGE_PERMISSION");
		expect(existsSync(join(box.cwd, "etc"))).toBe(false);
		expect(lstatSync(join(shared, "etc-link")).isSymbolicLink()).toBe(true);
	}, 30_000);
});

describe("a granted command's TMPDIR is its tool's temp dir (permissive)", () => {
	let box: IsolatedBox;
	beforeAll(async () => {
		box = await isolatedToolbox({ PI_FORGE_POLICY: "permissive", PI_FORGE_TIMEOUT_MS: "6000" });
	});
	afterAll(async () => close(box));

	it("mktemp in a command lands in the tool's folder", async () => {
		await forge(
			box,
			"temp-cmd",
			`const cp = require("child_process");
const made = cp.execSync("mktemp", { encoding: "utf8" }).trim();
return JSON.stringify({ made, env: cp.execSync("echo $TMPDIR", { encoding: "utf8" }).trim(), dir: process.env.TMPDIR });`,
		);
		const outcome = JSON.parse(await run(box, "temp-cmd")) as { made: string; env: string; dir: string };
		expect(outcome.env).toBe(outcome.dir);
		expect(outcome.made.startsWith(`${outcome.dir}/`)).toBe(true);
	}, 30_000);
});
