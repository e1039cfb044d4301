// Path comparisons the policy is made of: inside a folder, the same location.
import { normalize, parse, sep } from "node:path";

/** `path` is `dir` or below it; "/a/bc" is not inside "/a/b"; trailing slashes and "." / ".." segments don't matter. */
export function isInside(path: string, dir: string): boolean {
	if (!path || !dir) return false;
	const p = trimSeparators(path);
	const d = trimSeparators(dir);
	if (p === d) return true;
	const prefix = d.endsWith("/") || d.endsWith(sep) ? d : d + sep;
	return p.startsWith(prefix);
}

export function sameLocation(a: string, b: string): boolean {
	return trimSeparators(a) === trimSeparators(b);
}

/** Normalized, without trailing separators, except for a root ("/"), which is nothing but its separator. */
function trimSeparators(path: string): string {
	const normalized = normalize(path);
	if (parse(normalized).root === normalized) return normalized;
	return normalized.replace(/[\\/]+$/, "");
}
