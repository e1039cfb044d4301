// Positions in transpiled code mapped back to `forge-<name>.ts`, from esbuild's real source maps.
import { describe, expect, it } from "vitest";
import { createPositionMapper } from "../../src/contract/source-map.ts";
import { transpile } from "../../src/forge/transpile.ts";

const source = "export const a = 1;\n\nexport function double(x: number): number {\n  return x * 2;\n}\n";

async function compiled() {
	const result = await transpile(source, "forge-x.ts");
	if (!result.ok) throw result.error;
	return result.value;
}

/** 1-based line and column of `text` in `code`. */
function positionOf(code: string, text: string): { line: number; column: number } {
	const lines = code.split("\n");
	const index = lines.findIndex((line) => line.includes(text));
	if (index < 0) throw new Error(`${text} not found`);
	return { line: index + 1, column: lines[index].indexOf(text) + 1 };
}

describe("createPositionMapper", () => {
	it("maps a position in the CommonJS output to its 1-based line and column in the source", async () => {
		const { cjs } = await compiled();
		const toSource = createPositionMapper(cjs.map);
		const generated = positionOf(cjs.code, "return x * 2;");
		expect(generated.line).not.toBe(4);
		expect(toSource(generated.line, generated.column)).toEqual({ line: 4, column: 3 });
		const fn = positionOf(cjs.code, "function double(");
		expect(toSource(fn.line, fn.column)).toEqual(positionOf(source, "function double("));
	});

	it("maps the ESM output as well", async () => {
		const { esm } = await compiled();
		const toSource = createPositionMapper(esm.map);
		const generated = positionOf(esm.code, "return x * 2;");
		expect(toSource(generated.line, generated.column)).toEqual({ line: 4, column: 3 });
	});

	it("is undefined for esbuild's own helper code, which has no source", async () => {
		const { cjs } = await compiled();
		expect(cjs.code.split("\n")[0]).toMatch(/^var __defProp/);
		expect(createPositionMapper(cjs.map)(1, 1)).toBeUndefined();
	});

	it("treats a column of 0 like column 1", async () => {
		const { esm } = await compiled();
		const toSource = createPositionMapper(esm.map);
		const generated = positionOf(esm.code, "return x * 2;");
		expect(toSource(generated.line, 0)).toEqual(toSource(generated.line, 1));
	});
});
