// What the model is told about the offered set: which forged tools are not offered as tools of their own (a bounded
// system-prompt note), what a forge result promises for the next prompt, and the answer to a call by name of a
// forged tool that is not offered. Pure.

/** Names shown in the note, at most this many characters; the rest are counted. */
export const NOTE_NAMES_CHARS = 160;
/** The system-prompt section (current pi line) that carries the note. */
export const NOTE_SECTION = "forged_tools";

/** One line naming the healthy forged tools pi does not offer directly (the busiest first), bounded in size. */
export function notOfferedNote(left: readonly string[], maxNamesChars = NOTE_NAMES_CHARS): string | undefined {
	if (left.length === 0) return undefined;
	const shown: string[] = [];
	let chars = 0;
	for (const name of left) {
		if (chars + name.length + 2 > maxNamesChars) break;
		shown.push(name);
		chars += name.length + 2;
	}
	const rest = left.length - shown.length;
	const more = rest
		? `${shown.length ? " and " : ""}${rest.toLocaleString("en-US")} more (list_forge {query} finds them)`
		: "";
	return `Forged tools not offered as tools of their own: ${shown.join(", ")}${more}. Run one with use_forge_tool {name, args}.`;
}

/** Whether a forged tool is offered directly from the next prompt, as a forge result says it. */
export type NextOffer = { offered: true } | { offered: false; forgedThisRun: number; limit: number; budget: number };

export function offerLine(name: string, offer: NextOffer): string {
	if (offer.offered)
		return `From the next prompt on it is also offered directly as the tool '${name}' (or through use_forge_tool).`;
	return (
		`It is not offered as a tool of its own in the next prompt: the ${offer.forgedThisRun} tools forged in this prompt take ` +
		`the room (PI_FORGE_ACTIVE_LIMIT ${offer.limit}, PI_FORGE_ACTIVE_CHARS ${offer.budget}). Call it with use_forge_tool.`
	);
}

/** What pi answers when the model calls a tool that is not in the request's tool list. */
export const piNotFound = (name: string) => `Tool ${name} not found`;

/**
 * The answer to a call by name of a forged tool that this request did not offer: why (forged during this prompt, or
 * outside the bounded set) and how to run it now.
 */
export function notOfferedAnswer(
	name: string,
	version: number,
	args: unknown,
	state: "ok" | "broken" | "quarantined",
	forgedThisPrompt = false,
): string {
	const call = JSON.stringify({ name, args: args && typeof args === "object" ? args : {} });
	const why = forgedThisPrompt
		? "was forged during this prompt, and pi offers a new tool under its own name from the next prompt on."
		: "is a forged tool, but it was not offered as a tool of its own in this request (only a bounded set is).";
	const head = `${piNotFound(name)}: '${name}' (v${version}) ${why}`;
	if (state === "broken")
		return `${head} It is broken: list_forge {"name":"${name}"} shows why; repair it with forge_tool.`;
	return `${head} Nothing ran. Run it with use_forge_tool: ${call}`;
}
