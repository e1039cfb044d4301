// Protected names below the top of a granted command's writable folders (`sub/.git`, `docs/AGENTS.md`,
// `a/.pi/extensions/x.ts`): the kernel has no rule by name, so the folders are walked before the command (what exists
// is bound read-only) and after it (what it made is removed, and the tool is told). The walk reads folders only —
// one readdir each, several at once, no stat — does not go into a protected folder it found, nor into `node_modules` (a package
// manager's tree, run by npm scripts whatever names are in it), and stops after MAX_ENTRIES entries, saying so. The
// names are the policy's own: those of the protected paths at the top of the project (`.git`, `AGENTS.md`,
// `.vscode/tasks.json`), which the policy lists for every folder.
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";
import { anchoredFs } from "./anchored-fs.ts";
import { isInside } from "./paths.ts";

/** The most entries one walk looks at (about half a second); a project of ~20k files takes 40-100 ms. */
export const MAX_ENTRIES = 100_000;

const SKIPPED: ReadonlySet<string> = new Set(["node_modules"]);

/** Names protected wherever they are (`.git`, `agents.md`), and those protected inside a folder (`.vscode/tasks.json`). */
export interface ProtectedNames {
	single: Set<string>;
	inFolder: Map<string, Set<string>>;
}

/** The names of the protected paths one or two levels below `root` (compared without case). */
export function protectedNamesAt(root: string, protectedPaths: readonly string[]): ProtectedNames {
	const single = new Set<string>();
	const inFolder = new Map<string, Set<string>>();
	for (const path of protectedPaths) {
		if (!isInside(path, root) || path === root) continue;
		const parts = relative(root, path)
			.split(sep)
			.map((part) => part.toLowerCase());
		if (parts.length === 1) single.add(parts[0]!);
		else if (parts.length === 2) inFolder.set(parts[0]!, new Set([...(inFolder.get(parts[0]!) ?? []), parts[1]!]));
	}
	return { single, inFolder };
}

export interface ProtectedScan {
	/** Paths with a protected name (folders are not walked into). */
	paths: Set<string>;
	/** False when the walk stopped at MAX_ENTRIES. */
	complete: boolean;
}

/** The protected names in `roots` and below them (the roots' own top level included). */
export async function scanProtected(
	roots: readonly string[],
	names: ProtectedNames,
	maxEntries = MAX_ENTRIES,
): Promise<ProtectedScan> {
	const { single, inFolder } = names;
	const paths = new Set<string>();
	let seen = 0;
	let level = [...roots];
	while (level.length) {
		const next: string[] = [];
		for (let i = 0; i < level.length; i += PARALLEL) {
			const listed = await Promise.all(level.slice(i, i + PARALLEL).map(list));
			for (const { dir, entries } of listed) {
				const within = inFolder.get(basename(dir).toLowerCase());
				for (const entry of entries) {
					if (++seen > maxEntries) return { paths, complete: false };
					const name = entry.name.toLowerCase();
					const path = join(dir, entry.name);
					if (single.has(name) || within?.has(name)) paths.add(path);
					else if (entry.isDirectory() && !SKIPPED.has(name)) next.push(path);
				}
			}
		}
		level = next;
	}
	return { paths, complete: true };
}

/** Folders read at once (a level of the tree at a time, so pi's thread is never held for a whole walk). */
const PARALLEL = 16;

async function list(dir: string): Promise<{ dir: string; entries: Dirent[] }> {
	// A folder gone meanwhile, or one we may not read, has nothing in it to check.
	return { dir, entries: await readdir(dir, { withFileTypes: true }).catch(() => []) };
}

/**
 * What `after` found that `before` did not, but for `kept` (placeholders held now): removed through its folder as it
 * was walked (anchored-fs.ts: a folder on the way swapped for a link since is not followed, and that path is left).
 */
export async function removeNew(
	before: ProtectedScan,
	after: ProtectedScan,
	kept: ReadonlySet<string>,
): Promise<{ removed: string[]; left: string[] }> {
	const made = [...after.paths].filter((path) => !before.paths.has(path) && !kept.has(path)).sort();
	const removed: string[] = [];
	const left: string[] = [];
	for (const path of made) {
		const gone = await removeAnchored(path).then(
			() => true,
			() => false,
		);
		(gone ? removed : left).push(path);
	}
	return { removed, left };
}

/** `rm -r` of `path` through its folder, checked to be the folder named (never through a link). */
export function removeAnchored(path: string): Promise<unknown> {
	return anchoredFs("rm", [path, { recursive: true, force: true }], []);
}
