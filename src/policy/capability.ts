// What a forged tool may ask pi's process for: the capabilities, their grant keys, and the safe environment.

export type Capability =
	/** An absolute path, already resolved through symlinks (realpath) by the caller. */
	| { kind: "fs-read"; path: string }
	/** An absolute, resolved path; for a new file: the realpath of its parent dir + its basename. */
	| { kind: "fs-write"; path: string }
	/** `program` is the executable's basename, or "sh" for a shell command string. */
	| { kind: "exec"; program: string; commandLine: string }
	| { kind: "env"; name: string }
	/** Run in pi's own process with the real ExtensionAPI. */
	| { kind: "inline" };

export type CapabilityKind = Capability["kind"];

/** The prefix of a grant key for each kind that carries a path. */
export const PATH_KEY_PREFIX = { "fs-read": "read:", "fs-write": "write:" } as const;

/** The key a grant is remembered under: "read:/etc/hosts", "write:/x/y", "exec:git", "env:OPENAI_API_KEY", "inline". */
export function capabilityKey(c: Capability): string {
	switch (c.kind) {
		case "fs-read":
			return `read:${c.path}`;
		case "fs-write":
			return `write:${c.path}`;
		case "exec":
			return `exec:${c.program}`;
		case "env":
			return `env:${c.name}`;
		case "inline":
			return "inline";
	}
}

/** For a person, after "The tool wants to …": "read /etc/hosts", "run `git status`". */
export function describeCapability(c: Capability): string {
	switch (c.kind) {
		case "fs-read":
			return `read ${c.path}`;
		case "fs-write":
			return `write ${c.path}`;
		case "exec":
			return `run \`${oneLine(c.commandLine) || c.program}\``;
		case "env":
			return `see the environment variable ${c.name}`;
		case "inline":
			return "run inside pi's process with the full extension API";
	}
}

const MAX_COMMAND_SHOWN = 200;

/** A command line fit for one line of a dialog: newlines folded, long ones cut. */
function oneLine(commandLine: string): string {
	const flat = commandLine.replace(/\s*[\r\n]+\s*/g, " ").trim();
	return flat.length > MAX_COMMAND_SHOWN ? `${flat.slice(0, MAX_COMMAND_SHOWN - 1)}…` : flat;
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
