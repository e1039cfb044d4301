// Path helpers of pi's side of the runner: real paths, and whether one path is inside another.
import { realpathSync } from "node:fs";
import { basename, dirname, join, normalize, parse, sep } from "node:path";

/** Symlinks resolved (macOS's /tmp is /private/tmp); for a path that does not exist yet, its nearest existing parent's. */
export function real(path: string): string {
	try {
		return realpathSync.native(path);
	} catch {
		const parent = dirname(path);
		return parent === path ? path : join(real(parent), basename(path));
	}
}

/** `path` is `dir` or below it; "/a/bc" is not inside "/a/b"; trailing slashes and "." / ".." segments don't matter. */
export function isInside(path: string, dir: string): boolean {
	if (!path || !dir) return false;
	const p = trimSeparators(path);
	const d = trimSeparators(dir);
	if (p === d) return true;
	const prefix = d.endsWith("/") || d.endsWith(sep) ? d : d + sep;
	return p.startsWith(prefix);
}

/** Normalized, without trailing separators, except for a root ("/"), which is nothing but its separator. */
export function trimSeparators(path: string): string {
	const normalized = normalize(path);
	if (parse(normalized).root === normalized) return normalized;
	return normalized.replace(/[\\/]+$/, "");
}
