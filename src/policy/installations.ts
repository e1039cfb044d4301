// The installations pi runs code from at its next start, as protected locations: Agent Forge's own package (a
// local-path install or `pi -e` loads it as it is), pi's package, and the Node installations that run pi and the
// runner host. A tool that rewrote one would run its code in pi's process, outside any sandbox.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { isInside } from "./paths.ts";
import type { ProtectedLocation } from "./protected.ts";

/** The names pi is published under (current line, legacy line). */
export const PI_PACKAGES: readonly string[] = ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"];

export interface InstallationFacts {
	/** A file of Agent Forge's own package (this module's). */
	forgeFile: string;
	/** pi's entry script (`process.argv[1]`), when pi is the process; an SDK host's script otherwise. */
	entry?: string;
	/** The Node binaries that run pi and the runner host. */
	nodes: readonly string[];
	/** The project: an installation that holds it (a checkout of Agent Forge worked on with pi) is the project's. */
	projectDir: string;
}

/** The installations of `facts` as protected locations; an installation that holds the project is left out. */
export function installationLocations(facts: InstallationFacts): ProtectedLocation[] {
	const found: ProtectedLocation[] = [];
	const add = (path: string | undefined, what: string) => {
		if (!path || isInside(facts.projectDir, path) || found.some((location) => location.path === path)) return;
		found.push({ path, what });
	};
	add(packageRoot(facts.forgeFile), "Agent Forge's own package (pi loads its code at every start)");
	add(piRoot(facts.entry), "pi's own package (its code runs at every start)");
	for (const node of facts.nodes) add(nodeRoot(node), "the Node installation that runs pi or the forge's runner");
	return found;
}

/** The facts of this process: Agent Forge from this file, pi from its entry script, Node from execPath (and `nodePath`). */
export function currentInstallations(projectDir: string, nodePath?: string): ProtectedLocation[] {
	return installationLocations({
		forgeFile: import.meta.filename,
		entry: process.argv[1],
		nodes: [process.execPath, ...(nodePath ? [nodePath] : [])],
		projectDir,
	});
}

/** The folder of the nearest package.json above `file` (real path), optionally one named `names`. */
function packageRoot(file: string | undefined, names?: readonly string[]): string | undefined {
	if (!file) return undefined;
	let dir = dirname(real(file));
	for (;;) {
		const manifest = join(dir, "package.json");
		if (existsSync(manifest) && (!names || names.includes(packageName(manifest) ?? ""))) return dir;
		const parent = dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
}

/** pi's package: above its entry script, or (an SDK host) the pi that script resolves. */
function piRoot(entry: string | undefined): string | undefined {
	const above = packageRoot(entry, PI_PACKAGES);
	if (above || !entry) return above;
	for (const name of PI_PACKAGES) {
		try {
			const resolved = createRequire(real(entry)).resolve(name);
			const root = packageRoot(resolved, PI_PACKAGES);
			if (root) return root;
		} catch {
			// not resolvable from there: the next name
		}
	}
	return undefined;
}

/**
 * The installation a Node binary belongs to (`…/node-v24/bin/node` → `…/node-v24`); its `bin` folder alone when that
 * would be a filesystem root or a home directory (`~/bin/node`).
 */
function nodeRoot(node: string): string | undefined {
	const bin = dirname(real(node));
	const root = dirname(bin);
	if (root === dirname(root)) return bin;
	return existsSync(join(root, "lib")) || existsSync(join(root, "include")) ? root : bin;
}

function packageName(manifest: string): string | undefined {
	try {
		const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name;
		return typeof name === "string" ? name : undefined;
	} catch {
		return undefined;
	}
}

function real(path: string): string {
	try {
		return realpathSync.native(path);
	} catch {
		return path;
	}
}
