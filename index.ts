// Agent Forge: a pi extension that lets the agent forge, use, list and repair its own tools.
// This file only wires the pieces to pi; the pipeline lives in src/.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { ForgeSession } from "./src/pi/forge-session.ts";
import { createForgeTool } from "./src/pi/forge-tool.ts";
import { createListForge } from "./src/pi/list-forge.ts";
import { createUseForgeTool } from "./src/pi/use-forge-tool.ts";

export default function agentForge(pi: ExtensionAPI): void {
	const session = new ForgeSession(pi);

	pi.registerTool(createForgeTool(session));
	pi.registerTool(createUseForgeTool(session, pi));
	pi.registerTool(createListForge(session));

	pi.on("session_start", async (_event, ctx) => {
		// A toolbox that cannot be opened never stops pi: the forge's tools report it when called.
		const opened = await session.toolboxFor(ctx).then(() => undefined, (error: Error) => error);
		if (!ctx.hasUI) return;
		for (const problem of session.configProblems) ctx.ui.notify(`Agent Forge: ${problem.message}`, "warning");
		if (opened) ctx.ui.notify(opened.message.split("\n").slice(0, 2).join(" "), "error");
	});
	pi.on("session_shutdown", async () => {
		await session.close();
	});
}
