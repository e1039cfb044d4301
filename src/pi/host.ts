// What pi lends a forged tool at run time: the ExtensionAPI as `pi`, and notifications through the UI when there is one.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { RunHost } from "../runtime/runner.ts";

export function runHostFor(pi: ExtensionAPI, ctx: ExtensionContext | undefined): RunHost {
	const hasUI = ctx?.hasUI ?? false;
	return {
		pi,
		hasUI,
		notify: (message, level = "info") => {
			if (hasUI) ctx?.ui.notify(String(message), level);
		},
		...(hasUI && ctx ? { select: (title: string, options: string[]) => ctx.ui.select(title, options) } : {}),
	};
}
