// The file operations a forged tool may ask pi's process to perform, and which arguments are paths read or written.
// Shared by the worker's `fs` facade (what to broker) and the parent's broker (what to allow and run).

export type Access = "read" | "write";

export interface FsOp {
	/** Path arguments: [argument index, access]. */
	paths: Array<[number, Access]>;
	/** Acts on a link itself rather than on what it points to (its paths are resolved up to their folder only). */
	onLink?: boolean;
}

export const FS_OPS: Readonly<Record<string, FsOp>> = {
	readFile: { paths: [[0, "read"]] },
	readdir: { paths: [[0, "read"]] },
	stat: { paths: [[0, "read"]] },
	lstat: { onLink: true, paths: [[0, "read"]] },
	access: { paths: [[0, "read"]] },
	realpath: { paths: [[0, "read"]] },
	readlink: { onLink: true, paths: [[0, "read"]] },
	writeFile: { paths: [[0, "write"]] },
	appendFile: { paths: [[0, "write"]] },
	mkdir: { paths: [[0, "write"]] },
	rm: { onLink: true, paths: [[0, "write"]] },
	rmdir: { onLink: true, paths: [[0, "write"]] },
	unlink: { onLink: true, paths: [[0, "write"]] },
	truncate: { paths: [[0, "write"]] },
	chmod: { paths: [[0, "write"]] },
	utimes: { paths: [[0, "write"]] },
	rename: {
		onLink: true,
		paths: [
			[0, "write"],
			[1, "write"],
		],
	},
	copyFile: {
		paths: [
			[0, "read"],
			[1, "write"],
		],
	},
	cp: {
		paths: [
			[0, "read"],
			[1, "write"],
		],
	},
};

/** Operations that make links: refused outright (a link from the project to elsewhere would widen every later read). */
export const REFUSED_FS_OPS = ["symlink", "link", "chown", "lchown", "lchmod", "lutimes", "mkdtemp"] as const;

export function isFsOp(action: string): boolean {
	return Object.hasOwn(FS_OPS, action);
}

/** Tagged encodings for values that do not survive structured cloning as themselves. */
export interface EncodedStats {
	__stats: Record<string, number | string>;
}
export interface EncodedDirents {
	__dirents: Array<{ name: string; type: "file" | "directory" | "symlink" | "other" }>;
}
