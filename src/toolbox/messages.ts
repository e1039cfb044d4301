// What the toolbox says when it cannot run or repair a tool: an unknown name (with look-alikes), a broken tool, and
// the advice after repeated failed repairs. Pure: the toolbox passes in what it knows.
import { ForgeError, fromData } from "../contract/forge-error.ts";
import type { HistoryEntry } from "../store/history.ts";
import type { RegistryEntry } from "../store/registry.ts";

export const REPAIR_ATTEMPTS_BEFORE_ADVICE = 3;

export function notFoundError(name: unknown, similar: string[], toolboxEmpty: boolean): ForgeError {
	const shown = typeof name === "string" ? name : JSON.stringify(name);
	return new ForgeError("not-found", `There is no forged tool named '${shown}'.`, {
		notes: similar.length ? [`Similar tools: ${similar.join(", ")}`] : [],
		hint: toolboxEmpty
			? "The toolbox is empty: create the tool with forge_tool first."
			: "Call list_forge (with a query) to find the right tool, or forge_tool to create it.",
	});
}

export function brokenToolError(entry: RegistryEntry, source: string | undefined): ForgeError {
	const base = entry.error ?? { phase: "broken" as const, message: "This tool is marked broken." };
	return fromData(base, { tool: entry.name, source }).with({
		hint: `'${entry.name}' is broken and was not run. Repair it with forge_tool (same name), then call it again.`,
	});
}

/** Which version worked last: the live one if it is healthy, else the newest one in the history. */
export function backOffAdvice(
	name: string,
	failures: number,
	live: RegistryEntry | undefined,
	history: HistoryEntry[],
): string {
	const start = `This is failed attempt ${failures} in a row at '${name}'.`;
	if (live && live.status === "ok") {
		return `${start} The live version v${live.version}${live.verified ? " (verified)" : ""} still works and is unchanged: consider a smaller change to it, or keep it as it is.`;
	}
	const last = history.filter((e) => e.event !== "removed").at(-1);
	return last
		? `${start} The last good version is v${last.version}: roll back to it (/forge rollback ${name} ${last.version}) and change one thing at a time.`
		: `${start} Start from a smaller tool that does one thing, test it, then extend it.`;
}

/** What a change of a tool's code is called in its errors. */
const CHANGE_NAMES = { forged: "forge", "rolled-back": "roll-back", imported: "import" } as const;

/**
 * A change of a tool's code whose live version kept changing between its unlocked run and the lock (another forge of
 * it here or in another pi process, a hand edit still being saved): it gives up rather than run the code under the lock.
 */
export function keptChangingError(name: string, event: keyof typeof CHANGE_NAMES, rounds: number): ForgeError {
	const change = CHANGE_NAMES[event];
	return new ForgeError(
		"store",
		`'${name}' kept changing while this ${change} was being checked: each of ${rounds} tries found a version other than the one it was checked against (another forge of '${name}', here or in another pi process, or an edit of its file still being saved). Nothing was changed.`,
		{
			tool: name,
			hint: `Try the ${change} again once '${name}' has stopped changing; list_forge with name '${name}' shows its version now.`,
		},
	);
}
