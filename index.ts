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
		await session.toolboxFor(ctx);
	});
	pi.on("session_shutdown", async () => {
		await session.close();
	});
}
