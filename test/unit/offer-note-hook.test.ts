// The note on forged tools not offered, put into either pi line's system prompt.
import { describe, expect, it } from "vitest";
import { withOfferNote } from "../../src/pi/offer-note-hook.ts";
import { NOTE_SECTION } from "../../src/pi/offer-text.ts";

describe("withOfferNote", () => {
	it("current line: a prompt section of its own, removed when there is nothing to say", () => {
		const event = { systemPrompt: "base", systemPromptOptions: { sections: {} as Record<string, string> } };
		expect(withOfferNote(event, "Forged tools not offered…")).toBeUndefined();
		expect(event.systemPromptOptions.sections[NOTE_SECTION]).toBe("Forged tools not offered…");
		expect(withOfferNote(event, undefined)).toBeUndefined();
		expect(event.systemPromptOptions.sections).toEqual({});
	});

	it("legacy line: appended to the system prompt, which is left alone when there is nothing to say", () => {
		expect(withOfferNote({ systemPrompt: "base", systemPromptOptions: {} }, "Forged tools not offered…")).toEqual({
			systemPrompt: "base\n\nForged tools not offered…",
		});
		expect(withOfferNote({ systemPrompt: "base" }, undefined)).toBeUndefined();
	});
});
