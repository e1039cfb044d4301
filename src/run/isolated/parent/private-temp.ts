// A private temp dir per tool instead of the shared one: the runner makes one folder of its own in the OS temp dir
// (mode 0700, a name nobody can guess or make first), and each tool gets a folder in it — its os.tmpdir() and TMPDIR,
// its commands' TMPDIR, the one temp folder it may write without a grant. The rest of the OS temp dir (other
// projects, other sessions' files, caches that pi or other programs run) is outside the tool's roots.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { toolTempDir } from "../temp-dirs.ts";
import { real } from "./paths.ts";

export { toolTempDir } from "../temp-dirs.ts";

/** The runner's own folder in the OS temp dir (real path). */
export function makeTempRoot(osTempDir: string): string {
	return real(mkdtempSync(join(osTempDir, "agent-forge-")));
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
