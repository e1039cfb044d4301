// The OS sandbox on macOS: a Seatbelt profile (SBPL) for /usr/bin/sandbox-exec, made from the same SandboxSpec as
// bubblewrap's arguments. Everything is denied but what seatbelt-base.ts allows; reads are allowed but in the hidden
// folders (the visible paths in them allowed again) and the masked files; writes are denied but in the writable
// folders, and there the protected paths and, at any depth, the protected names (`sub/.git`, `docs/AGENTS.md`) are
// denied again — by an anchored regular expression, which the kernel checks on every path, so no scan is needed.
// SBPL's last matching rule wins, so each deny follows the allow it narrows. The ideas (string and regex escaping,
// deny regexes with a `(/|$)` tail, the directory metadata rule, the base profile) come from
// @anthropic-ai/sandbox-runtime's macos-sandbox-utils.js (Apache-2.0); its macOS side is a manager with proxies, so
// this generator is written here instead of depending on it.
// With the network, unix sockets are reached only in the writable folders (and mDNSResponder's, for names).
// What SBPL cannot do: put other bytes at a path (bubblewrap's pinned programs) — a pinned path is made unwritable
// instead, so the command cannot rewrite it; the check of its content before the start stays pi's.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import type { SandboxSpec } from "./os-sandbox.ts";
import { isInside, real } from "./paths.ts";
import { networkRules, SEATBELT_BASE, unixSocketRules } from "./seatbelt-base.ts";

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

export type SeatbeltStatus = { kind: "seatbelt"; path: string } | { kind: "none"; reason: string };

/** Protected names (lower case): wherever they are (`.git`), and inside a folder of a name (`.vscode/tasks.json`). */
export interface SeatbeltNames {
	single: ReadonlySet<string>;
	inFolder: ReadonlyMap<string, ReadonlySet<string>>;
}

/** A spec, with the protected names to deny at any depth in its writable folders. */
export type SeatbeltSpec = SandboxSpec & { protectedNames?: SeatbeltNames };

export interface SeatbeltFacts {
	/** The path as the kernel matches it (links resolved: `/tmp/x` is `/private/tmp/x`). */
	canonical(path: string): string;
}

/** sandbox-exec refuses a string literal over 1025 bytes ("Error reading string"). */
const MAX_STRING_BYTES = 1000;
/** Where package managers keep their trees: a package's own `.github` or `CLAUDE.md` is no one's instructions. */
const PACKAGE_TREE = "node_modules";

/** The profile for `spec`: one SBPL text, for `sandbox-exec -p`. Throws on a path no profile can hold. */
export function seatbeltProfile(spec: SeatbeltSpec, facts: SeatbeltFacts = defaultFacts): string {
	const at = (path: string) => facts.canonical(path);
	const writable = spec.writable.map(at);
	const hidden = (spec.hidden ?? []).map(at);
	const masked = (spec.masked ?? []).map(({ dir, keep }) => ({ dir: at(dir), keep: keep.map(at) }));
	const pinned = (spec.pinned ?? []).map(({ path }) => at(path));
	const lines = [
		...SEATBELT_BASE,
		...networkRules(spec.network),
		...unixSocketRules(spec.network, writable.map(string)),
	];
	lines.push("(allow file-read*)");
	if (hidden.length) {
		lines.push(
			rule(
				"deny file-read*",
				hidden.flatMap((dir) => [subpath(dir), ...caselessPath(dir)]),
			),
		);
		// What bubblewrap binds back into a hidden folder is readable again.
		const shown = [...(spec.visible ?? []), ...spec.readOnly].map(at);
		shown.push(...writable, ...pinned, ...masked.map(({ dir }) => dir));
		const inHidden = shown.filter((path) => hidden.some((dir) => isInside(path, dir)));
		lines.push(rule("allow file-read*", unique(inHidden).map(subpath)));
		// stat(2) of folders, so realpath(3) can walk through a hidden one to a visible path (no listing, no content).
		lines.push("(allow file-read-metadata (vnode-type DIRECTORY))");
	}
	for (const { dir, keep } of masked)
		lines.push(
			rule("deny file-read*", [`(require-all ${regex(`^${foldable(dir)}/`)} ${keep.map(notUnder).join(" ")})`]),
		);
	lines.push(rule("allow file-write*", writable.map(subpath)));
	lines.push(rule("deny file-write*", writeDenies(spec, writable, masked, pinned, at)));
	return lines.filter(Boolean).join("\n");
}

/** Inside the writable folders: the protected paths, the folders above them, the protected names, pinned and masked. */
function writeDenies(
	spec: SeatbeltSpec,
	writable: string[],
	masked: { dir: string; keep: string[] }[],
	pinned: string[],
	at: (path: string) => string,
): string[] {
	const denies: string[] = [];
	const fixed = [...spec.readOnly, ...(spec.placeholders ?? [])].map(at);
	for (const path of fixed) {
		const root = writable.find((dir) => isInside(path, dir) && path !== dir);
		denies.push(root ? caselessBelow(root, path) : subpath(path));
		// Renaming or removing a folder above one would take it along.
		if (root) for (const dir of between(root, path)) denies.push(`(literal ${string(dir)})`);
	}
	denies.push(...pinned.map((path) => `(literal ${string(path)})`), ...masked.map(({ dir }) => subpath(dir)));
	const namesIn = spec.namesIn ? spec.namesIn.map(at) : writable;
	if (spec.protectedNames && namesIn.length) denies.push(...nameDenies(spec.protectedNames, namesIn));
	return unique(denies);
}

/**
 * The protected names at any depth below each writable folder (not the folder's own name, nor in a package tree),
 * without case. For a name inside a folder (`.vscode/tasks.json`), the folder itself too: a folder renamed to
 * `.vscode` would bring its `tasks.json` along, so a `.vscode` is neither made, renamed nor removed.
 */
export function nameDenies(names: SeatbeltNames, writable: readonly string[]): string[] {
	const tails = [...names.single].map((name) => `${caseless(name)}(/|$)`);
	for (const [folder, inside] of names.inFolder) {
		tails.push(`${caseless(folder)}$`);
		for (const name of inside) tails.push(`${caseless(folder)}/${caseless(name)}(/|$)`);
	}
	return writable.flatMap((root) => {
		const base = `^${root === "/" ? "" : literal(root)}/`;
		const packages = regex(`${base}(.*/)?${PACKAGE_TREE}/`);
		const named = tails.map((tail) => regex(`${base}(.*/)?${tail}`));
		return named.length ? [`(require-all (require-not ${packages}) (require-any ${named.join(" ")}))`] : [];
	});
}

/** `command args…` under sandbox-exec with `spec`'s profile. */
export function sandboxedSeatbelt(
	status: { path: string },
	spec: SeatbeltSpec,
	command: string,
	args: string[],
): { command: string; args: string[] } {
	return { command: status.path, args: ["-p", seatbeltProfile(spec), "--", command, ...args] };
}

export interface SeatbeltProbe {
	platform?: NodeJS.Platform;
	exists?(path: string): boolean;
	/** Runs `file args…` with an IPC channel; ok when it exited with 0 after sending a message. */
	trial?(file: string, args: string[]): Promise<{ ok: boolean; detail: string }>;
	/** sandbox-exec's path (tests put a stand-in there). */
	sandboxExec?: string;
	execPath?: string;
	home?: string;
	tempDir?: string;
}

/** What Node sends over its IPC channel in the trial: the runner host talks to pi over one. */
const TRIAL_CODE = "process.send('ready', () => process.exit(0))";

/**
 * Whether sandbox-exec can confine Node here: it is there, and Node runs under a profile with every kind of rule in
 * it (hidden home, writable, protected and masked paths, names; once without the network and once with it). A profile
 * it refuses leaves "no OS sandbox", not every tool broken.
 */
export async function detectSeatbelt(probe: SeatbeltProbe = {}): Promise<SeatbeltStatus> {
	const platform = probe.platform ?? process.platform;
	if (platform !== "darwin")
		return { kind: "none", reason: `sandbox-exec (Seatbelt) is macOS only; this is ${platform}` };
	const path = probe.sandboxExec ?? SANDBOX_EXEC;
	if (!(probe.exists ?? existsSync)(path)) return { kind: "none", reason: `${path} is not there` };
	const execPath = probe.execPath ?? process.execPath;
	const spec = trialSpec(execPath, probe.home ?? homedir(), probe.tempDir ?? tmpdir());
	const trial = probe.trial ?? runTrial;
	const results = await Promise.all(
		[false, true].map((network) =>
			trial(path, ["-p", seatbeltProfile({ ...spec, network }), "--", execPath, "-e", TRIAL_CODE]),
		),
	);
	const failed = results.find((result) => !result.ok);
	if (failed) return { kind: "none", reason: `sandbox-exec refused the profile: ${failed.detail}` };
	return { kind: "seatbelt", path };
}

/** A spec like a granted command's: the temp dir writable, the home hidden but for Node's installation. */
export function trialSpec(execPath: string, home: string, tempDir: string): SeatbeltSpec {
	const nodeRoot = dirname(dirname(execPath));
	return {
		writable: [tempDir],
		readOnly: [join(tempDir, ".pi")],
		network: false,
		hidden: [home],
		visible: isInside(nodeRoot, home) ? [nodeRoot] : [],
		pinned: [{ path: join(tempDir, "program"), fd: 3 }],
		placeholders: [join(tempDir, "AGENTS.md")],
		masked: [{ dir: join(tempDir, "masked"), keep: [join(tempDir, "masked", "kept")] }],
		protectedNames: {
			single: new Set([".git", "agents.md"]),
			inFolder: new Map([[".vscode", new Set(["tasks.json"])]]),
		},
	};
}

function runTrial(file: string, args: string[]): Promise<{ ok: boolean; detail: string }> {
	return new Promise((resolve) => {
		let said = false;
		let stderr = "";
		// From "/": pi's folder may be in the hidden home, which the trial's profile does not show again.
		const child = spawn(file, args, { cwd: "/", stdio: ["ignore", "ignore", "pipe", "ipc"], timeout: 10_000 });
		child.stderr!.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		child.on("message", () => {
			said = true;
		});
		child.on("error", (error) => resolve({ ok: false, detail: error.message }));
		child.on("close", (code, signal) => {
			const line = stderr.trim().split("\n")[0];
			if (code !== 0) resolve({ ok: false, detail: line || `exit ${signal ?? code}` });
			else resolve(said ? { ok: true, detail: "" } : { ok: false, detail: "Node ran but its IPC channel did not" });
		});
	});
}

/** The kernel's path: links resolved (`/var/…` is `/private/var/…`), for a path not there yet its nearest parent's. */
const defaultFacts: SeatbeltFacts = { canonical: real };

/** One rule for the filters; nothing for none (a rule with no filter would match every path). */
function rule(action: string, filters: string[]): string {
	return filters.length ? `(${action}\n${filters.map((filter) => `  ${filter}`).join("\n")})` : "";
}

/** An SBPL string: JSON's escaping of quotes and backslashes is SBPL's. */
export function string(text: string): string {
	if (/[\u0000-\u001f\u007f]/.test(text))
		throw new Error(
			`a path with a control character cannot be put in a macOS sandbox profile: ${JSON.stringify(text)}`,
		);
	const quoted = JSON.stringify(text);
	if (bytes(quoted) > MAX_STRING_BYTES)
		throw new Error(`a path too long for a macOS sandbox profile (over ${MAX_STRING_BYTES} bytes): ${text}`);
	return quoted;
}

/** A regular expression matching `text` as it is (`a[b]*.c` is those six characters). */
export function literal(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `literal`, with each ASCII letter either case (APFS and HFS+ do not tell `.GIT` from `.git` by default). */
export function caseless(text: string): string {
	return [...text]
		.map((char) => (/[a-z]/i.test(char) ? `[${char.toLowerCase()}${char.toUpperCase()}]` : literal(char)))
		.join("");
}

const subpath = (path: string) => `(subpath ${string(path)})`;
const regex = (pattern: string) => `(regex ${string(pattern)})`;
const notUnder = (path: string) => `(require-not ${subpath(path)})`;

/** `path` and what is below it in either case (a deny beside its `subpath`), where the pattern is not too long. */
function caselessPath(path: string): string[] {
	const pattern = `^${caseless(path)}(/|$)`;
	return bytes(JSON.stringify(pattern)) > MAX_STRING_BYTES ? [] : [regex(pattern)];
}

/** `path` as a pattern for a deny: in either case where that is not too long, as it is otherwise. */
function foldable(path: string): string {
	const folded = caseless(path);
	return bytes(JSON.stringify(folded)) > MAX_STRING_BYTES / 2 ? literal(path) : folded;
}

/** `path` below `root` and what is below it: the root as it is, the rest in either case (a deny). */
function caselessBelow(root: string, path: string): string {
	const rest = relative(root, path).split(sep).map(caseless).join("/");
	return regex(`^${root === "/" ? "" : literal(root)}/${rest}(/|$)`);
}

/** The folders strictly between `root` and `path`. */
function between(root: string, path: string): string[] {
	const dirs: string[] = [];
	for (let dir = dirname(path); dir !== root && isInside(dir, root); dir = dirname(dir)) dirs.push(dir);
	return dirs;
}

function bytes(text: string): number {
	return new TextEncoder().encode(text).length;
}

function unique<T>(items: T[]): T[] {
	return [...new Set(items)];
}
