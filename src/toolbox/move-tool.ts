// Promote and demote: a tool moves between the project toolbox and the user toolbox with its history and its version
// (v3 stays v3). The destination gets the history and the exact pair of files first (under its lock), takes the tool
// in, and only then the source lets it go: a move cut short leaves the tool in both, never in neither. Moving runs no
// tool code with a lock held: a valid hand edit is taken in first, so the pair's metadata matches its source and the
// destination takes it in without loading it (only a broken edit is loaded again there, by the re-check that finds it).

import type { ForgeConfig } from "../contract/config.ts";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import type { ScopedToolbox } from "./toolboxes.ts";

export interface Moved {
	name: string;
	version: number;
	from: ScopedToolbox["scope"];
	to: ScopedToolbox["scope"];
	/** Stored versions that moved with it. */
	versions: number;
	/** The version of the destination's namesake that `force` replaced (its history stays there). */
	replaced?: number;
}

const label = (scope: ScopedToolbox["scope"]) => `the ${scope} toolbox`;
const command = (to: ScopedToolbox["scope"]) => (to === "user" ? "promote" : "demote");

export async function moveTool(
	name: string,
	from: ScopedToolbox,
	to: ScopedToolbox,
	options: { force?: boolean } = {},
): Promise<Result<Moved>> {
	const entry = await from.toolbox.fresh(name);
	if (!entry) {
		const there = await to.toolbox.fresh(name);
		return fail(
			new ForgeError("not-found", `There is no tool named '${name}' in ${label(from.scope)}.`, {
				tool: name,
				hint: there
					? `'${name}' is already in ${label(to.scope)}.`
					: `The tools of ${label(from.scope)}: ${from.toolbox
							.entries()
							.map((e) => e.name)
							.join(", ")}`.replace(/: $/, ": none."),
			}),
		);
	}
	const existing = await to.toolbox.fresh(name);
	if (existing && !options.force)
		return fail(
			new ForgeError(
				"store",
				`${cap(label(to.scope))} already has a tool named '${name}' (v${existing.version}): nothing was moved.`,
				{
					tool: name,
					hint: `To replace it with ${label(from.scope)}'s '${name}' (its history is kept), ${command(to.scope)} again with --force; or remove one of them first.`,
				},
			),
		);
	const { source, metaText } = await from.toolbox.readTool(name);
	if (source === undefined || metaText === undefined)
		return fail(
			new ForgeError("store", `The files of '${name}' could not be read: nothing was moved.`, { tool: name }),
		);
	if (existing) {
		const removed = await to.toolbox.remove(name);
		if (!removed.ok) return removed;
	}
	const history = await from.stores.history.all(name);
	try {
		await to.stores.store.ensure();
		await to.stores.store.locked(async () => {
			await to.stores.history.append(name, history).catch(() => undefined);
			const promoted = await to.stores.store.promote(await to.stores.store.stage(name, source, metaText));
			await promoted.settled;
		});
	} catch (error) {
		return fail(
			new ForgeError(
				"store",
				`'${name}' could not be written into ${label(to.scope)}: ${(error as Error).message}. Nothing was moved.`,
				{ tool: name },
				{ cause: error },
			),
		);
	}
	const moved = await to.toolbox.reload(name);
	// Its calls and last use come along: the active set goes on ranking it as before.
	const health = from.toolbox.healthOf(name);
	if (health) to.stores.health.adopt(name, health);
	const removed = await from.toolbox.remove(name);
	if (!removed.ok)
		return fail(
			removed.error.with({
				notes: [
					`'${name}' is now in ${label(to.scope)} too, but could not be taken out of ${label(from.scope)}: remove it there by hand.`,
				],
			}),
		);
	await from.stores.history.drop(name).catch(() => undefined);
	return ok({
		name,
		version: moved?.version ?? entry.version,
		from: from.scope,
		to: to.scope,
		versions: history.length,
		...(existing ? { replaced: existing.version } : {}),
	});
}

const cap = (text: string) => text[0].toUpperCase() + text.slice(1);

/** PI_FORGE_DIR names the user toolbox's own folder: the project's toolbox is that one, and there is no other. */
export function noUserToolbox(config: Pick<ForgeConfig, "toolboxDir">): ForgeError {
	return new ForgeError(
		"arguments",
		`There is no separate user toolbox here: PI_FORGE_DIR is the user toolbox's own folder (${config.toolboxDir}), so this project's toolbox is the user toolbox.`,
		{ hint: "Leave scope out: every tool forged here is already in the user toolbox." },
	);
}
