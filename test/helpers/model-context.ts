// What a model is sent, read from either shape: pi 0.73 passes `context.systemPrompt` and `context.tools`; the
// current line folds both into system messages (the leading one declares the prompt and tools, later ones change
// them with `sections`, `toolsAdded` and `toolsRemoved`). Replaying them in order gives the current state.
interface Tool {
	name: string;
	description: string;
	parameters: unknown;
}
interface SystemLike {
	role: string;
	content?: unknown;
	sections?: Record<string, string | null>;
	toolsAdded?: Tool[];
	toolsRemoved?: Array<{ name: string }>;
}
interface ContextLike {
	systemPrompt?: string;
	tools?: Tool[];
	messages?: unknown[];
}

const systemMessages = (context: ContextLike) =>
	((context.messages ?? []) as SystemLike[]).filter((m) => m.role === "system");

/** The tools offered in this request. */
export function toolsOf(context: ContextLike): Tool[] {
	if (Array.isArray(context.tools) && context.tools.length) return context.tools;
	const tools = new Map<string, Tool>();
	for (const message of systemMessages(context)) {
		for (const removed of message.toolsRemoved ?? []) tools.delete(removed.name);
		for (const added of message.toolsAdded ?? []) tools.set(added.name, added);
	}
	return [...tools.values()];
}

/** The system prompt of this request: base text, sections by name (later ones replace), and added instructions. */
export function systemPromptOf(context: ContextLike): string {
	if (typeof context.systemPrompt === "string") return context.systemPrompt;
	const texts: string[] = [];
	const sections = new Map<string, string>();
	for (const message of systemMessages(context)) {
		const content =
			typeof message.content === "string"
				? message.content
				: Array.isArray(message.content)
					? message.content.map((c: { text?: string }) => c.text ?? "").join("")
					: "";
		if (content) texts.push(content);
		for (const [name, text] of Object.entries(message.sections ?? {}))
			text === null ? sections.delete(name) : sections.set(name, text);
	}
	return [...texts, ...sections.values()].join("\n");
}
