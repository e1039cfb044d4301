// A private temp dir per tool instead of the shared one: the runner makes one folder of its own in the OS temp dir
// (mode 0700, a name nobody can guess or make first), and each tool gets a folder in it — its os.tmpdir() and TMPDIR,
// its commands' TMPDIR, the one temp folder it may write without a grant. The rest of the OS temp dir (other
// projects, other sessions' files, caches that pi or other programs run) is outside the tool's roots.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { toolTempDir } from "../temp-dirs.ts";
import { real } from "./paths.ts";

export { toolTempDir } from "../temp-dirs.ts";

/** The runner's own folder in the OS temp dir (real path), named after pi's process: `agent-forge-<pid>-XXXXXX`. */
export function makeTempRoot(osTempDir: string): string {
	removeLeftRoots(osTempDir);
	return real(mkdtempSync(join(osTempDir, `agent-forge-${process.pid}-`)));
}

const ROOT_NAME = /^agent-forge-(\d+)-[A-Za-z0-9]{6}$/;

/**
 * Removes the folders runners of this user left when their pi was killed (no process has their pid any more): what
 * their tools left in them would otherwise stay until the OS cleans its temp dir.
 */
function removeLeftRoots(osTempDir: string): void {
	let entries: string[];
	try {
		entries = readdirSync(osTempDir);
	} catch {
		return;
	}
	for (const entry of entries) {
		const pid = Number(ROOT_NAME.exec(entry)?.[1]);
		if (!pid || pid === process.pid || alive(pid)) continue;
		const dir = join(osTempDir, entry);
		try {
			const info = lstatSync(dir);
			if (info.isDirectory() && info.uid === process.getuid?.()) rmSync(dir, { recursive: true, force: true });
		} catch {
			// gone meanwhile, or not ours to remove
		}
	}
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** Makes the tool's folder (owner only), before a call of it runs; one that cannot be made fails the tool's writes there. */
export function ensureToolTempDir(root: string, tool: string): string {
	const dir = toolTempDir(root, tool);
	try {
		mkdirSync(root, { recursive: true, mode: 0o700 });
		mkdirSync(dir, { recursive: true, mode: 0o700 });
	} catch {
		// A full disk or a root removed from under pi: the call still runs.
	}
	return dir;
}

/** Removes the runner's folder and what tools left in it. */
export function removeTempRoot(root: string): void {
	try {
		rmSync(root, { recursive: true, force: true });
	} catch {
		// Left behind: the OS cleans its temp dir.
	}
}
