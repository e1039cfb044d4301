// What pi lends a tool at run time: notifications reach the UI inert (escape sequences shown, lines kept).
import { describe, expect, it } from "vitest";
import { runHostFor } from "../../src/pi/host.ts";

describe("runHostFor", () => {
	it("a tool's notification keeps its lines and shows escape sequences instead of sending them to the terminal", () => {
		const notes: Array<[string, string | undefined]> = [];
		const ctx = {
			hasUI: true,
			ui: {
				notify: (message: string, level?: string) => notes.push([message, level]),
				select: async () => undefined,
			},
		};
		const host = runHostFor({} as never, ctx as never);
		host.notify("done\n\u001b]0;owned\u0007\u001b[2Jcleared", "warning");
		expect(notes).toEqual([["done\n\\e]0;owned\\x07\\e[2Jcleared", "warning"]]);
	});

	it("without a UI nothing is shown and nobody is asked", () => {
		const host = runHostFor({} as never, { hasUI: false, ui: {} } as never);
		expect(() => host.notify("x")).not.toThrow();
		expect(host.select).toBeUndefined();
	});
});
