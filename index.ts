// Agent Forge: a pi extension that lets the agent forge, use, list and repair its own tools.
// This file only wires the pieces to pi; the pipeline lives in src/.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { FORGE_MESSAGE, registerForgeCommand } from "./src/pi/forge-command.ts";
import { ForgeSession } from "./src/pi/forge-session.ts";
import { createForgeTool } from "./src/pi/forge-tool.ts";
import { createListForge } from "./src/pi/list-forge.ts";
import { withOfferNote } from "./src/pi/offer-note-hook.ts";
import { renderForgeMessage } from "./src/pi/render.ts";
import { createSpeakUp } from "./src/pi/speak-up.ts";
import { reportStartProblems } from "./src/pi/start-report.ts";
import { createUseForgeTool } from "./src/pi/use-forge-tool.ts";

export default function agentForge(pi: ExtensionAPI): void {
	const session = new ForgeSession(pi);

	pi.registerTool(createForgeTool(session));
	pi.registerTool(createUseForgeTool(session, pi));
	pi.registerTool(createListForge(session));
	registerForgeCommand(pi, session);
	pi.registerMessageRenderer(FORGE_MESSAGE, renderForgeMessage);

	const speakUp = createSpeakUp((ctx) => session.toolboxFor(ctx));
	pi.on("session_start", async (_event, ctx) => {
		session.ui.attach(ctx);
		speakUp.reset();
		// A toolbox that cannot be opened never stops pi: the forge's tools report it when called.
		const openError = await session.toolboxFor(ctx).then(
			() => undefined,
			(error: Error) => error,
		);
		reportStartProblems(ctx, { config: session.configProblems, openError });
	});
	// /forge output is for the person at the terminal, never for the model; a call of a forged tool that was not
	// offered gets how to run it instead of pi's bare "Tool X not found".
	pi.on("context", async (event) => ({
		messages: session.answerNotOffered(
			event.messages.filter((message) => !(message.role === "custom" && message.customType === FORGE_MESSAGE)),
		),
	}));
	// The system prompt names the forged tools that are not offered as tools of their own.
	pi.on("before_agent_start", async (event) => withOfferNote(event, session.offerNote()));
	pi.on("agent_start", async () => session.runStarted());
	// pi announces every call of a message before running them concurrently: uses of a tool wait for its forge.
	pi.on("tool_call", async (event) => {
		if (event.toolName === "forge_tool")
			session.forges.announce(event.toolCallId, (event.input as { name?: unknown }).name);
	});
	pi.on("tool_execution_end", async (event) => session.forges.settle(event.toolCallId, undefined));
	pi.on("turn_end", async () => session.forges.clear());
	pi.on("session_shutdown", async () => {
		await session.close();
	});
	// The third shell command of one kind in a session earns a line suggesting a forged tool.
	pi.on("tool_result", async (event, ctx) => speakUp.onToolResult(event, ctx));
}
