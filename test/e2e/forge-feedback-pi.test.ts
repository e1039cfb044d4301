// What the model reads after forging, through the real pi: a tool in full from list_forge, the fate of earlier tests
// on a re-forge, failures that show outputs exactly, schema slips caught at forge time, usage examples that fit the
// schema, the "same job" note only where it is true, and the .bak label after a hand edit.
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PiHarness, startPi, type ToolEvent } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");

let pi: PiHarness;
beforeAll(async () => {
	pi = await startPi({ extensionPaths: [INDEX] });
});
afterAll(async () => pi?.dispose());

async function call(toolName: string, args: Record<string, unknown>): Promise<ToolEvent> {
	const run = await pi.run(`call ${toolName}`, [[{ name: toolName, args }], { text: "ok" }]);
	return run.toolEvents[0];
}

const textSchema = {
	type: "object",
	properties: { text: { type: "string", description: "The text" } },
	required: ["text"],
};

const lineCount = {
	name: "line-count",
	description: "Count the lines of a text file of the project.",
	parametersSchema: {
		type: "object",
		properties: { path: { type: "string", description: "Path of the file" } },
		required: ["path"],
	},
	logic: 'import { readFile } from "node:fs/promises";\nimport { resolve } from "node:path";\nconst text = await readFile(resolve(ctx.cwd, params.path), "utf8");\nreturn text.split("\\n").length;',
	tests: [
		{ args: { path: "two.txt" }, equals: 2 },
		{ args: { path: "missing.txt" }, expectError: "ENOENT" },
	],
};

const withoutTests = ({ tests: _ignored, ...rest }: Record<string, unknown>) => rest;

describe("forge feedback through the real pi", () => {
	it("list_forge with a name gives the tool in full, and its logic forges the same tool again", async () => {
		await writeFile(join(pi.cwd, "two.txt"), "a\nb");
		const forged = await call("forge_tool", lineCount);
		expect(forged.isError, forged.text).toBe(false);

		const full = await call("list_forge", { name: "line-count" });
		expect(full.isError, full.text).toBe(false);
		expect(full.text.split("\n")[0]).toBe("line-count v1 — ok, verified: its 2 tests pass on this version");
		expect(full.text).toContain("Description: Count the lines of a text file of the project.");
		expect(full.text).toContain('"description": "Path of the file"');
		expect(full.text).toContain('  1. {"args":{"path":"two.txt"},"equals":2}');
		expect(full.text).toContain('  2. {"args":{"path":"missing.txt"},"expectError":"ENOENT"}');
		const source = await readFile(join(pi.cwd, ".pi", "forge", "extensions", "forge-line-count.ts"), "utf8");
		expect(full.text).toContain(source.trimEnd());
		expect(full.text).toContain("Source of forge-line-count.ts (.pi/forge/extensions/forge-line-count.ts,");
		const logic = /forge_tool takes it[^\n]*\n```ts\n([\s\S]*?)\n```/.exec(full.text)?.[1];
		expect(logic).toBe(lineCount.logic);

		const again = await call("forge_tool", { ...withoutTests(lineCount), logic });
		expect(again.isError, again.text).toBe(false);
		expect(await readFile(join(pi.cwd, ".pi", "forge", "extensions", "forge-line-count.ts"), "utf8")).toBe(source);
	});

	it("list_forge with an unknown name is an error naming the close match", async () => {
		const event = await call("list_forge", { name: "linecount" });
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: not-found)");
		expect(event.text).toContain("Close matches: line-count (Count the lines of a text file of the project.)");
		expect(event.text).toContain('Call list_forge with {"name":"line-count"}');
	});

	it("a re-forge says whether the earlier tests were kept and re-run, or replaced and which were dropped", async () => {
		const kept = await call("forge_tool", { ...withoutTests(lineCount), logic: `// trimmed\n${lineCount.logic}` });
		expect(kept.isError, kept.text).toBe(false);
		expect(kept.text).toContain("Tests: the 2 tests of v2 were kept (this call gave no tests) and pass on v3.");

		const replaced = await call("forge_tool", {
			...lineCount,
			tests: [lineCount.tests[0], { args: { path: "two.txt" }, matches: "^2$" }],
		});
		expect(replaced.isError, replaced.text).toBe(false);
		expect(replaced.text).toContain(
			"Tests: the 2 given tests replace the 2 tests of v3: 1 kept, 1 added, 1 dropped.",
		);
		expect(replaced.text).toContain('  - {"args":{"path":"missing.txt"},"expectError":"ENOENT"}');
	});

	it("a failing equals shows expected and actual exactly, whitespace and newlines visible", async () => {
		const event = await call("forge_tool", {
			name: "join-words",
			description: "Join words with spaces.",
			parametersSchema: {
				type: "object",
				properties: { words: { type: "array", items: { type: "string" } } },
				required: ["words"],
			},
			logic: 'return params.words.join("      ") + "\\n";',
			tests: [{ args: { words: ["beta", "gamma"] }, equals: "beta gamma" }],
		});
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: tests)");
		expect(event.text).toContain(
			'expected output equal to "beta gamma", got "beta      gamma\\n" (the first difference is at character 6)',
		);
	});

	it("a required name the schema does not declare is refused, with a did-you-mean", async () => {
		const event = await call("forge_tool", {
			name: "shout",
			description: "Shout a text.",
			parametersSchema: { ...textSchema, required: ["txt"] },
			logic: "return params.text.toUpperCase();",
		});
		expect(event.isError).toBe(true);
		expect(event.text).toContain("Agent Forge: invalid parameters schema in tool 'shout' (phase: schema)");
		expect(event.text).toContain(
			"parametersSchema.required names 'txt', but parametersSchema.properties does not declare it (it declares: text).",
		);
		expect(event.text).toContain("Hint: Did you mean 'text'?");
	});

	it("a misnamed params.x is headed as the logic's slip, not an invalid schema", async () => {
		const event = await call("forge_tool", {
			name: "shout",
			description: "Shout a text.",
			parametersSchema: textSchema,
			logic: "return params.txt.toUpperCase();",
		});
		expect(event.isError).toBe(true);
		expect(event.text.split("\n")[0]).toBe(
			"Agent Forge: the logic reads a parameter the schema does not declare in tool 'shout' (phase: schema)",
		);
		expect(event.text).toContain("Did you mean params.text?");
	});

	it("the usage example honours minimum, enum, minLength and nested objects, and works as given", async () => {
		const parametersSchema = {
			type: "object",
			properties: {
				count: { type: "integer", minimum: 1, maximum: 5 },
				unit: { type: "string", enum: ["cm", "in"] },
				label: { type: "string", minLength: 2 },
				options: { type: "object", properties: { sep: { type: "string", default: "," } }, required: ["sep"] },
			},
			required: ["count", "unit", "label", "options"],
		};
		const forged = await call("forge_tool", {
			name: "ruler",
			description: "Draw a ruler of marks.",
			parametersSchema,
			logic: "return Array.from({ length: params.count }, () => params.label + params.unit).join(params.options.sep);",
		});
		expect(forged.isError, forged.text).toBe(false);
		const usage = /Use it now: use_forge_tool with (.*)/.exec(forged.text)?.[1];
		expect(JSON.parse(usage!)).toEqual({
			name: "ruler",
			args: { count: 1, unit: "cm", label: "……", options: { sep: "," } },
		});
		const used = await call("use_forge_tool", JSON.parse(usage!));
		expect(used.isError, used.text).toBe(false);
		expect(used.text).toBe("……cm");
	});

	it("the same-job note appears for a duplicate only: not on a re-forge, not for an unrelated tool", async () => {
		const wordCount = {
			name: "word-count",
			description: "Count the words in a text.",
			parametersSchema: textSchema,
			logic: "return params.text.split(/\\s+/).filter(Boolean).length;",
		};
		expect((await call("forge_tool", wordCount)).text).not.toContain("looks like the same job");
		const reforged = await call("forge_tool", { ...wordCount, logic: `// v2\n${wordCount.logic}` });
		expect(reforged.isError, reforged.text).toBe(false);
		expect(reforged.text).not.toContain("looks like the same job");
		const charCount = await call("forge_tool", {
			...wordCount,
			name: "char-count",
			description: "Count the characters in a text.",
			logic: "return params.text.length;",
		});
		expect(charCount.text).not.toContain("looks like the same job");
		const duplicate = await call("forge_tool", {
			...wordCount,
			name: "count-words",
			description: "Count how many words a text has.",
		});
		expect(duplicate.text).toContain("Note: 'word-count' looks like the same job");
	});

	it("after a hand edit, the .bak label names the version that was edited in", async () => {
		const file = join(pi.cwd, ".pi", "forge", "extensions", "forge-word-count.ts");
		const edited = (await readFile(file, "utf8")).replace("// v2", "// edited by hand");
		await writeFile(file, edited);
		const event = await call("forge_tool", {
			name: "word-count",
			description: "Count the words in a text.",
			parametersSchema: textSchema,
			logic: "return params.text.trim().split(/\\s+/).length;",
		});
		expect(event.isError, event.text).toBe(false);
		expect(event.text).toContain("Forged 'word-count' v4");
		expect(event.text).toContain("The previous version v3 is kept as forge-word-count.ts.bak.");
		expect(await readFile(`${file}.bak`, "utf8")).toBe(edited);
	});
});
