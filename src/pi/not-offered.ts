// pi answers a call of a tool outside the request's tool list with a bare "Tool X not found", before any extension
// sees the call. For a forged tool, the model is sent instead how to run it (the same text every time for a call).
import type { RegistryEntry } from "../store/registry.ts";
import type { ToolState } from "../toolbox/toolbox.ts";
import { notOfferedAnswer, piNotFound } from "./offer-text.ts";

export interface NotOfferedLookup {
	get(name: string): RegistryEntry | undefined;
	state(entry: RegistryEntry): ToolState;
}

/**
 * `messages` with pi's "not found" results of forged tools replaced by how to run them; `answered` keeps the text
 * sent for each tool call id, `forgedThisRun` the tools forged in the current agent run.
 */
export function answerNotOffered<M>(
	messages: M[],
	box: NotOfferedLookup,
	answered: Map<string, string>,
	forgedThisRun: ReadonlySet<string>,
): M[] {
	return messages.map((message) => {
		const result = message as {
			role?: string;
			toolCallId?: string;
			toolName?: string;
			isError?: boolean;
			content?: unknown;
		};
		if (
			result.role !== "toolResult" ||
			!result.isError ||
			typeof result.toolName !== "string" ||
			typeof result.toolCallId !== "string"
		)
			return message;
		const content = result.content as Array<{ type: string; text?: string }> | undefined;
		if (content?.length !== 1 || content[0].text !== piNotFound(result.toolName)) return message;
		let text = answered.get(result.toolCallId);
		if (text === undefined) {
			const entry = box.get(result.toolName);
			if (!entry) return message;
			text = notOfferedAnswer(
				entry.name,
				entry.version,
				argumentsOf(messages, result.toolCallId),
				box.state(entry),
				forgedThisRun.has(entry.name),
			);
			answered.set(result.toolCallId, text);
		}
		return { ...message, content: [{ type: "text", text }] };
	});
}

/** The arguments of a tool call, from the assistant message that made it. */
function argumentsOf(messages: readonly unknown[], toolCallId: string): unknown {
	for (const message of messages) {
		const { role, content } = message as { role?: string; content?: unknown };
		if (role !== "assistant" || !Array.isArray(content)) continue;
		const call = content.find(
			(part: { type?: string; id?: string }) => part?.type === "toolCall" && part.id === toolCallId,
		);
		if (call) return (call as { arguments?: unknown }).arguments;
	}
	return undefined;
}
