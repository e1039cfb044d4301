// What pi lends a forged tool at run time: the ExtensionAPI as `pi`, and notifications through the UI when there is one.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { sanitizeForDisplay } from "../policy/terminal-text.ts";
import type { RunHost } from "../run/runner.ts";

export function runHostFor(pi: ExtensionAPI, ctx: ExtensionContext | undefined): RunHost {
	const hasUI = ctx?.hasUI ?? false;
	return {
		pi,
		hasUI,
		notify: (message, level = "info") => {
			// A tool's text reaches the terminal inert: its lines kept, escape sequences shown, never acted on.
			if (hasUI) ctx?.ui.notify(String(message).split("\n").map(sanitizeForDisplay).join("\n"), level);
		},
		...(hasUI && ctx
			? {
					select: (title: string, options: string[], signal?: AbortSignal) =>
						ctx.ui.select(title, options, signal ? { signal } : undefined),
				}
			: {}),
	};
}
