// What a granted command sees in the OS sandbox, beyond the project and its own temp dir being writable: the user's
// home, the shared temp dirs (/tmp, /var/tmp, the OS temp dir) and the user's runtime dir (/run/user/<uid>) hidden,
// but for what the command runs from (command-visible.ts); the toolbox's health file and audit log hidden; protected
// names found deeper in the project before it ran (`sub/.git`, `docs/AGENTS.md`) bound read-only; and a protected
// location that does not exist yet held by an empty read-only folder, so the command cannot create it (`.git`,
// `.claude`, `AGENTS.md`). Those placeholders are made by bubblewrap in the real folder while the command runs and
// removed when the last command that holds them ends (placeholders.ts); one whose folder is absent too
// (`.vscode/tasks.json`) cannot be held, and is removed after the command if it made it. No socket outside its
// writable folders is reachable: each found is replaced by /dev/null (system-sockets.ts).
import { lstatSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { visibleIn } from "./command-visible.ts";
import type { SandboxSpec } from "./os-sandbox.ts";
import { isInside } from "./paths.ts";
import { holdPlaceholders, isHeld, releasePlaceholders } from "./placeholders.ts";
import { removeAnchored } from "./protected-scan.ts";
import { sharedTempDirs } from "./shared-dirs.ts";
import { DAEMON_SOCKETS, NOT_WALKED, SOCKET_TREES, systemSocketIndex } from "./system-sockets.ts";

export interface CommandView {
	/** Real paths: the project and the temp dir. */
	writable: string[];
	/** Protected paths (existing or not) that no command may write. */
	readOnly: string[];
	/** Files no tool may read (the toolbox's health file and audit log). */
	unreadable: readonly string[];
	/** The PATH the command runs with: its folders inside the home stay visible. */
	path?: string;
	/** The program, when it is a file (its folder stays visible). */
	program?: string;
	/** The folder the command runs in (it stays visible). */
	cwd?: string;
	network: boolean;
	/** Protected names that exist deeper in the writable folders (`sub/.git`): bound read-only. */
	nested?: readonly string[];
	/** Where this pi records the placeholders it holds (a folder no tool can write), for a start after a hard kill. */
	recordDir?: string;
	/** Whether the sockets outside the writable folders are found, to be nulled (bubblewrap; Seatbelt denies by rule). */
	nullSockets?: boolean;
}

/** Credentials kept in a folder a PATH entry brings back into view (`~/.cargo` for `~/.cargo/bin`): masked there. */
const CREDENTIALS = ["credentials", "credentials.toml", ".credentials.json", "auth.json", ".npmrc", ".pypirc"];

/**
 * The sandbox for one command, and `release` to call when it has ended: it removes placeholders no command holds any
 * more (if still empty) and the protected paths no placeholder could hold (their folder was absent too) that the
 * command made, and says which those were.
 */
export function commandSandbox(view: CommandView): { spec: SandboxSpec; release(): Promise<string[]> } {
	const home = homedir();
	const hideHome = !!home && home !== "/" && !view.writable.some((root) => isInside(home, root));
	const temps = sharedTempDirs().filter(
		(dir) => !view.writable.some((root) => isInside(dir, root)) && !(hideHome && isInside(dir, home)),
	);
	// Outer folders first: one inside another (a test's HOME in /tmp) is hidden within the outer one's empty folder.
	const hidden = [...(hideHome ? [home] : []), ...temps].sort((a, b) => a.length - b.length);
	const visible = [...new Set(hidden.flatMap((dir) => visibleIn(dir, view, home)))];
	const absent: string[] = [];
	const present: string[] = [];
	/** Absent with their folder absent too (`.vscode/tasks.json` without `.vscode`): checked, and undone, afterwards. */
	const unheld: string[] = [];
	const shown = [...view.writable, ...visible];
	for (const path of [...view.readOnly, ...(view.nested ?? [])]) {
		// Out of sight already: binding it read-only would bring it back into a hidden folder (pi's keys, the grants).
		if (hidden.some((dir) => isInside(path, dir)) && !shown.some((root) => isInside(path, root))) continue;
		if (isHeld(path) || (!exists(path) && exists(dirname(path)))) absent.push(path);
		else if (!exists(path) && view.writable.some((root) => isInside(path, root))) unheld.push(path);
		else present.push(path);
	}
	const held = [...new Set(absent.filter((path) => view.writable.some((root) => isInside(path, root))))];
	holdPlaceholders(held, view.recordDir);
	const spec: SandboxSpec = {
		writable: view.writable,
		readOnly: [...new Set(present)],
		network: view.network,
		...(hidden.length ? { hidden, visible } : {}),
		placeholders: held,
		nulled:
			view.nullSockets === false
				? []
				: systemSocketIndex.find({
						roots: [...SOCKET_TREES, ...visible],
						skip: [...hidden, ...NOT_WALKED],
						writable: view.writable,
						named: DAEMON_SOCKETS,
					}).sockets,
		masked: maskedFolders(
			[...view.unreadable, ...visible.flatMap((dir) => CREDENTIALS.map((name) => join(dir, name))).filter(exists)],
			hideHome ? home : undefined,
			shown,
		),
	};
	let released = false;
	return {
		spec,
		release: async () => {
			if (released) return [];
			released = true;
			// What no placeholder could hold and the command made anyway is removed (it ran with nothing of it there),
			// through its folder as checked: a folder swapped for a link by another command is not followed.
			const undone = unheld.filter(exists);
			for (const path of undone) await removeAnchored(path).catch(() => undefined);
			releasePlaceholders(held);
			return undone;
		},
	};
}

/**
 * Folders holding files no tool may read, as they are to be shown: every entry bound back but those files (and the
 * temporary files they are written through), so a rewrite of one while the command runs does not reach it either.
 */
function maskedFolders(
	unreadable: readonly string[],
	hiddenHome: string | undefined,
	shown: string[],
): { dir: string; keep: string[] }[] {
	const byDir = new Map<string, string[]>();
	for (const file of unreadable) {
		const dir = dirname(file);
		// Already out of sight where the home is hidden and nothing shows it again.
		if (hiddenHome && isInside(dir, hiddenHome) && !shown.some((root) => isInside(dir, root))) continue;
		byDir.set(dir, [...(byDir.get(dir) ?? []), basename(file)]);
	}
	const masked: { dir: string; keep: string[] }[] = [];
	for (const [dir, names] of byDir) {
		let entries: string[];
		try {
			entries = readdirSync(dir);
		} catch {
			continue;
		}
		const keep = entries.filter((entry) => {
			if (names.some((name) => entry === name || entry.startsWith(`${name}.`))) return false;
			try {
				return !lstatSync(join(dir, entry)).isSymbolicLink();
			} catch {
				return false;
			}
		});
		masked.push({ dir, keep: keep.map((entry) => join(dir, entry)) });
	}
	return masked;
}

function exists(path: string): boolean {
	try {
		lstatSync(path);
		return true;
	} catch {
		return false;
	}
}
