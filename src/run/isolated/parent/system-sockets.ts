// The unix sockets a granted command must not reach: every socket file in the trees where the system's and other
// users' daemons put theirs (/run, /var, /srv, /home, /root, /nix/var) and in what a hidden folder shows again
// (`~/.docker` for a `PATH` with `~/.docker/bin`), but for those in the command's writable folders (the project, its
// temp dir). bubblewrap binds /dev/null over each: a connect there is refused, whatever path leads to it (a link, a
// `/proc/<pid>/root/…` path, which in the command's own pid namespace is its own root). The trees are looked at again
// at each command's start, a folder read again only when it changed (its ctime), so a socket made after pi started is
// found too; one made while the command runs is not, nor one deeper than MAX_DEPTH or in installed code (node_modules).
// Folders no one but their owner may list (`/run/containerd` for a user) are not read: their known daemon sockets are
// named (DAEMON_SOCKETS).
// Abstract sockets (`@/tmp/.X11-unix/X0`, some D-Bus buses) have no file: they belong to a network namespace. A command
// without the network has its own, with no abstract socket in it; a command with it shares the host's and reaches them.
import { type Dirent, lstatSync, readdirSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { isInside } from "./paths.ts";

/**
 * The sockets of daemons that act as root for whoever may connect (docker, containerd, podman, CRI-O, libvirt):
 * looked for by name too, in case their folder cannot be listed.
 */
export const DAEMON_SOCKETS = [
	"/run/docker.sock",
	"/var/run/docker.sock",
	"/run/containerd/containerd.sock",
	"/run/podman/podman.sock",
	"/run/crio/crio.sock",
	"/var/run/libvirt/libvirt-sock",
];

/** The trees walked for sockets (`/var/run` is usually a link to `/run`: walked once). */
export const SOCKET_TREES = ["/run", "/var/run", "/var", "/srv", "/home", "/root", "/nix/var"];

/** Folders in those trees that hold images, packages and logs, never a daemon's socket: not walked. */
export const NOT_WALKED = [
	"/var/cache",
	"/var/log",
	"/var/lib/apt",
	"/var/lib/dpkg",
	"/var/lib/docker",
	"/var/lib/containers/storage",
	"/var/lib/containerd",
	"/var/lib/snapd/snaps",
	"/var/lib/flatpak",
	"/var/lib/lxcfs",
];

/** Folders of installed code and its history, by name, wherever they are: no daemon puts its socket there. */
export const NOT_WALKED_NAMES = new Set(["node_modules", ".git", "site-packages", "dist-packages", "__pycache__"]);

/** How long after its last change a folder's listing is trusted to stay as read while its change time stays. */
const SETTLE_MS = 2_000;

/** How deep below a tree's top sockets are looked for (`/var/snap/lxd/common/lxd/unix.socket` is 5 down). */
export const MAX_DEPTH = 6;

/**
 * The most folders looked at, and entries read, in one tree for one command (a folder unchanged since it was read costs
 * one stat). A tree stopped by the entries is read further at the next command, from what was read already; one with
 * more folders than that is never walked whole (nor is a folder of more entries read).
 */
export const WALK_BOUNDS = { folders: 2_000, entries: 10_000 };

export interface SocketScope {
	/** Walked: the system trees and the folders a hidden folder shows again. */
	roots: readonly string[];
	/** Not walked (nor what is below) when the walk comes to them: the hidden folders, NOT_WALKED. */
	skip: readonly string[];
	/** Where sockets may be reached (the project, the temp dir): not walked, nothing in them named. */
	writable: readonly string[];
	/** Sockets looked for by name (DAEMON_SOCKETS). */
	named?: readonly string[];
	bounds?: { folders: number; entries: number };
}

interface Folder {
	ctimeMs: number;
	ino: number;
	/** Read well after its last change: an entry made in the same clock tick as that change would have been seen. */
	settled: boolean;
	sockets: string[];
	folders: string[];
}

/** What was learned of each folder, kept from one command to the next. */
export class SocketIndex {
	private readonly known = new Map<string, Folder>();

	/** `now`: the clock a folder's last change is compared with (tests move it on). */
	constructor(private readonly now: () => number = Date.now) {}

	/** The sockets in scope, by real path; `complete` is false when a bound stopped the walk (the rest is looked at next time). */
	find(scope: SocketScope): { sockets: string[]; complete: boolean } {
		const bounds = scope.bounds ?? WALK_BOUNDS;
		const writable = scope.writable.map(realOrSelf);
		const skip = new Set([...scope.skip, ...writable].map(realOrSelf));
		const found = new Set<string>();
		for (const path of scope.named ?? []) {
			const socket = socketAt(path);
			if (socket && !writable.some((dir) => isInside(socket, dir))) found.add(socket);
		}
		const roots = topmost(
			scope.roots.map(realOrSelf).filter((root) => !skip.has(root) && !writable.some((dir) => isInside(root, dir))),
		);
		let complete = true;
		// Each tree within its own bounds: a big one (another user's home) leaves the others walked.
		for (const root of roots) if (!this.walk(root, skip, bounds, found)) complete = false;
		return { sockets: [...found], complete };
	}

	/** The sockets below `root` into `found`; false when a bound stopped the walk. */
	private walk(root: string, skip: Set<string>, bounds: { folders: number; entries: number }, found: Set<string>) {
		const stack: [string, number][] = [[root, 0]];
		let folders = 0;
		let entries = 0;
		while (stack.length) {
			if (folders++ >= bounds.folders) return false;
			const [dir, depth] = stack.pop()!;
			let stats: { ctimeMs: number; ino: number; isDirectory(): boolean };
			try {
				stats = lstatSync(dir);
			} catch {
				this.known.delete(dir);
				continue;
			}
			if (!stats.isDirectory()) continue;
			let folder = this.known.get(dir);
			if (!folder?.settled || folder.ctimeMs !== stats.ctimeMs || folder.ino !== stats.ino) {
				let listing: Dirent[];
				try {
					listing = readdirSync(dir, { withFileTypes: true });
				} catch {
					continue;
				}
				entries += listing.length;
				if (entries > bounds.entries) return false;
				folder = read(dir, listing, stats, this.now());
				this.known.set(dir, folder);
			}
			for (const socket of folder.sockets) found.add(socket);
			if (depth < MAX_DEPTH)
				for (const sub of folder.folders)
					if (!skip.has(sub) && !NOT_WALKED_NAMES.has(basename(sub))) stack.push([sub, depth + 1]);
		}
		return true;
	}
}

function read(dir: string, listing: Dirent[], stats: { ctimeMs: number; ino: number }, now: number): Folder {
	const sockets: string[] = [];
	const folders: string[] = [];
	for (const entry of listing) {
		// Links are not followed: what they point to is found where it is.
		if (entry.isSocket()) sockets.push(join(dir, entry.name));
		else if (entry.isDirectory()) folders.push(join(dir, entry.name));
	}
	// A folder's times move in clock ticks (a few ms): one changed again within the tick it was read in keeps its time,
	// so a folder changed lately is read again each time until its change is well past (as git does with racy entries).
	const settled = now - stats.ctimeMs > SETTLE_MS;
	return { ctimeMs: stats.ctimeMs, ino: stats.ino, settled, sockets, folders };
}

/** The real path of a socket at `path` (through links), if there is one. */
function socketAt(path: string): string | undefined {
	try {
		const target = realpathSync(path);
		return lstatSync(target).isSocket() ? target : undefined;
	} catch {
		return undefined;
	}
}

function realOrSelf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** Each root once, and none inside another. */
function topmost(roots: string[]): string[] {
	const unique = [...new Set(roots)].sort((a, b) => a.length - b.length);
	return unique.filter((root, i) => !unique.slice(0, i).some((outer) => isInside(root, outer)));
}

/** The index pi's process keeps for its commands. */
export const systemSocketIndex = new SocketIndex();

/** The daemon sockets there are here, by their real paths (`/var/run` is usually a link to `/run`). */
export function daemonSockets(candidates: readonly string[] = DAEMON_SOCKETS): string[] {
	return [...new Set(candidates.flatMap((path) => socketAt(path) ?? []))];
}
