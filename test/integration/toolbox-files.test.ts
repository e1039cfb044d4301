// What the toolbox writes into a project: a read-only open writes nothing at all; an open that may write adds the
// `.gitignore`, and with it git sees only the tools (forge-<name>.ts / .json) and the .gitignore itself.
import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.ts";
import { InlineRunner } from "../../src/run/inline-runner.ts";
import { GITIGNORE_FILE, TOOLBOX_GITIGNORE } from "../../src/store/gitignore.ts";
import { createToolbox } from "../../src/toolbox/open-toolbox.ts";
import type { Toolbox } from "../../src/toolbox/toolbox.ts";
import { isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host, snapshot, tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";

/** Everything under `dir` — folders too — with file contents, for a byte-for-byte comparison. */
async function tree(dir: string): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
		const path = join(entry.parentPath, entry.name);
		out[relative(dir, path)] = entry.isFile() ? await readFile(path, "utf8") : "<dir>";
	}
	return out;
}

async function readOnlyBox(cwd: string): Promise<Toolbox> {
	const toolbox = createToolbox(readConfig(cwd, {}).config, new InlineRunner());
	await toolbox.open({ readOnly: true });
	return toolbox;
}

describe("a read-only open", () => {
	it("of a project with no toolbox creates nothing and sees an empty toolbox", async () => {
		const { cwd } = await tempToolbox();
		await rm(join(cwd, ".pi"), { recursive: true });
		const toolbox = await readOnlyBox(cwd);
		expect(toolbox.entries()).toEqual([]);
		expect(await toolbox.versions("anything")).toEqual([]);
		await toolbox.close();
		expect(await tree(cwd)).toEqual({});
	});

	it("derives hand edits, a broken tool and a missing registry in memory, writing nothing; changes are refused", async () => {
		const { toolbox: writer, cwd, dir } = await tempToolbox();
		for (const name of ["upper", "lower", "shout"]) {
			const forged = await writer.forge(
				toolRequest(name, "return params.text.toUpperCase();", { tests: [{ args: { text: "a" }, equals: "A" }] }),
				new Map(),
			);
			expect(forged.ok).toBe(true);
		}
		await writer.close();
		await rm(join(dir, "forge-registry.json"));
		await rm(join(dir, GITIGNORE_FILE));
		const later = new Date(Date.now() + 5000);
		await writeFile(
			join(dir, "forge-upper.ts"),
			(await readFile(join(dir, "forge-upper.ts"), "utf8")).replace("toUpperCase()", "toUpperCase() + '!'"),
		);
		await utimes(join(dir, "forge-upper.ts"), later, later);
		await writeFile(
			join(dir, "forge-lower.ts"),
			(await readFile(join(dir, "forge-lower.ts"), "utf8")).replace("toUpperCase();", "toUpperCase(;"),
		);
		// Still passes its tests: in a writable open, running them would record it verified again.
		await writeFile(
			join(dir, "forge-shout.ts"),
			(await readFile(join(dir, "forge-shout.ts"), "utf8")).replace("toUpperCase();", "toUpperCase(); // louder"),
		);
		await utimes(join(dir, "forge-shout.ts"), later, later);
		const before = await tree(cwd);

		const toolbox = await readOnlyBox(cwd);
		expect(toolbox.get("upper")).toMatchObject({ status: "ok", version: 2 });
		expect(toolbox.get("lower")).toMatchObject({ status: "broken" });
		expect(toolbox.get("shout")).toMatchObject({ status: "ok", version: 2, verified: false });
		const tests = await toolbox.runTests("shout");
		expect(tests.ok && tests.value.map((v) => v.pass)).toEqual([true]);
		const diff = await toolbox.diff("upper", 1, 2);
		expect(diff.ok && diff.value).toContain("+return params.text.toUpperCase() + '!';");
		await expect(toolbox.forge(toolRequest("new-one", "return 1;"), new Map())).rejects.toThrow("opened read-only");
		await expect(toolbox.remove("shout")).rejects.toThrow("opened read-only");
		await toolbox.close();

		expect(await tree(cwd)).toEqual(before);
	});
});

describe("the toolbox's .gitignore", () => {
	it("is written when a toolbox is created", async () => {
		const { dir } = await tempToolbox();
		expect(await readFile(join(dir, GITIGNORE_FILE), "utf8")).toBe(TOOLBOX_GITIGNORE);
	});

	it("is added to an existing toolbox that has none when it is opened to write, and a person's own is kept", async () => {
		const { dir, reopen } = await tempToolbox();
		await rm(join(dir, GITIGNORE_FILE));
		await (await reopen()).close();
		expect(await readFile(join(dir, GITIGNORE_FILE), "utf8")).toBe(TOOLBOX_GITIGNORE);
		await writeFile(join(dir, GITIGNORE_FILE), "# ours\n");
		await (await reopen()).close();
		expect(await readFile(join(dir, GITIGNORE_FILE), "utf8")).toBe("# ours\n");
	});

	it("is never added by a read-only open", async () => {
		const { dir, cwd } = await tempToolbox();
		await rm(join(dir, GITIGNORE_FILE));
		const before = await snapshot(dir);
		await (await readOnlyBox(cwd)).close();
		expect(await snapshot(dir)).toEqual(before);
	});

	it("leaves git seeing only the tools and itself, after every kind of file the toolbox writes", async () => {
		const box = await isolatedToolbox();
		const { toolbox, cwd, dir } = box;
		try {
			execFileSync("git", ["init", "-q"], { cwd });
			for (const [name, logic] of [
				["keep", "return params.text;"],
				["keep", "return params.text + '.';"],
				["gone", "return 1;"],
			]) {
				const forged = await toolbox.forge(toolRequest(name, logic), new Map());
				expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
			}
			expect((await toolbox.use("keep", { text: "a" }, { host })).ok).toBe(true);
			expect((await toolbox.remove("gone")).ok).toBe(true);
			await toolbox.flush();
			await box.audit.flush();
			// What exists only for a moment: locks, a change being staged, temporary files of interrupted writes.
			await mkdir(join(dir, ".forge.lock"));
			await mkdir(join(dir, ".forge-registry.lock"));
			await mkdir(join(dir, ".staging", "keep-1234abcd"), { recursive: true });
			await writeFile(join(dir, ".staging", "keep-1234abcd", "forge-keep.ts"), "");
			for (const file of [
				"forge-keep.ts.123456",
				"forge-keep.json.99",
				"forge-keep.ts.bak.7",
				"forge-registry.json.4242",
				".forge-health.json.17",
			])
				await writeFile(join(dir, file), "");

			const written = await readdir(dir, { recursive: true });
			for (const expected of [
				"forge-registry.json",
				"forge-keep.ts.bak",
				"forge-keep.json.bak",
				".forge-health.json",
				".forge-audit.jsonl",
				".state",
				".history",
			])
				expect(written).toContain(expected);

			const status = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
				cwd,
				encoding: "utf8",
			});
			expect(status.split("\n").filter(Boolean).sort()).toEqual([
				"?? .pi/forge/extensions/.gitignore",
				"?? .pi/forge/extensions/forge-keep.json",
				"?? .pi/forge/extensions/forge-keep.ts",
			]);
		} finally {
			await toolbox.close();
		}
	});
});
