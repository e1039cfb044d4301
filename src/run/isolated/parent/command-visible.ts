// What of a hidden folder (the user's home, the shared temp dir) a granted command still sees: the folders on its PATH
// there, its program's folder and the folder it runs in. A `bin` comes back with its installation beside it
// (`~/.cargo` for `~/.cargo/bin`), but `~/.local` is a prefix many programs share, with their data in it (keyrings,
// shell histories, mail): for `~/.local/bin` only what running programs need comes back — bin, lib, libexec, the data
// folder named after each program there, and the installations `~/.local/bin`'s links point into (pipx's, uv's venvs).
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { basename, delimiter, dirname, join, relative, sep } from "node:path";
import { isInside } from "./paths.ts";

export interface VisibleFrom {
	/** The PATH the command runs with. */
	path?: string;
	/** The program, when it is a file. */
	program?: string;
	/** The folder the command runs in. */
	cwd?: string;
}

/** The most entries of `~/.local/bin` looked at for links into an installation. */
const MAX_BIN_ENTRIES = 2000;

/** What of `hidden` (the home or a temp dir) stays visible for a command: real paths inside it. */
export function visibleIn(hidden: string, from: VisibleFrom, home: string | undefined): string[] {
	const dirs = (from.path ?? "").split(delimiter).filter((dir) => dir.startsWith("/"));
	if (from.program?.startsWith("/")) dirs.push(dirname(from.program));
	const shown: string[] = [];
	const local = home ? join(home, ".local") : undefined;
	for (const dir of dirs) {
		if (!isInside(dir, hidden) || dir === hidden) continue;
		if (local && dir === join(local, "bin")) shown.push(...localPrefix(local));
		else shown.push(basename(dir) === "bin" && dirname(dir) !== hidden ? dirname(dir) : dir);
	}
	if (from.cwd && isInside(from.cwd, hidden) && from.cwd !== hidden) shown.push(from.cwd);
	return [...new Set(shown)];
}

/**
 * `~/.local/bin` and what its programs run from: lib, libexec, `share/<program>` for each program there, and the
 * installations its links point into; never the rest of `~/.local` (`share/keyrings`, `state`).
 */
function localPrefix(local: string): string[] {
	const bin = join(local, "bin");
	const shown = [bin, join(local, "lib"), join(local, "lib64"), join(local, "libexec")];
	let entries: string[] = [];
	try {
		entries = readdirSync(bin).slice(0, MAX_BIN_ENTRIES);
	} catch {
		return shown;
	}
	for (const entry of entries) {
		const path = join(bin, entry);
		shown.push(join(local, "share", entry));
		try {
			if (!lstatSync(path).isSymbolicLink()) continue;
			const target = realpathSync(path);
			const installation = installationOf(target, local);
			if (installation) shown.push(installation);
		} catch {
			// a dangling link: nothing to show
		}
	}
	return shown;
}

/**
 * The installation a program in `~/.local/bin` links to: `~/.local/share/pipx` for a pipx venv's script, the
 * folder above `bin` for one elsewhere (`~/.nvm/versions/node/v24` for its `bin/node`), never the home itself.
 */
function installationOf(target: string, local: string): string | undefined {
	if (isInside(target, local)) {
		const parts = relative(local, target).split(sep);
		// share/<name>/… or state/<name>/…: that one program's folder; bin, lib, libexec are shown already.
		if ((parts[0] === "share" || parts[0] === "state") && parts.length > 2) return join(local, parts[0], parts[1]);
		return undefined;
	}
	// Only a program in an installation's `bin` brings that installation (never a link to a folder of data or keys).
	const dir = dirname(target);
	const installation = dirname(dir);
	return basename(dir) === "bin" && installation !== dirname(local) && installation !== "/" ? installation : undefined;
}
