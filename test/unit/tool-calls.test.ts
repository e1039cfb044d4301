import { describe, expect, it } from "vitest";
import { calledTools, forgedCallees, isBuiltinTool } from "../../src/contract/tool-calls.ts";

describe("calledTools", () => {
	it("finds literal names in every quote style, once each, in order", () => {
		const source = [
			'const a = await pi.useTool("word-count", { text });',
			"const b = await pi.useTool('read', { path });",
			"const c = await pi . useTool ( `word-count` , {});",
			'const d = await api.useTool("csv_stats", {});',
		].join("\n");
		expect(calledTools(source)).toEqual(["word-count", "read", "csv_stats"]);
	});

	it("does not see computed names or other methods", () => {
		expect(calledTools("pi.useTool(name, {}); pi.useTool(`x-${n}`, {}); pi.useTools('a'); useTool('b')")).toEqual([]);
	});

	it("forgedCallees leaves out pi's built-ins and names no forged tool can have", () => {
		const source =
			"pi.useTool('bash', {}); pi.useTool('ls', {}); pi.useTool('registry', {}); pi.useTool('csv-stats', {});";
		expect(forgedCallees(source)).toEqual(["csv-stats"]);
		expect(isBuiltinTool("edit")).toBe(true);
		expect(isBuiltinTool("forge_tool")).toBe(false);
	});
});
