// The run-time side of the import rule: a `require` that serves only the core library, and the module evaluator.
import * as fs from "node:fs";
import * as path from "node:path";
import type * as typebox from "typebox";
import { describe, expect, it } from "vitest";
import { ForgeError } from "../../src/contract/forge-error.ts";
import { renderTool } from "../../src/forge/render.ts";
import { transpile } from "../../src/forge/transpile.ts";
import { coreLibraryRequire, evaluateModule } from "../../src/run/module-loader.ts";
import { loadTemplate } from "../../src/store/template-file.ts";

function refusedAtRunTime(specifier: unknown): ForgeError {
	const require = coreLibraryRequire("probe");
	try {
		require(specifier as string);
	} catch (error) {
		if (error instanceof ForgeError) return error;
		throw error;
	}
	throw new Error(`expected require(${String(specifier)}) to be refused`);
}

describe("coreLibraryRequire", () => {
	const require = coreLibraryRequire("probe");

	it("serves the core library in its accepted spellings", () => {
		expect((require("node:fs") as typeof fs).readFileSync).toBe(fs.readFileSync);
		expect((require("node:fs") as typeof fs).readFileSync).toBe(fs.readFileSync);
		expect((require("node:path") as typeof path).join).toBe(path.join);
		expect(typeof (require("node:fs/promises") as { readFile: unknown }).readFile).toBe("function");
		expect(typeof (require("node:child_process") as { spawn: unknown }).spawn).toBe("function");
	});

	it("serves typebox under both names: pi's TypeBox 1.x", () => {
		const sinclair = require("@sinclair/typebox") as typeof typebox;
		const bare = require("typebox") as typeof typebox;
		expect(bare).toBe(sinclair);
		expect(typeof sinclair.Type.Object).toBe("function");
		expect(sinclair.Type.String()).toMatchObject({ type: "string" });
		expect(sinclair.Type.Object({ a: sinclair.Type.Integer({ minimum: 1 }) })).toEqual({
			type: "object",
			required: ["a"],
			properties: { a: { type: "integer", minimum: 1 } },
		});
	});

	it("refuses everything else with phase import, naming the module and the tool", () => {
		for (const specifier of ["os", "node:os", "http", "./x", "../forge-other.ts", "/etc/passwd", "vitest"]) {
			const error = refusedAtRunTime(specifier);
			expect(error.phase).toBe("import");
			expect(error.details.tool).toBe("probe");
			expect(error.message).toBe(
				`require(${JSON.stringify(specifier)}) was refused at run time: forged tools may use only fs, fs/promises, path, child_process (bare or node:), typebox (or @sinclair/typebox), and type-only imports of pi (@earendil-works/pi-coding-agent or @mariozechner/pi-coding-agent).`,
			);
		}
	});

	it("refuses a specifier that is not a string", () => {
		expect(refusedAtRunTime({ toString: () => "fs" }).phase).toBe("import");
	});
});

describe("evaluateModule", () => {
	it("runs CommonJS and returns its exports", () => {
		const exports = evaluateModule(
			"exports.answer = 42; module.exports.kind = typeof require;",
			"/virtual/forge-a.ts",
			coreLibraryRequire("a"),
		);
		expect(exports).toEqual({ answer: 42, kind: "function" });
	});

	it("uses a replaced module.exports", () => {
		expect(
			evaluateModule("module.exports = { replaced: true };", "/virtual/forge-a.ts", coreLibraryRequire("a")),
		).toEqual({ replaced: true });
	});

	it("gives the module the require it was passed, which refuses outside the core library", () => {
		expect(() => evaluateModule('require("node:os");', "/virtual/forge-a.ts", coreLibraryRequire("a"))).toThrow(
			ForgeError,
		);
		const exports = evaluateModule(
			'exports.sep = require("node:path").sep;',
			"/virtual/forge-a.ts",
			coreLibraryRequire("a"),
		);
		expect(exports.sep).toBe(path.sep);
	});

	it("names the filename in stack frames and as __filename", () => {
		const exports = evaluateModule(
			"exports.file = __filename;\nexports.boom = () => {\n  throw new Error('x');\n};",
			"/virtual/forge-a.ts",
			coreLibraryRequire("a"),
		);
		expect(exports.file).toBe("/virtual/forge-a.ts");
		let stack = "";
		try {
			(exports.boom as () => void)();
		} catch (error) {
			stack = (error as Error).stack ?? "";
		}
		expect(stack).toContain("(/virtual/forge-a.ts:3:9)");
	});
});

describe("every import form reaches the runner's module provider", () => {
	/** Stand-ins for a runner's facades: each is a distinct object, so the test sees which one a form got. */
	const facades: Record<string, Record<string, unknown>> = {
		"node:fs": { tag: "fs facade", readFileSync: () => "from the fs facade" },
		"node:fs/promises": { tag: "fs/promises facade", readFile: async () => "from the promises facade" },
		"node:path": { tag: "path facade", sep: "|" },
	};
	const provide = (specifier: string) => facades[specifier.startsWith("node:") ? specifier : `node:${specifier}`];

	async function run(logic: string): Promise<unknown> {
		const { source } = renderTool(loadTemplate(), {
			name: "forms",
			description: "Forms.",
			parameters: { type: "object" },
			logic,
		});
		const compiled = await transpile(source, "forge-forms.ts");
		if (!compiled.ok) throw compiled.error;
		const exports = evaluateModule(
			compiled.value.cjs.code,
			"/virtual/forge-forms.ts",
			coreLibraryRequire("forms", provide),
		);
		return (exports.execute as (p: unknown) => Promise<unknown>)({});
	}

	it.each([
		[
			"a destructured dynamic import",
			'const { readFile } = await import("node:fs/promises");\nreturn await readFile("x");',
			"from the promises facade",
		],
		["a dynamic import's default", 'const fs = (await import("fs")).default;\nreturn fs.tag;', "fs facade"],
		["a dynamic import's namespace", 'const ns = await import("node:path");\nreturn ns.sep;', "|"],
		["require", 'const fs = require("node:fs");\nreturn fs.readFileSync("x");', "from the fs facade"],
		["a default import", 'import fs from "node:fs";\nreturn fs.tag;', "fs facade"],
		["a namespace import", 'import * as path from "path";\nreturn path.sep;', "|"],
		[
			"a named import",
			'import { readFile } from "node:fs/promises";\nreturn await readFile("x");',
			"from the promises facade",
		],
		["import-equals", 'import fs = require("node:fs");\nreturn fs.tag;', "fs facade"],
		[
			"a type-only import beside a value import",
			'import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";\nimport { sep } from "node:path";\nconst api: ExtensionAPI | undefined = undefined;\nreturn api ?? sep;',
			"|",
		],
	])("%s", async (_form, logic, expected) => {
		expect(await run(logic)).toBe(expected);
	});

	it("gives a dynamic import the very object a static import gets", async () => {
		expect(
			await run(
				'import * as fs from "node:fs";\nconst dynamic = await import("node:fs");\nreturn dynamic.default === fs.default && dynamic.default === require("node:fs");',
			),
		).toBe(true);
	});

	it("rejects a dynamic import of a module outside the core library the way require refuses it", async () => {
		const { source } = renderTool(loadTemplate(), {
			name: "forms",
			description: "Forms.",
			parameters: { type: "object" },
			logic: 'return await import("node:os");',
		});
		const compiled = await transpile(source, "forge-forms.ts");
		if (!compiled.ok) throw compiled.error;
		const exports = evaluateModule(
			compiled.value.cjs.code,
			"/virtual/forge-forms.ts",
			coreLibraryRequire("forms", provide),
		);
		await expect((exports.execute as (p: unknown) => Promise<unknown>)({})).rejects.toMatchObject({
			phase: "import",
			message: expect.stringContaining('require("node:os") was refused at run time'),
		});
	});
});
