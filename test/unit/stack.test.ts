// A throw inside a forged tool, mapped to frames and a location in `forge-<name>.ts`.
import { describe, expect, it } from "vitest";
import { createPositionMapper, type PositionMapper } from "../../src/contract/source-map.ts";
import { mapStack } from "../../src/contract/stack.ts";
import { renderTool } from "../../src/forge/render.ts";
import { transpile } from "../../src/forge/transpile.ts";
import { coreLibraryRequire, evaluateModule } from "../../src/run/module-loader.ts";
import { loadTemplate } from "../../src/store/template-file.ts";

const EVALUATED_AS = "/virtual/toolbox/forge-thrower.ts";
const FILE = "forge-thrower.ts";

const logic = [
	"const helper = (v: number) => {",
	"\tif (v > 1) throw new RangeError(`too big: ${v}`);",
	"\treturn v;",
	"};",
	"return [1, 2].map(helper);",
].join("\n");

async function thrownByForgedTool() {
	const { source, logicStartLine } = renderTool(loadTemplate(), {
		name: "thrower",
		description: "Throws.",
		parameters: { type: "object" },
		logic,
	});
	const compiled = await transpile(source, FILE);
	if (!compiled.ok) throw compiled.error;
	const exports = evaluateModule(compiled.value.cjs.code, EVALUATED_AS, coreLibraryRequire("thrower"));
	const execute = exports.execute as (params: unknown) => Promise<unknown>;
	const error = await execute({}).then(
		() => undefined,
		(thrown: unknown) => thrown as Error,
	);
	if (!error) throw new Error("expected the tool to throw");
	return { error, logicStartLine, mapper: createPositionMapper(compiled.value.cjs.map) };
}

describe("mapStack with a real error from evaluated code", () => {
	it("locates the throw in forge-<name>.ts and keeps only the forged file's frames", async () => {
		const { error, logicStartLine, mapper } = await thrownByForgedTool();
		expect(error.message).toBe("too big: 2");
		expect(error.stack).toContain("at Array.map (<anonymous>)");

		const mapped = mapStack(error.stack, EVALUATED_AS, mapper, FILE);
		const throwLine = logicStartLine + 1;
		const mapLine = logicStartLine + 4;
		expect(mapped.location).toEqual({ file: FILE, line: throwLine, column: 19 });
		expect(mapped.frames).toEqual([`at helper (${FILE}:${throwLine}:19)`, `at execute (${FILE}:${mapLine}:15)`]);
	});
});

describe("mapStack with a given stack", () => {
	const identity: PositionMapper = (line, column) => ({ line: line + 100, column });

	it("drops frames of other files, native frames and lines that are not frames", () => {
		const stack = [
			"Error: boom",
			"    at inner (/virtual/forge-x.ts:3:5)",
			"    at Array.forEach (<anonymous>)",
			"    at run (/work/main/src/run/inline-runner.ts:40:10)",
			"    at node:internal/process/task_queues:95:5",
			"    at /virtual/forge-x.ts:7:1",
			"    at async outer (/virtual/forge-x.ts:9:2)",
		].join("\n");
		expect(mapStack(stack, "/virtual/forge-x.ts", identity, "forge-x.ts")).toEqual({
			location: { file: "forge-x.ts", line: 103, column: 5 },
			frames: ["at inner (forge-x.ts:103:5)", "at (forge-x.ts:107:1)", "at async outer (forge-x.ts:109:2)"],
		});
	});

	it("drops frames the source map cannot place", () => {
		const onlyLineTen: PositionMapper = (line, column) => (line === 10 ? { line: 3, column } : undefined);
		const stack = "Error\n    at helper (/v/forge-x.ts:2:1)\n    at execute (/v/forge-x.ts:10:4)";
		expect(mapStack(stack, "/v/forge-x.ts", onlyLineTen, "forge-x.ts")).toEqual({
			location: { file: "forge-x.ts", line: 3, column: 4 },
			frames: ["at execute (forge-x.ts:3:4)"],
		});
	});

	it("has no location and no frames without a stack or without a frame of the file", () => {
		expect(mapStack(undefined, "/v/forge-x.ts", identity, "forge-x.ts")).toEqual({ location: undefined, frames: [] });
		expect(mapStack("Error\n    at other (/v/forge-y.ts:1:1)", "/v/forge-x.ts", identity, "forge-x.ts")).toEqual({
			location: undefined,
			frames: [],
		});
	});
});
