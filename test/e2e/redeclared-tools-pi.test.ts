// After a tool is re-forged within one prompt, what pi sends the model declares it once, at its newest version: on the
// current line a redeclaration is a removal followed by an addition in the transcript's system messages (a reader that
// folds only the additions sees every version), and pi's own fold gives one tool per name.
import { resolve } from "node:path";
import type { Context } from "@earendil-works/pi-ai/compat";
import { describe, expect, it } from "vitest";
import { toolsOf } from "../helpers/model-context.ts";
import { startPi } from "../helpers/pi-harness.ts";
import { PI_LINE, piAi } from "../helpers/pi-line.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const version = (n: number) => ({
	name: "shout",
	description: `Upper-case a text (version ${n}).`,
	parametersSchema: {
		type: "object",
		properties: { text: { type: "string" }, ...(n > 1 ? { times: { type: "integer" } } : {}) },
		required: ["text"],
	},
	logic: `return params.text.toUpperCase();`,
});

describe("a tool re-forged within one prompt", () => {
	it("is declared once, at its newest version, in the next request", async () => {
		const seen: Context[] = [];
		const pi = await startPi({ extensionPaths: [INDEX], onContext: (context) => seen.push(context) });
		try {
			const run = await pi.run("forge and repair", [
				[{ name: "forge_tool", args: version(1) }],
				[{ name: "forge_tool", args: version(2) }],
				[{ name: "forge_tool", args: version(3) }],
				{ text: "done" },
			]);
			expect(
				run.toolEvents.map((event) => event.isError),
				run.toolEvents[0].text,
			).toEqual([false, false, false]);
			const next = await pi.run("again", [{ text: "ok" }]);
			expect(next.toolNamesSeen[0].filter((name) => name === "shout")).toEqual(["shout"]);
			const last = seen.at(-1)!;
			const shout = toolsOf(last).filter((tool) => tool.name === "shout");
			expect(shout.map((tool) => tool.description)).toEqual([expect.stringContaining("(version 3)")]);
			if (PI_LINE === "current") {
				const current = (
					piAi as unknown as { getCurrentTools(messages: unknown[]): Array<{ name: string; description: string }> }
				).getCurrentTools(last.messages);
				const names = current.map((tool) => tool.name);
				expect(new Set(names).size).toBe(names.length);
				expect(current.find((tool) => tool.name === "shout")?.description).toContain("(version 3)");
			}
		} finally {
			await pi.dispose();
		}
	});
});
