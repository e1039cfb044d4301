// What goes wrong at a session's start — configuration problems, a toolbox that cannot be opened — told to the person
// once: through pi's UI where there is one, on stderr where there is none (print and json modes).
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ConfigProblem } from "../config.ts";

export interface StartProblems {
	config: readonly ConfigProblem[];
	/** The toolbox could not be opened: the forge's tools report it again when called. */
	openError?: Error;
}

export function reportStartProblems(
	ctx: Pick<ExtensionContext, "hasUI" | "ui">,
	{ config, openError }: StartProblems,
	writeStderr: (text: string) => void = (text) => process.stderr.write(text),
): void {
	const opened = openError?.message.split("\n").slice(0, 2).join(" ");
	if (ctx.hasUI) {
		for (const problem of config) ctx.ui.notify(`Agent Forge: ${problem.message}`, "warning");
		if (opened) ctx.ui.notify(opened, "error");
		return;
	}
	const lines = [
		...config.map((problem) => `Agent Forge: warning: ${problem.message}`),
		...(opened ? [`Agent Forge: error: ${opened}`] : []),
	];
	if (lines.length) writeStderr(`${lines.join("\n")}\n`);
}
