// The forge's render step: `forge-<name>.ts` rendered from the template, the metadata and the logic.
import { describe, expect, it } from "vitest";
import { extractLogic, HOISTED_MARKER, hoistImports, renderTool } from "../../src/forge/render.ts";
import { transpile } from "../../src/forge/transpile.ts";
import { coreLibraryRequire, evaluateModule } from "../../src/run/module-loader.ts";
import { loadTemplate } from "../../src/store/template-file.ts";

const parameters = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const base = { name: "word-count", description: "Count words.", parameters, logic: "return params.text.length;" };

const lineAt = (source: string, line: number) => source.split("\n")[line - 1];

/** Loads the rendered module for real, to see what a JavaScript engine reads from it. */
async function loadRendered(source: string): Promise<Record<string, any>> {
	const compiled = await transpile(source, "forge-x.ts");
	if (!compiled.ok) throw compiled.error;
	return evaluateModule(compiled.value.cjs.code, "/virtual/forge-x.ts", coreLibraryRequire("x"));
}

describe("renderTool with a minimal template", () => {
	const template =
		"name={{name}}\ndesc={{description}}\nparams={{parameters}}\n{{imports}}body:\n{{logic}}\nend {{unknown}}";

	it("fills every placeholder and leaves unknown ones alone", () => {
		const { source, logicStartLine, hoistedImports } = renderTool(template, {
			...base,
			parameters: { type: "object" },
		});
		expect(source).toBe(
			'name="word-count"\ndesc="Count words."\nparams={\n\t\t"type": "object"\n\t}\nbody:\nreturn params.text.length;\nend {{unknown}}',
		);
		expect(logicStartLine).toBe(7);
		expect(hoistedImports).toEqual([]);
	});

	it("indents the parameters JSON after its first line", () => {
		const { source } = renderTool("\tparameters: {{parameters}},\n{{logic}}", { ...base, parameters });
		expect(source.split("\n").slice(0, 3)).toEqual([
			"\tparameters: {",
			'\t\t"type": "object",',
			'\t\t"properties": {',
		]);
		expect(source).toContain('\t\t"required": [\n\t\t\t"text"\n\t\t]\n\t},');
	});

	it("trims trailing whitespace off the logic only", () => {
		const { source } = renderTool("{{logic}}|", { ...base, logic: "  return 1;\n\n  \n" });
		expect(source).toBe("  return 1;|");
	});

	it("keeps `$` replacement patterns in values literal", () => {
		const { source } = renderTool("{{description}}|{{logic}}", {
			...base,
			description: "costs $& and $1 and $$",
			logic: "return '$&';",
		});
		expect(source).toBe(`"costs $& and $1 and $$"|return '$&';`);
	});
});

describe("renderTool with the shipped template", () => {
	const template = loadTemplate();

	it("starts the logic on logicStartLine, inside execute", () => {
		const { source, logicStartLine } = renderTool(template, { ...base, logic: "const n = 1;\nreturn n;" });
		expect(lineAt(source, logicStartLine)).toBe("const n = 1;");
		expect(lineAt(source, logicStartLine + 1)).toBe("return n;");
		expect(lineAt(source, logicStartLine - 1)).toMatch(/^export async function execute\(/);
		expect(lineAt(source, logicStartLine + 2)).toBe("}");
	});

	it("writes name and description as JSON strings that survive quotes, newlines, `*/` and `${}`", async () => {
		const description = 'Say "hi" */ then ${process.exit(1)} `tick`\nnext line \\ backslash';
		const { source } = renderTool(template, { ...base, description });
		expect(source).toContain(`description: ${JSON.stringify(description)},`);
		const loaded = await loadRendered(source);
		expect(loaded.metadata.name).toBe("word-count");
		expect(loaded.metadata.description).toBe(description);
		expect(loaded.metadata.parameters).toEqual(parameters);
	});

	it("does not fill placeholders inside values", async () => {
		const description = "uses {{logic}} and {{name}} literally";
		const { source } = renderTool(template, { ...base, description });
		const loaded = await loadRendered(source);
		expect(loaded.metadata.description).toBe(description);
	});

	it("copies the logic verbatim, template literals with {{name}} included", async () => {
		const logic = "const label = `{{name}} is ${params.text}`;\nreturn label + ' {{description}}';";
		const { source, logicStartLine } = renderTool(template, { ...base, logic });
		expect(
			source
				.split("\n")
				.slice(logicStartLine - 1, logicStartLine + 1)
				.join("\n"),
		).toBe(logic);
		const loaded = await loadRendered(source);
		expect(await loaded.execute({ text: "short" })).toBe("{{name}} is short {{description}}");
	});

	it("hoists leading single-line imports into the module header", () => {
		const logic = 'import { readFileSync } from "node:fs";\nimport * as path from "node:path";\nreturn path.sep;';
		const { source, logicStartLine, hoistedImports } = renderTool(template, { ...base, logic });
		expect(hoistedImports).toEqual(['import { readFileSync } from "node:fs";', 'import * as path from "node:path";']);
		const header = source.slice(0, source.indexOf("export const metadata"));
		expect(header).toContain('import { readFileSync } from "node:fs";\nimport * as path from "node:path";\n');
		// Each hoisted import leaves a marker where it stood, so the logic keeps its own line numbers.
		expect(lineAt(source, logicStartLine)).toBe(HOISTED_MARKER);
		expect(lineAt(source, logicStartLine + 2)).toBe("return path.sep;");
		expect(source.match(/import \* as path/g)).toHaveLength(1);
	});

	it("moves logicStartLine down by the number of hoisted imports, and keeps the logic's line numbers", () => {
		const plain = renderTool(template, { ...base, logic: "return 1;" });
		const hoisted = renderTool(template, {
			...base,
			logic: 'import fs from "fs";\nimport path from "path";\nreturn 1;',
		});
		expect(hoisted.logicStartLine).toBe(plain.logicStartLine + 2);
		expect(lineAt(hoisted.source, hoisted.logicStartLine + 2)).toBe("return 1;");
	});
});

describe("hoistImports", () => {
	it("hoists every import form on a single line: default, named, namespace, type, side-effect, without semicolon", () => {
		const logic = [
			'import fs from "node:fs";',
			"import { join, resolve } from 'node:path'",
			'import * as cp from "child_process";',
			'import type { Static } from "@sinclair/typebox";',
			'import "node:fs/promises";',
			"return 1;",
		].join("\n");
		const { imports, body } = hoistImports(logic);
		expect(imports).toEqual(logic.split("\n").slice(0, 5));
		expect(body).toBe(`${Array(5).fill(HOISTED_MARKER).join("\n")}\nreturn 1;`);
	});

	it("hoists TypeScript's import-equals form, which is valid only at the top of a module", () => {
		const logic = "import fs = require(\"node:fs\");\nimport type T = require('typebox')\nreturn fs.sep;";
		const { imports, body } = hoistImports(logic);
		expect(imports).toEqual(['import fs = require("node:fs");', "import type T = require('typebox')"]);
		expect(body).toBe(`${HOISTED_MARKER}\n${HOISTED_MARKER}\nreturn fs.sep;`);
		expect(hoistImports("import fs = require(name);\nreturn 1;").imports).toEqual([]);
	});

	it("hoists only leading imports: an import after the first statement stays in the body", () => {
		const logic = 'import fs from "fs";\nconst x = 1;\nimport path from "path";\nreturn x;';
		expect(hoistImports(logic)).toEqual({
			imports: ['import fs from "fs";'],
			body: `${HOISTED_MARKER}\nconst x = 1;\nimport path from "path";\nreturn x;`,
		});
	});

	it("leaves a multi-line import in the body (it becomes a syntax error with a hint)", () => {
		const logic = 'import {\n\treadFileSync,\n} from "fs";\nreturn 1;';
		expect(hoistImports(logic)).toEqual({ imports: [], body: logic });
	});

	it("does not treat dynamic import() or identifiers starting with 'import' as import lines", () => {
		for (const logic of [
			'import("node:fs");\nreturn 1;',
			"importantValue = 1;\nreturn 1;",
			'const m = await import("fs");',
		]) {
			expect(hoistImports(logic)).toEqual({ imports: [], body: logic });
		}
	});

	it("keeps the logic unchanged (leading comments included) when there is nothing to hoist", () => {
		const logic = "// count the words\n\nreturn 1;";
		expect(hoistImports(logic)).toEqual({ imports: [], body: logic });
	});

	it("normalises CRLF line endings", () => {
		expect(hoistImports('import fs from "fs";\r\nreturn 1;\r\n')).toEqual({
			imports: ['import fs from "fs";'],
			body: `${HOISTED_MARKER}\nreturn 1;\n`,
		});
	});
});

describe("hoisting keeps comments", () => {
	it("comments among the leading imports stay where they were", () => {
		const { imports, body } = hoistImports("// c\nimport fs from 'node:fs';\n\n// another\nreturn 1;");
		expect(imports).toEqual(["import fs from 'node:fs';"]);
		expect(body).toBe(`// c\n${HOISTED_MARKER}\n\n// another\nreturn 1;`);
	});
});

describe("extractLogic: the logic back from a rendered file", () => {
	const template = loadTemplate();
	const render = (logic: string) =>
		renderTool(template, { name: "t", description: "d", parameters: { type: "object" }, logic }).source;

	it.each([
		["a plain body", "const n = params.text.length;\nreturn n;"],
		["a body with a block closed at column 0", "if (!params.text) {\n\tthrow new Error('empty');\n}\nreturn 1;"],
		[
			"hoisted imports, a comment kept between them",
			'import { readFile } from "node:fs/promises";\n// the path module\nimport * as path from "node:path";\nreturn path.sep + (await readFile("x", "utf8"));',
		],
	])("gives back %s exactly, with the lines it spans", (_label, logic) => {
		const source = render(logic);
		const extracted = extractLogic(source);
		expect(extracted?.logic).toBe(logic);
		const lines = source.split("\n");
		expect(lines[extracted!.startLine - 2]).toMatch(/^export async function execute/);
		expect(lines[extracted!.endLine]).toBe("}");
		expect(extracted?.restoredImports).toBe(logic.startsWith("import"));
		expect(render(extracted!.logic)).toBe(source);
	});

	it("gives nothing for a file not in the template's shape", () => {
		expect(extractLogic("export default function () {}\n")).toBeUndefined();
		const source = render('import { sep } from "node:path";\nreturn sep;');
		expect(extractLogic(source.replace(HOISTED_MARKER, "// edited"))).toBeUndefined();
	});
});
