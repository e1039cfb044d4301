// What a forged tool returned, threw or called is drawn in pi's terminal as text: escape sequences in it are shown,
// never acted on (third red team, R7: an OSC sequence in a tool's output or in a pi.useTool name set the terminal's
// title; the same channel writes the clipboard or moves the cursor).
import { describe, expect, it } from "vitest";
import { renderForgeResult, renderUseCall, renderUseResult } from "../../src/pi/render.ts";

const theme = { fg: (_color: string, text: string) => text, bold: (text: string) => text } as never;
const OSC = "\u001b]2;PWNED\u0007";
const CSI = "\u001b[2J\u001b[H";
const C1 = "\u009b31m";

const drawn = (component: { render(width: number): string[] }) => component.render(200).join("\n");
const noEscapes = (text: string) => expect(text).not.toMatch(/[\u001b\u0007\u009b]/);
const result = (text: string, details?: unknown) => ({ content: [{ type: "text" as const, text }], details });
const settled = { expanded: true, isPartial: false } as never;

describe("the TUI renderers keep a tool's text inert", () => {
	it("a use result's text, its error text and its nested call names", () => {
		const ok = drawn(
			renderUseResult(
				result(`${OSC} out ${CSI}`, {
					tool: "esc",
					version: 1,
					durationMs: 3,
					truncated: false,
					nested: [{ name: `x${OSC}`, depth: 1, ok: false, durationMs: 1 }],
				}),
				settled,
				theme,
				undefined,
				false,
			),
		);
		noEscapes(ok);
		expect(ok).toContain("\\e]2;PWNED\\x07 out");
		const failed = drawn(renderUseResult(result(`Error: ${OSC} boom ${C1}`), settled, theme, undefined, true));
		noEscapes(failed);
		expect(failed).toContain("boom");
	});

	it("a running call's nested list says how many earlier calls it leaves out", () => {
		const nested = Array.from({ length: 20 }, (_, i) => ({ name: `t${i}`, depth: 1, ok: true, durationMs: 1 }));
		const running = drawn(
			renderUseResult(
				result("", { tool: "spin", version: 1, durationMs: 0, truncated: false, nested, nestedCount: 380 }),
				{ expanded: false, isPartial: true } as never,
				theme,
				undefined,
				false,
			),
		);
		expect(running).toContain("… 360 earlier calls");
		expect(running).toContain("t19");
	});

	it("the call lines show the model's name, description and arguments inert", () => {
		noEscapes(drawn(renderUseCall({ name: `n${OSC}`, args: { a: `${C1}x` } }, theme, undefined)));
		const forged = drawn(
			renderForgeResult(
				result("Forged", {
					name: "esc",
					version: 2,
					previousVersion: 1,
					checks: ["syntax"],
					diff: `-return 1;\n+return "${OSC}";`,
				}),
				settled,
				theme,
				undefined,
				false,
			),
		);
		noEscapes(forged);
		expect(forged).toContain("\\e]2;PWNED\\x07");
	});
});
