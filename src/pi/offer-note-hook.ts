// Puts the note on forged tools that are not offered into the system prompt of a run, on either pi line: the current
// line takes it as a prompt section of its own (pi sends a change as a delta), the legacy line as appended text.
import { NOTE_SECTION } from "./offer-text.ts";

interface BeforeAgentStart {
	systemPrompt: string;
	systemPromptOptions?: { sections?: Record<string, string> };
}

export function withOfferNote(event: BeforeAgentStart, note: string | undefined): { systemPrompt: string } | undefined {
	const sections = event.systemPromptOptions?.sections;
	if (sections) {
		if (note) sections[NOTE_SECTION] = note;
		else delete sections[NOTE_SECTION];
		return undefined;
	}
	return note ? { systemPrompt: `${event.systemPrompt}\n\n${note}` } : undefined;
}
