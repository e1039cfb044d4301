// The toolbox widget above pi's editor: how many tools, the last action (with a relative time that stays current),
// and the tools that are broken or quarantined. Pure: the pi side feeds it the state and the clock.
import { relativeTime } from "./relative-time.ts";

export type LastAction =
	| { kind: "forged"; name: string; version: number; at: Date }
	| { kind: "rolled-back"; name: string; version: number; from: number; at: Date }
	| { kind: "forge-failed"; name?: string; phase: string; at: Date }
	| { kind: "executing"; name: string; at: Date }
	| { kind: "ran"; name: string; ok: boolean; durationMs: number; at: Date }
	| { kind: "reloaded"; name: string; ok: boolean; at: Date }
	| { kind: "removed"; name: string; at: Date };

export interface WidgetState {
	total: number;
	/** Of those, the tools from the user toolbox (shared by every project). */
	user?: number;
	/** Healthy tools whose tests pass on their current source. */
	verified?: number;
	broken: string[];
	quarantined: string[];
	last?: LastAction;
	/** Tools running right now (the last action may already be about another one). */
	executing: string[];
}

export function widgetLines(state: WidgetState, now: Date): string[] {
	const healthy = state.total - state.broken.length - state.quarantined.length;
	const verified = state.verified ? `, ${state.verified} verified` : "";
	const counts =
		state.total === 0
			? ""
			: ` (${healthy} ok${verified}${state.broken.length ? ` · ${state.broken.length} broken` : ""}${state.quarantined.length ? ` · ${state.quarantined.length} quarantined` : ""})`;
	const user = state.user ? ` · ${state.user} from the user toolbox` : "";
	return [
		`Evolved Tools: ${state.total}${counts}${user}`,
		`Last Action: ${lastActionText(state, now)}`,
		`Health: ${healthText(state)}`,
	];
}

function lastActionText(state: WidgetState, now: Date): string {
	if (state.executing.length > 0) return state.executing.map((name) => `Executing '${name}'…`).join(" ");
	const last = state.last;
	if (!last) return "none yet";
	const ago = relativeTime(last.at, now);
	switch (last.kind) {
		case "forged":
			return `Forged '${last.name}' v${last.version} ${ago}`;
		case "rolled-back":
			return `Rolled back '${last.name}' to v${last.from} (now v${last.version}) ${ago}`;
		case "forge-failed":
			return `Forge of ${last.name ? `'${last.name}'` : "a tool"} failed (${last.phase}) ${ago}`;
		case "executing":
			return `Executing '${last.name}'…`;
		case "ran":
			return `${last.ok ? "Ran" : "Failed"} '${last.name}' (${Math.round(last.durationMs)} ms) ${ago}`;
		case "reloaded":
			return `Reloaded '${last.name}' from disk${last.ok ? "" : " (broken)"} ${ago}`;
		case "removed":
			return `Removed '${last.name}' ${ago}`;
	}
}

function healthText(state: WidgetState): string {
	if (state.total === 0) return "no tools yet";
	const parts = [
		...(state.broken.length ? [`broken: ${state.broken.join(", ")}`] : []),
		...(state.quarantined.length ? [`quarantined: ${state.quarantined.join(", ")}`] : []),
	];
	return parts.length ? parts.join("; ") : "all ok";
}
