// Scrubs text bound for the model: secret values from the environment, anything that looks like a credential, and
// host paths (project-relative inside the project, elided elsewhere), while leaving URLs and code alone.
import { locateSecrets } from "./secrets.ts";

export interface RedactionContext {
	projectDir: string;
	homeDir: string;
	tempDir: string;
	/** Values of sensitive environment variables (see `sensitiveEnvValues`), each at least 8 characters. */
	secretValues: string[];
}

/** Names of environment variables whose values are secrets (`GIT_AUTHOR_NAME` is not). */
const SENSITIVE_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH(?!OR)/i;
/** Shorter values would turn ordinary words into `[redacted]`. */
const MIN_SECRET_VALUE_LENGTH = 8;
const ABSOLUTE_PATH = /^(?:\/|[A-Za-z]:[\\/])\S*$/;

/**
 * The values worth hiding from the model, longest first, without duplicates. Absolute paths (`SSH_AUTH_SOCK`,
 * `GOOGLE_APPLICATION_CREDENTIALS`) are left to the path rules: hiding them whole would also hide the project dir.
 */
export function sensitiveEnvValues(env: Record<string, string | undefined>): string[] {
	const values = new Set<string>();
	for (const [name, value] of Object.entries(env)) {
		const trimmed = value?.trim();
		if (!trimmed || trimmed.length < MIN_SECRET_VALUE_LENGTH || !SENSITIVE_ENV_NAME.test(name)) continue;
		if (!ABSOLUTE_PATH.test(trimmed)) values.add(trimmed);
	}
	return [...values].sort((a, b) => b.length - a.length);
}

/** Secret values first (longest first), then anything `findSecrets` flags, then host paths. */
export function redactForModel(text: string, context: RedactionContext): string {
	return redactPaths(redactFoundSecrets(redactValues(text, context.secretValues)), context);
}

/** Only the secrets (values and credential formats), for code: paths in a source listing are the model's own text. */
export function redactSecrets(text: string, secretValues: string[]): string {
	return redactFoundSecrets(redactValues(text, secretValues));
}

function redactValues(text: string, values: string[]): string {
	let out = text;
	for (const value of [...values].sort((a, b) => b.length - a.length)) {
		if (value.length >= MIN_SECRET_VALUE_LENGTH && out.includes(value)) out = out.split(value).join("[redacted]");
	}
	return out;
}

/** One pass over the text (cutting the whole text again at every finding would be quadratic in their number). */
function redactFoundSecrets(text: string): string {
	const parts: string[] = [];
	let copied = 0;
	for (const secret of locateSecrets(text)) {
		parts.push(text.slice(copied, secret.start), `[redacted ${secret.kind}]`);
		copied = secret.end;
	}
	if (copied === 0) return text;
	parts.push(text.slice(copied));
	return parts.join("");
}

type RootKind = "project" | "temp" | "home";

interface Root {
	kind: RootKind;
	dir: string;
	windows: boolean;
}

/**
 * Where an absolute path may start: `/` or a drive (`C:\`), optionally after `file://`; not inside a word, a relative
 * path (`./a`, `~/a`, `a/b`), a comment's end (`*∕`), after a slash (`//`, the host of `https://x/y`) or after a
 * closing bracket (`(a + b)/c`). `https://` itself never qualifies: a path needs a segment right after its `/`.
 */
const PATH_START = /(?:(?<![\p{L}\p{N}_$])file:\/\/(?=\/)|(?<![\p{L}\p{N}_$.~/\\*)\]}>-]))(?:\/|[A-Za-z]:[\\/])/gu;
const POSIX_REST = /(?:\/[\p{L}\p{N}_.@%+~-]+)*/uy;
const WINDOWS_REST = /(?:[\\/][\p{L}\p{N}_.@%+~-]+)*/uy;
/** A generic absolute path needs two segments: `/etc` alone tells nothing, and `a /b` is division. */
const POSIX_PATH = /\/[\p{L}\p{N}_.@%+~-]+(?:\/[\p{L}\p{N}_.@%+~-]+)+/uy;
const WINDOWS_PATH = /[A-Za-z]:(?:[\\/][\p{L}\p{N}_.@%+~-]+){2,}/uy;
/** `/error/i,` or `/abc/.test(` in a code listing: a regex literal, not a path. */
const REGEX_LITERAL = /\/(?![*/])(?:[^/\\\n[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+\/[dgimsuvy]*/y;
const AFTER_REGEX_LITERAL = /(?:$|[\s,;)\]}:?|&!=]|\.(?:test|exec|source|flags|lastIndex|toString)\b)/y;
/** Well-known device paths that reveal nothing about the host. */
const HARMLESS_PATHS = new Set(["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

function redactPaths(text: string, context: RedactionContext): string {
	const roots = rootsOf(context);
	const starts = new RegExp(PATH_START.source, PATH_START.flags);
	let out = "";
	let copied = 0;
	for (let match = starts.exec(text); match; match = starts.exec(text)) {
		const path = match.index + (match[0].startsWith("file://") ? "file://".length : 0);
		const found = rootPathAt(text, path, roots) ?? otherPathAt(text, path);
		if (!found) continue;
		starts.lastIndex = found.end;
		if (found.replacement === undefined) continue;
		out += text.slice(copied, match.index) + found.replacement;
		copied = found.end;
	}
	return copied === 0 ? text : out + text.slice(copied);
}

/** The project first (a path inside it is always made relative), then the more specific of temp and home. */
function rootsOf(context: RedactionContext): Root[] {
	const roots: Root[] = [];
	const add = (kind: RootKind, dir: string) => {
		const normalized = dir.replace(/(?<=.)[\\/]+$/, "");
		const windows = /^[A-Za-z]:[\\/]/.test(normalized);
		// A missing directory or a filesystem root would swallow every path.
		if (normalized.length > (windows ? 3 : 1) && (windows || normalized.startsWith("/")))
			roots.push({ kind, dir: normalized, windows });
	};
	add("project", context.projectDir);
	for (const [kind, dir] of (
		[
			["temp", context.tempDir],
			["home", context.homeDir],
		] as const
	).toSorted((a, b) => b[1].length - a[1].length)) {
		add(kind, dir);
	}
	return roots;
}

interface PathMatch {
	end: number;
	/** Undefined: leave the path as it is. */
	replacement?: string;
}

function rootPathAt(text: string, start: number, roots: Root[]): PathMatch | undefined {
	for (const root of roots) {
		const candidate = text.slice(start, start + root.dir.length);
		const same = root.windows ? sameWindowsPath(candidate, root.dir) : candidate === root.dir;
		if (!same) continue;
		const rootEnd = start + root.dir.length;
		// `/proj` must not claim `/proj2`; trailing dots are the sentence's, not the path's.
		const tail = /^[\p{L}\p{N}_.@%+~-]*/u.exec(text.slice(rootEnd, rootEnd + 256))?.[0] ?? "";
		if (!/^\.*$/.test(tail)) continue;
		const end = trimTrailingDots(text, rootEnd, restEnd(text, rootEnd, root.windows));
		const rest = text.slice(rootEnd, end).replace(/^[\\/]/, "");
		return { end, replacement: replacementFor(root.kind, rest, text[end]) };
	}
	return undefined;
}

/** `next` is the character after the path: the project itself before a full stop is `./`, never `..`. */
function replacementFor(kind: RootKind, rest: string, next: string | undefined): string | undefined {
	if (kind === "project") return rest || (next === "." ? "./" : ".");
	if (kind === "temp") return undefined;
	const segments = rest.split(/[\\/]/).filter(Boolean);
	if (segments.length === 0) return "<home>";
	return segments.length === 1 ? `<home>/${segments[0]}` : `<home>/…/${segments.at(-1)}`;
}

function otherPathAt(text: string, start: number): PathMatch | undefined {
	const windows = text[start] !== "/";
	const pattern = windows ? WINDOWS_PATH : POSIX_PATH;
	pattern.lastIndex = start;
	const match = pattern.exec(text);
	if (!match) return undefined;
	if (!windows && isRegexLiteralAt(text, start)) return undefined;
	const end = trimTrailingDots(text, start, start + match[0].length);
	const path = text.slice(start, end);
	const segments = path.split(/[\\/]/).filter(Boolean);
	if (HARMLESS_PATHS.has(path) || segments.length < (windows ? 3 : 2)) return { end };
	return { end, replacement: `<outside the project>/${segments.at(-1)}` };
}

function isRegexLiteralAt(text: string, start: number): boolean {
	REGEX_LITERAL.lastIndex = start;
	const literal = REGEX_LITERAL.exec(text);
	if (!literal) return false;
	AFTER_REGEX_LITERAL.lastIndex = start + literal[0].length;
	return AFTER_REGEX_LITERAL.test(text);
}

function restEnd(text: string, from: number, windows: boolean): number {
	const rest = windows ? WINDOWS_REST : POSIX_REST;
	rest.lastIndex = from;
	return from + (rest.exec(text)?.[0].length ?? 0);
}

/** `/a/notes.txt.` ends a sentence: drop the dots, but keep a segment that is only dots (`/a/..`). */
function trimTrailingDots(text: string, floor: number, end: number): number {
	const lastSegment = /[^\\/]*$/.exec(text.slice(floor, end))?.[0] ?? "";
	if (/^\.+$/.test(lastSegment)) return end;
	let trimmed = end;
	while (trimmed > floor && text[trimmed - 1] === ".") trimmed--;
	return trimmed;
}

function sameWindowsPath(a: string, b: string): boolean {
	const normalize = (path: string) => path.replace(/\\/g, "/").toLowerCase();
	return normalize(a) === normalize(b);
}
