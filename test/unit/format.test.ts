// The repair signal: a ForgeError rendered in full for the model and in one line for a person.
import { describe, expect, it } from "vitest";
import { formatForModel, formatForPerson, logicLineOf } from "../../src/contract/error-format.ts";
import { ForgeError } from "../../src/contract/forge-error.ts";

const source = [
	"// Forged by Agent Forge.",
	'export const metadata = { name: "demo" };',
	"",
	"export async function execute(params: any, pi: any, ctx: any): Promise<unknown> {",
	"const a = 1;",
	"const b = a.nope.deeper;",
	"return b;",
	"}",
].join("\n");

const runtimeError = new ForgeError("runtime", "TypeError: Cannot read properties of undefined (reading 'deeper')", {
	tool: "demo",
	location: { file: "forge-demo.ts", line: 6, column: 18 },
	source,
	hint: "Fix the logic at forge-demo.ts:6 and call forge_tool again.",
	stack: ["at execute (forge-demo.ts:6:18)"],
	args: { text: "hi" },
	schema: { type: "object" },
	notes: ["first note"],
});

describe("formatForModel", () => {
	const text = formatForModel(runtimeError);

	it("opens with the phase, the tool and the message", () => {
		const [title, message, note] = text.split("\n");
		expect(title).toBe("Agent Forge: runtime error in tool 'demo' (phase: runtime)");
		expect(message).toBe("TypeError: Cannot read properties of undefined (reading 'deeper')");
		expect(note).toBe("  - first note");
	});

	it("a title of its own replaces the phase's title in both forms; the phase stays", () => {
		const error = new ForgeError(
			"schema",
			"The logic reads params.txt, but the parameters schema declares no 'txt'.",
			{ tool: "demo", title: "the logic reads a parameter the schema does not declare" },
		);
		expect(formatForModel(error).split("\n")[0]).toBe(
			"Agent Forge: the logic reads a parameter the schema does not declare in tool 'demo' (phase: schema)",
		);
		expect(formatForPerson(error)).toMatch(/^demo: the logic reads a parameter the schema does not declare: /);
		expect(formatForModel(error.with({ hint: "h" }))).toContain("the logic reads a parameter");
	});

	it("says where, as file:line:col and as a line of the logic, with a code frame", () => {
		expect(text).toContain("at forge-demo.ts:6:18 (line 2 of the logic)");
		expect(text).toContain("> 6 | const b = a.nope.deeper;\n    |                  ^");
	});

	it("carries the stack, the arguments, the schema and the hint", () => {
		expect(text).toContain("Stack (lines of the forged file):\n  at execute (forge-demo.ts:6:18)");
		expect(text).toContain('Arguments: {\n  "text": "hi"\n}');
		expect(text).toContain('Parameters schema: {\n  "type": "object"\n}');
		expect(text).toContain("Hint: Fix the logic at forge-demo.ts:6 and call forge_tool again.");
	});

	it("ends with the numbered source of the file", () => {
		expect(text).toContain("Source of forge-demo.ts:\n1 | // Forged by Agent Forge.");
		expect(text.endsWith("8 | }")).toBe(true);
	});

	it("bounds large JSON blocks and says how much was cut", () => {
		const big = formatForModel(
			new ForgeError("arguments", "Invalid arguments", { args: { text: "x".repeat(100) } }),
			{ maxJsonChars: 20 },
		);
		// The JSON is 116 characters: its first 20 are kept.
		expect(big).toContain('Arguments: {\n  "text": "xxxxxxx… (96 more characters)');
	});

	it("survives arguments that cannot be serialised", () => {
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		expect(formatForModel(new ForgeError("arguments", "bad", { args: cyclic }))).toContain(
			"Arguments: [object Object]",
		);
	});

	it("leaves out what the error does not have", () => {
		const plain = formatForModel(new ForgeError("name", "The tool needs a name (a non-empty string)."));
		expect(plain).toBe("Agent Forge: invalid name (phase: name)\nThe tool needs a name (a non-empty string).");
	});

	it("names forge-<tool>.ts for the source when there is no location", () => {
		const withSource = formatForModel(new ForgeError("shape", "no execute", { tool: "demo", source: "x\ny" }));
		expect(withSource).toContain("Source of forge-demo.ts:\n1 | x\n2 | y");
		expect(withSource).not.toContain("line ");
	});

	it("does not claim a logic line for a location in the module header", () => {
		const header = formatForModel(
			new ForgeError("import", "import of 'os' is outside the core library.", {
				location: { file: "forge-demo.ts", line: 2, column: 1 },
				source,
			}),
		);
		expect(header).toContain("at forge-demo.ts:2:1\n");
		expect(header).not.toContain("of the logic");
	});

	it("keeps the focus line in a long, elided listing", () => {
		const long = `export async function execute() {\n${Array.from({ length: 400 }, (_, i) => `const v${i + 1} = ${i + 1};`).join("\n")}\n}`;
		const error = new ForgeError("runtime", "boom", {
			location: { file: "forge-demo.ts", line: 300, column: 1 },
			source: long,
		});
		const listing = formatForModel(error, { maxSourceLines: 20 }).split("Source of forge-demo.ts:\n")[1].split("\n");
		expect(listing).toHaveLength(22);
		expect(listing).toContain("300 | const v299 = 299;");
		expect(listing[0]).toMatch(/… \d+ line\(s\) above not shown$/);
	});
});

describe("formatForModel for a fault that is not the logic's", () => {
	it("shows what the call printed, redacted as prose and bounded to its end", () => {
		const printed = `${"x".repeat(3000)}\nlast line with SECRET`;
		const text = formatForModel(runtimeError.with({ console: printed }), {
			redact: { prose: (t) => t.replace("SECRET", "[redacted]"), code: (t) => t },
		});
		const section = text.split("Console output of the call:\n")[1].split("\n\nHint:")[0];
		expect(section).toMatch(/^… \(\d+ earlier characters left out\)\n/);
		expect(section.endsWith("last line with [redacted]")).toBe(true);
		expect(section.length).toBeLessThan(2100);
	});

	it("leaves the source listing out for a bad argument or a refused permission, keeping the code frame and the hint", () => {
		for (const error of [
			runtimeError.with({ origin: "input", hint: "Call the tool again with a params.file that exists." }),
			runtimeError.with({ origin: "permission" }),
			new ForgeError("permission", "'demo' may not run commands.", {
				...runtimeError.details,
				hint: "agent-forge grant demo exec",
			}),
		]) {
			const text = formatForModel(error);
			expect(text).not.toContain("Source of");
			expect(text).toContain("> 6 | const b = a.nope.deeper;");
			expect(text).toContain(`Hint: ${error.details.hint}`);
		}
		expect(formatForModel(runtimeError.with({ origin: "logic" }))).toContain("Source of forge-demo.ts:");
	});
});

describe("formatForPerson", () => {
	it("is one line with tool, phase title, location and the first line of the message", () => {
		const multi = new ForgeError("syntax", 'Unexpected ";"\nmore detail', {
			tool: "demo",
			location: { file: "forge-demo.ts", line: 12, column: 5 },
		});
		expect(formatForPerson(multi)).toBe('demo: syntax error at forge-demo.ts:12:5: Unexpected ";"');
	});

	it("leaves out the tool and location when unknown", () => {
		expect(formatForPerson(new ForgeError("timeout", "took too long"))).toBe("timeout: took too long");
		expect(formatForPerson(runtimeError).includes("\n")).toBe(false);
	});
});

describe("logicLineOf", () => {
	it("counts lines from the one after `export async function execute(`", () => {
		expect(logicLineOf(source, 5)).toBe(1);
		expect(logicLineOf(source, 7)).toBe(3);
	});

	it("is undefined at or above the execute line", () => {
		expect(logicLineOf(source, 4)).toBeUndefined();
		expect(logicLineOf(source, 1)).toBeUndefined();
	});

	it("is undefined when the file has no execute function", () => {
		expect(logicLineOf("const a = 1;\nconst b = 2;", 2)).toBeUndefined();
	});
});

describe("logicLineOf past the logic", () => {
	it("the closing brace of execute is not a line of the logic", () => {
		const source = "export const metadata = {};\nexport async function execute(params: any) {\nreturn 1;\n}";
		expect(logicLineOf(source, 3)).toBe(1);
		expect(logicLineOf(source, 4)).toBeUndefined();
	});
});

describe("logicLineOf for hoisted imports", async () => {
	const { renderTool } = await import("../../src/forge/render.ts");
	const { loadTemplate } = await import("../../src/store/template-file.ts");
	it("maps an import moved to the top back to its line in the logic, and keeps the body's numbering", () => {
		const { source } = renderTool(loadTemplate(), {
			name: "t",
			description: "d",
			parameters: { type: "object", properties: {} },
			logic: '// note\nimport os from "os";\nimport fs from "fs";\nreturn os;',
		});
		const lines = source.split("\n");
		const lineOf = (text: string) => lines.indexOf(text) + 1;
		expect(logicLineOf(source, lineOf('import os from "os";'))).toBe(2);
		expect(logicLineOf(source, lineOf('import fs from "fs";'))).toBe(3);
		expect(logicLineOf(source, lineOf("return os;"))).toBe(4);
		expect(logicLineOf(source, lineOf('import { Type } from "@sinclair/typebox";'))).toBeUndefined();
	});
});

describe("the commands that grant a refused permission", () => {
	const refused = new ForgeError("permission", "'host-name' may not read /etc/hostname: no UI to ask.", {
		tool: "host-name",
		hint: "This is a permission to grant, not a fault in the code of 'host-name'.",
		source,
		grants: [
			"agent-forge grant host-name read:/etc/hostname",
			"in pi's TUI: /forge grant host-name read:/etc/hostname",
		],
	});
	/** Prose shortens paths outside the project; code only hides secrets. */
	const redact = {
		prose: (text: string) => text.replaceAll("/etc/hostname", "<outside the project>/hostname"),
		code: (text: string) => text.replaceAll("s3cr3t", "[redacted]"),
	};

	it("are shown exactly (scrubbed as code, not as prose), after the hint, with no source listing", () => {
		const text = formatForModel(refused, { redact });
		expect(text).toContain("may not read <outside the project>/hostname");
		expect(text).toContain(
			"\n\nTo grant it (holds from the next call, no restart):\n  agent-forge grant host-name read:/etc/hostname\n  in pi's TUI: /forge grant host-name read:/etc/hostname",
		);
		expect(text.indexOf("Hint:")).toBeLessThan(text.indexOf("To grant it"));
		expect(text).not.toContain("Source of");
	});

	it("still have secrets hidden", () => {
		const text = formatForModel(refused.with({ grants: ["agent-forge grant t 'shell:echo s3cr3t'"] }), { redact });
		expect(text).toContain("agent-forge grant t 'shell:echo [redacted]'");
	});
});
