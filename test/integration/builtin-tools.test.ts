// pi's own built-in tools run for a forged tool on operations that act as the caller: their text comes back, their
// schemas check the arguments, and what the caller may not do is refused by the operations, not done.
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { CallerOperations } from "../../src/contract/tool-calls.ts";
import { runBuiltinTool } from "../../src/pi/builtin-tools.ts";
import { makeTempDir } from "../helpers/pi-harness.ts";

/** Real file operations on `root`, refusing (like a policy would) anything inside a folder named `secret`. */
function operations(root: string, refused: string[]): CallerOperations {
	const check = (path: string) => {
		if (!resolve(path).startsWith(root) || resolve(path).includes("/secret/")) {
			refused.push(path);
			throw Object.assign(new Error(`Permission denied: ${path}`), { name: "PermissionError" });
		}
	};
	const guarded =
		<A extends unknown[], R>(run: (path: string, ...rest: A) => Promise<R>) =>
		async (path: string, ...rest: A): Promise<R> => {
			check(path);
			return run(path, ...rest);
		};
	return {
		hidden: (path) => path.endsWith(".forge-audit.jsonl"),
		readFile: guarded((p) => readFile(p)),
		readText: guarded((p) => readFile(p, "utf8")),
		access: guarded(async (p) => void (await stat(p))),
		exists: guarded((p) =>
			stat(p).then(
				() => true,
				() => false,
			),
		),
		stat: guarded((p) => stat(p)),
		readdir: guarded((p) => readdir(p)),
		list: guarded(async (p) =>
			(await readdir(p, { withFileTypes: true })).map((e) => ({ name: e.name, folder: e.isDirectory() })),
		),
		searchable: guarded(async (p) => ({ isDirectory: (await stat(p)).isDirectory() })),
		writeFile: guarded((p, content: string) => writeFile(p, content)),
		mkdir: guarded(async (p) => void (await mkdir(p, { recursive: true }))),
		shell: (command, cwd, options) =>
			new Promise((done) => {
				const child = spawn("bash", ["-c", command], { cwd });
				child.stdout.on("data", options.onData);
				child.stderr.on("data", options.onData);
				child.on("close", (code) => done({ exitCode: code }));
			}),
	};
}

async function project() {
	const root = await makeTempDir("forge-builtins");
	await writeFile(join(root, "notes.txt"), "alpha beta\ngamma TODO delta\n");
	await mkdir(join(root, "src", "deep"), { recursive: true });
	await writeFile(join(root, "src", "deep", "a.ts"), "export const a = 1;\n");
	await mkdir(join(root, "secret"));
	await writeFile(join(root, "secret", "key.txt"), "hunter2\n");
	const refused: string[] = [];
	return { root, refused, context: { cwd: root, ops: operations(root, refused) } };
}

describe("runBuiltinTool", () => {
	it("read returns the file's text, as pi's read tool gives it", async () => {
		const { context } = await project();
		expect(await runBuiltinTool("read", { path: "notes.txt" }, context)).toContain("gamma TODO delta");
	});

	it("ls lists a folder (folders marked), find walks without fd", async () => {
		const { context } = await project();
		const listed = await runBuiltinTool("ls", { path: "." }, context);
		expect(listed).toContain("notes.txt");
		expect(listed).toContain("src/");
		expect(await runBuiltinTool("find", { pattern: "*.ts" }, context)).toBe("src/deep/a.ts");
		expect(await runBuiltinTool("find", { pattern: "src/**/*.ts" }, context)).toBe("src/deep/a.ts");
	});

	it("write and edit change files through the operations", async () => {
		const { root, context } = await project();
		expect(await runBuiltinTool("write", { path: "out/new.txt", content: "hello forge\n" }, context)).toMatch(
			/Successfully wrote/,
		);
		await runBuiltinTool("edit", { path: "out/new.txt", edits: [{ oldText: "hello", newText: "goodbye" }] }, context);
		expect(await readFile(join(root, "out", "new.txt"), "utf8")).toBe("goodbye forge\n");
	});

	it("grep runs pi's grep (ripgrep) and leaves out what it found in a file no tool may read", async () => {
		const { root, context } = await project();
		await writeFile(join(root, ".forge-audit.jsonl"), '{"detail":"TODO secret audit line"}\n');
		const found = await runBuiltinTool("grep", { pattern: "TODO" }, context);
		expect(found).toContain("notes.txt:2: gamma TODO delta");
		expect(found).not.toContain("secret audit line");
	});

	it("bash runs through the shell operation and returns its output", async () => {
		const { context } = await project();
		expect(await runBuiltinTool("bash", { command: "echo composed-$((40+2))" }, context)).toContain("composed-42");
	});

	it("what the operations refuse is refused: the error reaches the caller and nothing is read or written", async () => {
		const { root, refused, context } = await project();
		await expect(runBuiltinTool("read", { path: "secret/key.txt" }, context)).rejects.toThrow(/Permission denied/);
		await expect(runBuiltinTool("write", { path: "secret/new.txt", content: "x" }, context)).rejects.toThrow(
			/Permission denied/,
		);
		expect(refused.length).toBeGreaterThanOrEqual(2);
		await expect(stat(join(root, "secret", "new.txt"))).rejects.toThrow(/ENOENT/);
	});

	it("arguments are checked against the built-in's own schema; an unknown built-in is refused", async () => {
		const { context } = await project();
		await expect(runBuiltinTool("read", { file: "notes.txt" }, context)).rejects.toThrow(
			/pi.useTool\("read"\): the arguments do not fit read's parameters/,
		);
		await expect(runBuiltinTool("forge_tool", {}, context)).rejects.toThrow(/not one of pi's built-in tools/);
	});

	// Third red team, R2: minimatch turns `+(a|aa)` into a backtracking regex; in pi's process a long name hung pi.
	it("find's pattern is matched off pi's main thread: a catastrophic one fails within its bound, pi's loop runs on", async () => {
		const { root, context } = await project();
		await writeFile(join(root, `${"a".repeat(40)}!`), "x");
		let ticks = 0;
		const ticking = setInterval(() => ticks++, 20);
		const started = performance.now();
		try {
			await expect(runBuiltinTool("find", { pattern: "+(a|aa)+(a|aa)b" }, context)).rejects.toThrow(
				/find: the pattern "\+\(a\|aa\)\+\(a\|aa\)b" could not be matched \(over 2000 ms for one folder\): use a simpler glob/,
			);
		} finally {
			clearInterval(ticking);
		}
		const took = performance.now() - started;
		expect(took).toBeLessThan(10_000);
		expect(ticks).toBeGreaterThan(took / 20 / 4); // the event loop was not blocked for the match
		// The checker comes back for the next pattern.
		expect(await runBuiltinTool("find", { pattern: "*.ts" }, context)).toBe("src/deep/a.ts");
	});

	it("a brace expansion that explodes costs the checker's time, not pi's", async () => {
		const { context } = await project();
		const bomb = "{a,b,c,d}".repeat(14); // 4^14 patterns: brace-expansion stops at 100,000, or the bound stops it
		let ticks = 0;
		const ticking = setInterval(() => ticks++, 20);
		const started = performance.now();
		const outcome = await runBuiltinTool("find", { pattern: bomb }, context).then(
			(text) => text,
			(error: Error) => error.message,
		);
		clearInterval(ticking);
		expect(outcome).toMatch(/No files found|find: the pattern .* could not be matched/);
		expect(ticks).toBeGreaterThan((performance.now() - started) / 20 / 4);
		expect(await runBuiltinTool("find", { pattern: "{notes,none}.txt" }, context)).toBe("notes.txt");
	});

	// R3: with pi's cwd reached through a link, grep's filter compared the link's paths with the real ones it hides.
	it("grep leaves out the hidden files when pi's cwd is reached through a symbolic link", async () => {
		const { root } = await project();
		const toolbox = join(root, ".pi", "forge", "extensions");
		await mkdir(toolbox, { recursive: true });
		await writeFile(join(toolbox, ".forge-audit.jsonl"), '{"detail":"TODO secret audit line"}\n');
		const link = `${root}-link`;
		await symlink(root, link);
		const refused: string[] = [];
		const ops = {
			...operations(root, refused),
			hidden: (path: string) => path === join(toolbox, ".forge-audit.jsonl"),
		};
		for (const path of [".", ".pi/forge/extensions"]) {
			const found = await runBuiltinTool("grep", { pattern: "TODO", path, glob: "*" }, { cwd: link, ops });
			expect(found).not.toContain("secret audit line");
		}
		const found = await runBuiltinTool("grep", { pattern: "TODO" }, { cwd: link, ops });
		expect(found).toContain("gamma TODO delta");
	});

	// R8: pi's edit diffs the old text against the new in pi's process after writing; for a large change that took minutes.
	it("edit of a large change writes the file and answers at once, without pi's diff", async () => {
		const { root, context } = await project();
		const lines = (prefix: string) => Array.from({ length: 8000 }, (_, i) => `${prefix}${i}`).join("\n");
		await writeFile(join(root, "big.txt"), lines("a"));
		const started = performance.now();
		const said = await runBuiltinTool(
			"edit",
			{ path: "big.txt", edits: [{ oldText: lines("a"), newText: lines("b") }] },
			context,
		);
		expect(said).toBe("Successfully replaced 1 block(s) in big.txt.");
		expect(await readFile(join(root, "big.txt"), "utf8")).toBe(lines("b"));
		expect(performance.now() - started).toBeLessThan(3_000); // pi's diff of these texts alone takes many seconds
		// An edit that does not apply still fails as pi's edit says, and writes nothing.
		await expect(
			runBuiltinTool("edit", { path: "big.txt", edits: [{ oldText: "not there", newText: "x" }] }, context),
		).rejects.toThrow(/Could not find/);
	});

	// R9: pi's grep keeps every match up to `limit` in pi's heap before it cuts the text.
	it("grep's, find's and ls's limits are held to 1,000 (and grep's context to 10), saying so", async () => {
		const { root, context } = await project();
		await writeFile(join(root, "many.txt"), "x\n".repeat(5000));
		const found = await runBuiltinTool("grep", { pattern: "x", path: "many.txt", limit: 1e12, context: 50 }, context);
		expect(found).toContain(
			"[For a forged tool, grep's limit 1000000000000 → 1000 and context 50 → 10 (the most it may ask)]",
		);
		expect(found.split("\n").filter((line) => /^many.txt:\d+:/.test(line)).length).toBeLessThanOrEqual(1000);
		const listed = await runBuiltinTool("ls", { path: ".", limit: 5000 }, context);
		expect(listed).toContain("ls's limit 5000 → 1000");
		expect(await runBuiltinTool("grep", { pattern: "TODO", limit: 5 }, context)).not.toContain("For a forged tool");
	});
});
