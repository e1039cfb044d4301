// Agent Forge: a pi extension that lets the agent forge, use, list and repair its own tools.
// This file only wires the pieces to pi; the pipeline lives in src/.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { FORGE_MESSAGE, registerForgeCommand } from "./src/pi/forge-command.ts";
import { ForgeSession } from "./src/pi/forge-session.ts";
import { createForgeTool } from "./src/pi/forge-tool.ts";
import { createListForge } from "./src/pi/list-forge.ts";
import { renderForgeMessage } from "./src/pi/render.ts";
import { reportStartProblems } from "./src/pi/start-report.ts";
import { createSpeakUp } from "./src/pi/speak-up.ts";
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
		const openError = await session.toolboxFor(ctx).then(() => undefined, (error: Error) => error);
		reportStartProblems(ctx, { config: session.configProblems, openError });
	});
	// /forge output is for the person at the terminal, never for the model.
	pi.on("context", async (event) => ({
		messages: event.messages.filter((message) => !(message.role === "custom" && message.customType === FORGE_MESSAGE)),
	}));
	pi.on("session_shutdown", async () => {
		await session.close();
	});
	// The third shell command of one kind in a session earns a line suggesting a forged tool.
	pi.on("tool_result", async (event, ctx) => speakUp.onToolResult(event, ctx));
}
