import { DEFAULT_MAX_LINES } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { ForgeError } from "../../src/contract/forge-error.ts";
import { toPiError, truncateOutput } from "../../src/pi/output.ts";

describe("truncateOutput", () => {
	it("passes small output through", () => {
		const out = truncateOutput({ content: [{ type: "text", text: "hello" }] });
		expect(out).toEqual({ content: [{ type: "text", text: "hello" }], details: undefined, truncated: false });
	});

	it("keeps the head of output past pi's line limit and says how much was cut", () => {
		const text = Array.from({ length: DEFAULT_MAX_LINES + 500 }, (_, i) => `line ${i + 1}`).join("\n");
		const out = truncateOutput({ content: [{ type: "text", text }] });
		const shown = (out.content[0] as { text: string }).text;
		expect(out.truncated).toBe(true);
		expect(shown.startsWith("line 1\nline 2\n")).toBe(true);
		expect(shown).not.toContain(`line ${DEFAULT_MAX_LINES + 500}`);
		expect(shown).toContain(`[Output truncated: ${DEFAULT_MAX_LINES} of ${DEFAULT_MAX_LINES + 500} lines`);
	});

	it("keeps images beside the text", () => {
		const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
		const out = truncateOutput({ content: [{ type: "text", text: "a" }, image, { type: "text", text: "b" }] });
		expect(out.content).toEqual([{ type: "text", text: "a\nb" }, image]);
	});
});

describe("toPiError", () => {
	it("puts the whole repair signal into the message pi sends", () => {
		const error = toPiError(
			new ForgeError("runtime", "boom", { tool: "t", hint: "fix it" }),
			loadConfig(process.cwd()).config,
		);
		expect(error.message).toContain("(phase: runtime)");
		expect(error.message).toContain("Hint: fix it");
	});
});

describe("toPiError redaction", () => {
	it("hides secret values, credential formats and host paths outside the project, but keeps the source's own text", () => {
		process.env.FORGE_TEST_API_TOKEN = "very-secret-token-value-123";
		try {
			const source = 'const p = "/etc/hosts";\nreturn p;';
			const error = new ForgeError(
				"runtime",
				"failed reading /home/someone/private/notes.txt with very-secret-token-value-123",
				{
					tool: "t",
					source,
					args: { key: "ghp_7Kq2LxZ9mN3pR7tV1wY6bC5dE0gH8jAbCdEf" },
					location: { file: "forge-t.ts", line: 1, column: 11 },
				},
			);
			const text = toPiError(error, loadConfig("/work/project").config).message;
			expect(text).not.toContain("very-secret-token-value-123");
			expect(text).not.toContain("/home/someone/private");
			expect(text).toContain("notes.txt");
			expect(text).not.toContain("ghp_7Kq2LxZ9mN3pR7tV1wY6bC5dE0gH8jAbCdEf");
			expect(text).toContain('1 | const p = "/etc/hosts";');
		} finally {
			delete process.env.FORGE_TEST_API_TOKEN;
		}
	});
});
