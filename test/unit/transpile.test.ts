// The forge's transpile step: esbuild turns the TypeScript into CommonJS and ESM; syntax errors come back located in the file.
import { describe, expect, it } from "vitest";
import { renderTool } from "../../src/forge/render.ts";
import { transpile } from "../../src/forge/transpile.ts";
import { loadTemplate } from "../../src/store/template-file.ts";

const FILE = "forge-demo.ts";

function render(logic: string) {
	return renderTool(loadTemplate(), { name: "demo", description: "Demo.", parameters: { type: "object" }, logic });
}

async function syntaxError(source: string) {
	const result = await transpile(source, FILE);
	if (result.ok) throw new Error("expected a syntax error");
	expect(result.error.phase).toBe("syntax");
	return result.error;
}

describe("transpile", () => {
	it("produces CommonJS and ESM, each with a source map of the file", async () => {
		const { source } = render('import fs from "node:fs";\nconst n: number = 1;\nreturn fs.existsSync(".") ? n : 0;');
		const result = await transpile(source, FILE);
		if (!result.ok) throw result.error;
		const { cjs, esm } = result.value;
		expect(cjs.code).toContain('require("node:fs")');
		expect(cjs.code).not.toContain(": number");
		expect(esm.code).toMatch(/^import fs from "node:fs";$/m);
		expect(esm.code).toMatch(/^async function execute\(/m);
		expect(esm.code).toMatch(/^export \{/m);
		expect(cjs.code).toContain("module.exports");
		for (const { map } of [cjs, esm]) {
			const parsed = JSON.parse(map) as { version: number; sources: string[]; mappings: string };
			expect(parsed.version).toBe(3);
			expect(parsed.sources).toEqual([FILE]);
			expect(parsed.mappings.length).toBeGreaterThan(0);
		}
	});

	it("compiles import() to a promise of require() in the CommonJS, and keeps it in the ESM for the import check", async () => {
		const { source } = render('const { readFile } = await import("node:fs/promises");\nreturn typeof readFile;');
		const result = await transpile(source, FILE);
		if (!result.ok) throw result.error;
		expect(result.value.cjs.code).not.toMatch(/\bimport\(/);
		expect(result.value.cjs.code).toMatch(
			/Promise\.resolve\(\)\.then\(\(\) => __toESM\(require\("node:fs\/promises"\)\)\)/,
		);
		expect(result.value.esm.code).toContain('await import("node:fs/promises")');
	});

	it("keeps an unused value import in the ESM (the import check must see it) and drops type-only ones", async () => {
		const result = await transpile(
			'import os from "node:os";\nimport type { Static } from "@sinclair/typebox";\nexport const x = 1;\n',
			FILE,
		);
		if (!result.ok) throw result.error;
		expect(result.value.esm.code).toContain('import os from "node:os";');
		expect(result.value.esm.code).not.toContain("@sinclair/typebox");
	});

	it("locates a syntax error at its 1-based line and column in the rendered file", async () => {
		const { source, logicStartLine } = render("const a = 1;\nconst b = a +;\nreturn b;");
		const error = await syntaxError(source);
		expect(error.details.location).toEqual({ file: FILE, line: logicStartLine + 1, column: 14 });
		expect(source.split("\n")[logicStartLine][13]).toBe(";");
		expect(error.message).toBe('Unexpected ";"');
		expect(error.details.source).toBe(source);
	});

	it("locates an error on the first line and first column", async () => {
		const error = await syntaxError(")");
		expect(error.details.location).toEqual({ file: FILE, line: 1, column: 1 });
	});

	it("hints that logic is only the body of execute when it contains `export`", async () => {
		const { source, logicStartLine } = render("export const answer = 42;\nreturn answer;");
		const error = await syntaxError(source);
		expect(error.details.location?.line).toBe(logicStartLine);
		expect(error.details.hint).toContain("logic is the body of execute only");
	});

	it("hints at single-line imports for an import that could not be hoisted", async () => {
		const { source } = render('const x = 1;\nimport fs from "node:fs";\nreturn x;');
		const error = await syntaxError(source);
		expect(error.details.hint).toContain("Put each import on its own single line at the very top of logic");
	});

	it("gives a generic hint otherwise", async () => {
		const error = await syntaxError("const = 1;\n");
		expect(error.details.hint).toBe(
			"Fix the syntax at that line and call forge_tool again with the complete corrected logic.",
		);
	});

	it("adds further errors as located notes", async () => {
		const error = await syntaxError("let x = 1;\nlet x = 2;\nlet x = 3;\n");
		expect(error.message).toBe('The symbol "x" has already been declared');
		expect(error.details.location).toEqual({ file: FILE, line: 2, column: 5 });
		expect(error.details.notes).toEqual(['forge-demo.ts:3:5: The symbol "x" has already been declared']);
	});
});

describe("columns of syntax errors", () => {
	it("count characters, not UTF-8 bytes", async () => {
		const source = 'const s = "ééééé"; let = ;';
		const result = await transpile(source, "forge-x.ts");
		expect(!result.ok && result.error.details.location?.column).toBe(source.lastIndexOf(";") + 1);
	});
});
