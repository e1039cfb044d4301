// The forge's import check: the static check that refuses what reaches outside the core library.
import { describe, expect, it } from "vitest";
import { checkImports, findViolations } from "../../src/forge/imports.ts";
import { renderTool } from "../../src/forge/render.ts";
import { transpile } from "../../src/forge/transpile.ts";
import { loadTemplate } from "../../src/store/template-file.ts";

const constructs = (code: string) => findViolations(code).map((v) => v.construct);

describe("findViolations: what passes", () => {
	it("allows the core library in every accepted spelling", () => {
		const specifiers = [
			"fs",
			"node:fs",
			"fs/promises",
			"node:fs/promises",
			"path",
			"node:path",
			"child_process",
			"node:child_process",
			"@sinclair/typebox",
			"typebox",
		];
		for (const specifier of specifiers) {
			const code = `import a from "${specifier}";\nimport * as b from "${specifier}";\nexport * from "${specifier}";\nawait import("${specifier}");\nrequire("${specifier}");`;
			expect(findViolations(code), specifier).toEqual([]);
		}
	});

	it("allows ordinary code that merely mentions the words", () => {
		const code = [
			"const text = 'eval and new Function and require(os)';",
			"const obj = { eval: 1, constructor: 2, Function: 3 };",
			"obj.eval;",
			"class Thing { constructor() {} }",
			"const t = new Thing();",
			"const kind = t.constructor.name;",
			"process.env.HOME;",
		].join("\n");
		expect(findViolations(code)).toEqual([]);
	});
});

describe("findViolations: what is refused", () => {
	it("refuses modules outside the core library", () => {
		for (const specifier of [
			"os",
			"node:os",
			"http",
			"node:http",
			"./x",
			"../x.js",
			"/abs/x.js",
			"lodash",
			"fs/../os",
		]) {
			const [violation, ...rest] = findViolations(`import x from "${specifier}";`);
			expect(rest, specifier).toEqual([]);
			expect(violation).toEqual({
				construct: "import",
				message: `import of '${specifier}' is outside the core library.`,
				line: 1,
				column: 1,
			});
		}
	});

	it("refuses re-exports, import() and require() of such modules, naming how", () => {
		expect(constructs('export * from "os";')).toEqual(["import"]);
		expect(constructs('export { hostname } from "os";')).toEqual(["import"]);
		expect(constructs('await import("node:os");')).toEqual(["import()"]);
		expect(findViolations('require("http");')[0].message).toBe("require of 'http' is outside the core library.");
	});

	it("refuses a value import of pi, saying that only type-only imports are allowed", () => {
		const [violation] = findViolations('import { DEFAULT_MAX_BYTES } from "@mariozechner/pi-coding-agent";');
		expect(violation.construct).toBe("import");
		expect(violation.message).toContain("only type-only imports of pi are");
		expect(violation.message).toContain('import type { … } from "@mariozechner/pi-coding-agent"');
	});

	it("refuses computed import(), template literals included", () => {
		expect(constructs("const name = 'os';\nawait import(name);")).toEqual(["computed import()"]);
		expect(constructs("await import(`node:os`);")).toEqual(["computed import()"]);
		expect(constructs("await import('node:' + 'os');")).toEqual(["computed import()"]);
	});

	it("refuses require of a non-literal", () => {
		expect(constructs("const n = 'os';\nrequire(n);")).toEqual(["require of a non-literal"]);
		expect(constructs("require(`os`);")).toEqual(["require of a non-literal"]);
		expect(constructs("require();")).toEqual(["require of a non-literal"]);
	});

	it("refuses eval, direct or through a global object", () => {
		expect(constructs("eval('1');")).toEqual(["eval"]);
		expect(constructs("const e = eval;")).toEqual(["eval"]);
		expect(constructs("globalThis.eval('1');")).toEqual(["globalThis.eval"]);
		expect(constructs("globalThis['eval']('1');")).toEqual(["globalThis.eval"]);
		expect(constructs("global.eval('1');")).toEqual(["global.eval"]);
	});

	it("refuses new Function, Function() and the global Function", () => {
		expect(constructs("new Function('return 1');")).toEqual(["new Function"]);
		expect(constructs("Function('return 1')();")).toEqual(["new Function"]);
		expect(constructs("new globalThis.Function('return 1');")).toEqual(["globalThis.Function"]);
		expect(constructs("window.Function('x');")).toEqual(["window.Function"]);
	});

	it("refuses process.binding and friends, module.constructor and the constructor chain", () => {
		expect(constructs("process.binding('fs');")).toEqual(["process.binding"]);
		expect(constructs("process['dlopen'](m, f);")).toEqual(["process.dlopen"]);
		expect(constructs("process._linkedBinding('x');")).toEqual(["process._linkedBinding"]);
		expect(constructs("module.constructor._load('os');")).toEqual(["module.constructor"]);
		expect(constructs("const x = {};\nx.constructor.constructor('return process')();")).toEqual([
			".constructor.constructor",
			".constructor(…)",
		]);
		expect(constructs("(async () => {}).constructor('return 1');")).toEqual([".constructor(…)"]);
	});

	it("reports every violation in source order with 1-based positions", () => {
		const code = 'import os from "os";\nconst a = 1; eval("a");\n  new Function("x");';
		expect(findViolations(code).map(({ construct, line, column }) => ({ construct, line, column }))).toEqual([
			{ construct: "import", line: 1, column: 1 },
			{ construct: "eval", line: 2, column: 14 },
			{ construct: "new Function", line: 3, column: 3 },
		]);
	});
});

describe("checkImports", () => {
	const FILE = "forge-probe.ts";

	async function check(logic: string) {
		const rendered = renderTool(loadTemplate(), {
			name: "probe",
			description: "Probe.",
			parameters: { type: "object" },
			logic,
		});
		const compiled = await transpile(rendered.source, FILE);
		if (!compiled.ok) throw compiled.error;
		return { ...rendered, result: checkImports(compiled.value.esm, FILE, rendered.source) };
	}

	const lineOf = (source: string, text: string) => source.split("\n").findIndex((line) => line.includes(text)) + 1;

	it("passes a module that uses only the core library and type-only pi imports", async () => {
		const { result } = await check(
			'import { readFileSync } from "node:fs";\nimport path from "path";\nconst { spawnSync } = await import("node:child_process");\nreturn [readFileSync, path.sep, spawnSync].length;',
		);
		expect(result).toEqual({ ok: true, value: undefined });
	});

	it("locates a refused import() at its line and column in forge-<name>.ts", async () => {
		const { source, logicStartLine, result } = await check(
			'const a = 1;\nconst os = await import("node:os");\nreturn os.hostname() + a;',
		);
		if (result.ok) throw new Error("expected a refusal");
		const line = logicStartLine + 1;
		expect(source.split("\n")[line - 1]).toBe('const os = await import("node:os");');
		expect(result.error.phase).toBe("import");
		expect(result.error.message).toBe("import() of 'node:os' is outside the core library.");
		expect(result.error.details.location).toEqual({ file: FILE, line, column: 18 });
		expect(result.error.details.source).toBe(source);
		expect(result.error.details.hint).toContain("fs, fs/promises, path, child_process");
	});

	it("locates a refused hoisted import in the module header", async () => {
		const { source, result } = await check('import { hostname } from "node:os";\nreturn hostname();');
		if (result.ok) throw new Error("expected a refusal");
		expect(result.error.details.location).toEqual({ file: FILE, line: lineOf(source, 'from "node:os"'), column: 1 });
	});

	it("names the first violation and lists the others as located notes", async () => {
		const { source, result } = await check(
			"const code = '1';\neval(code);\nconst f = new Function(code);\nreturn f();",
		);
		if (result.ok) throw new Error("expected a refusal");
		expect(result.error.message).toBe("`eval` is not allowed.");
		expect(result.error.details.location?.line).toBe(lineOf(source, "eval(code)"));
		expect(result.error.details.location?.column).toBe(1);
		expect(result.error.details.notes).toEqual([
			`${FILE}:${lineOf(source, "new Function")}:11: \`new Function(…)\` / \`Function(…)\` is not allowed: it evaluates text as code.`,
		]);
	});

	it("refuses a value import of pi but not a type-only one", async () => {
		const typeOnly = await check(
			'import type { ToolDefinition } from "@mariozechner/pi-coding-agent";\nconst t: ToolDefinition | undefined = undefined;\nreturn t;',
		);
		expect(typeOnly.result.ok).toBe(true);
		const value = await check('import { truncateHead } from "@mariozechner/pi-coding-agent";\nreturn truncateHead;');
		if (value.result.ok) throw new Error("expected a refusal");
		expect(value.result.error.message).toContain("only type-only imports of pi are");
	});
});

describe("ways around the check that are refused too", () => {
	const constructsOf = (code: string) => findViolations(code).map((v) => v.construct);
	it("process.getBuiltinModule", () => {
		expect(constructsOf('process.getBuiltinModule("node:os");')).toEqual(["process.getBuiltinModule"]);
	});
	it("the Function constructor taken into a variable", () => {
		expect(constructsOf('const F = Function; new F("return 1")();')).toEqual(["Function"]);
	});
	it("eval destructured from globalThis", () => {
		expect(constructsOf('const { eval: e } = globalThis; e("1 + 1");')).toEqual(["destructured eval"]);
	});
	it("binding destructured from process", () => {
		expect(constructsOf("const { binding } = process; binding('fs');")).toEqual(["destructured binding"]);
	});
});

describe("more ways around the check", () => {
	const constructsOf = (code: string) => findViolations(code).map((v) => v.construct);
	it("require taken as a value", () => {
		expect(constructsOf("const r = require; r(name);")).toEqual(["require as a value"]);
		expect(constructsOf("[require][0](name);")).toEqual(["require as a value"]);
	});
	it("but typeof require and a property named require are fine", () => {
		expect(constructsOf("const has = typeof require; const o = { require: 1 }; o.require;")).toEqual([]);
	});
	it("signals and exits through process", () => {
		expect(constructsOf("process._kill(process.ppid, 9); process.kill(1);")).toEqual([
			"process._kill",
			"process.kill",
		]);
	});
});

describe("findViolations: a default export", () => {
	it("is refused in every form esbuild emits; named exports are fine", () => {
		for (const code of [
			"export default function f() {}",
			"export default 1;",
			"function f() {}\nexport { f as default };",
			'export { default } from "node:fs";',
		])
			expect(
				findViolations(code).map((v) => v.construct),
				code,
			).toContain("default export");
		expect(findViolations("export const metadata = {};\nexport async function execute() {}")).toEqual([]);
	});
});
