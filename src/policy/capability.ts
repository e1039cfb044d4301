// What a forged tool may ask pi's process for: the capabilities, their grant keys, and the safe environment.
import { sha256Hex } from "../contract/hash.ts";
import type { Capability, EnvChange } from "../run/isolated/parent/capability.ts";
import { sanitizeForDisplay } from "./terminal-text.ts";

export type { Capability, CapabilityKind, EnvChange } from "../run/isolated/parent/capability.ts";

/** The prefix of a grant key for each kind that carries a path. */
export const PATH_KEY_PREFIX = { "fs-read": "read:", "fs-write": "write:" } as const;

/**
 * The key a grant is remembered under: "read:/etc/hosts", "write:/x/y", "exec:/usr/bin/git" (that program with any
 * arguments), "shell:git status | head" (exactly that command line), "env:OPENAI_API_KEY", "inline". A program a tool
 * can write has its content in the key (" content#<sha256>", also for the files a shell line names), so a rewritten
 * one asks again. A command run with a changed environment has its own key: " env:NAME,OTHER#<digest of the values>"
 * follows, so other values ask again.
 */
export function capabilityKey(c: Capability): string {
	switch (c.kind) {
		case "fs-read":
			return `read:${c.path}`;
		case "fs-write":
			return `write:${c.path}`;
		case "exec":
			return `${c.shell ? `shell:${c.commandLine}` : `exec:${c.program}`}${c.content ? ` content#${c.content}` : ""}${envSuffix(c.env)}`;
		case "env":
			return `env:${c.name}`;
		case "net":
			return `net:${c.host}`;
		case "inline":
			return "inline";
	}
}

/**
 * The key of a capability that holds a secret (a shell line with a token in it), as it is remembered and printed:
 * "sha256:<hex of the key>", so the secret is neither kept in the grants file nor shown, and the grant still matches.
 */
export function digestKey(key: string): string {
	return `sha256:${sha256Hex(key)}`;
}

/** For a person, after "The tool wants to …": "read /etc/hosts", "run `git status`"; inert in a terminal. */
export function describeCapability(c: Capability): string {
	switch (c.kind) {
		case "fs-read":
			return `read ${sanitizeForDisplay(c.path)}`;
		case "fs-write":
			return `write ${sanitizeForDisplay(c.path)}`;
		case "exec":
			return `run \`${oneLine(c.commandLine) || sanitizeForDisplay(c.program)}\``;
		case "env":
			return `see the environment variable ${sanitizeForDisplay(c.name)}`;
		case "net":
			return `connect to ${sanitizeForDisplay(c.host)}`;
		case "inline":
			return "run inside pi's process with the full extension API";
	}
}

const MAX_COMMAND_SHOWN = 200;

/** A command line fit for one line of a message: newlines folded, control characters made visible, long ones cut. */
function oneLine(commandLine: string): string {
	const flat = sanitizeForDisplay(commandLine.replace(/\s*[\r\n]+\s*/g, " ").trim());
	return flat.length > MAX_COMMAND_SHOWN ? `${flat.slice(0, MAX_COMMAND_SHOWN - 1)}…` : flat;
}

/** " env:A,B#1f2e3d4c5b6a" for a changed environment: the names readable, the values (maybe secrets) only as a digest. */
function envSuffix(env: readonly EnvChange[] | undefined): string {
	if (!env?.length) return "";
	const sorted = [...env].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	const digest = sha256Hex(JSON.stringify(sorted.map((e) => [e.name, e.value]))).slice(0, 12);
	return ` env:${sorted.map((e) => e.name).join(",")}#${digest}`;
}

/** Environment variables any tool may see: they locate things and shape output, and hold no secrets. */
export const SAFE_ENV: ReadonlySet<string> = new Set([
	"PATH",
	"HOME",
	"USER",
	"LOGNAME",
	"SHELL",
	"LANG",
	"LANGUAGE",
	"LC_ALL",
	"LC_CTYPE",
	"TERM",
	"TZ",
	"TMPDIR",
	"TEMP",
	"TMP",
	"PWD",
	"NODE_ENV",
	"CI",
	"COLUMNS",
	"LINES",
	"NO_COLOR",
	"FORCE_COLOR",
]);

/** Only the SAFE_ENV entries of `env` that have a value. */
export function safeEnvironment(env: Record<string, string | undefined>): Record<string, string> {
	const safe: Record<string, string> = {};
	for (const name of SAFE_ENV) {
		const value = env[name];
		if (typeof value === "string") safe[name] = value;
	}
	return safe;
}
