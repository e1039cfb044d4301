// The command line's grammar: which commands exist, what each takes, and one pure parse of argv into what to do
// (help, the version, a usage error, or a command with its arguments checked).
import { parseArgs } from "node:util";
import { parseVersion } from "../ui/version.ts";

export type CommandName =
	| "list"
	| "show"
	| "history"
	| "diff"
	| "test"
	| "check"
	| "export"
	| "rollback"
	| "remove"
	| "import"
	| "promote"
	| "demote"
	| "grant"
	| "revoke"
	| "grants";
type Flag = "json" | "force";

export interface CommandSpec {
	/** Its arguments, as the usage shows them. */
	args: string;
	/** What it does, for the usage. */
	does: string;
	min: number;
	max: number;
	flags: readonly Flag[];
	/** Positions of arguments that are versions (N or vN). */
	versions?: readonly number[];
	/** Only reads the toolbox: writes nothing into the project. */
	readOnly: boolean;
	/** Changes the person's grants file (in the agent dir), nothing else. */
	grants?: boolean;
}

export const COMMANDS: Record<CommandName, CommandSpec> = {
	list: {
		args: "[query]",
		does: "the toolbox as a table (best matches first with a query)",
		min: 0,
		max: Number.POSITIVE_INFINITY,
		flags: ["json"],
		readOnly: true,
	},
	show: {
		args: "<tool>",
		does: "one tool: metadata, health, history and source",
		min: 1,
		max: 1,
		flags: [],
		readOnly: true,
	},
	history: { args: "<tool>", does: "every stored version of a tool", min: 1, max: 1, flags: [], readOnly: true },
	diff: {
		args: "<tool> [from] [to]",
		does: "what changed between two versions (default: previous → current)",
		min: 1,
		max: 3,
		flags: [],
		versions: [1, 2],
		readOnly: true,
	},
	test: {
		args: "<tool>",
		does: "run a tool's tests (a draft has none: exit 1)",
		min: 1,
		max: 1,
		flags: ["json"],
		readOnly: true,
	},
	check: {
		args: "[tools…]",
		does: "re-check tools as the forge would, tests included (for CI)",
		min: 0,
		max: Number.POSITIVE_INFINITY,
		flags: ["json"],
		readOnly: true,
	},
	export: {
		args: "<dir> [tools…]",
		does: "write the tools (default: every healthy one) as a pi package",
		min: 1,
		max: Number.POSITIVE_INFINITY,
		flags: [],
		readOnly: true,
	},
	rollback: {
		args: "<tool> <version>",
		does: "make an earlier version current again",
		min: 2,
		max: 2,
		flags: [],
		versions: [1],
		readOnly: false,
	},
	remove: { args: "<tool>", does: "remove a tool (its history is kept)", min: 1, max: 1, flags: [], readOnly: false },
	import: {
		args: "<dir> [tools…]",
		does: "bring tools from an exported package or another toolbox",
		min: 1,
		max: Number.POSITIVE_INFINITY,
		flags: ["force"],
		readOnly: false,
	},
	promote: {
		args: "<tool>",
		does: "move a tool with its history to the user toolbox (every project sees it)",
		min: 1,
		max: 1,
		flags: ["force"],
		readOnly: false,
	},
	demote: {
		args: "<tool>",
		does: "move a user-toolbox tool with its history into this project's toolbox",
		min: 1,
		max: 1,
		flags: ["force"],
		readOnly: false,
	},
	// Grants live in the agent dir, never in the project: these write nothing into it.
	grant: {
		args: "<tool> <capability>",
		does: "let a tool's current version have a capability (from its next call)",
		min: 2,
		max: Number.POSITIVE_INFINITY,
		flags: [],
		readOnly: true,
		grants: true,
	},
	revoke: {
		args: "<tool> [capability]",
		does: "forget one grant of a tool, or all of them",
		min: 1,
		max: Number.POSITIVE_INFINITY,
		flags: [],
		readOnly: true,
		grants: true,
	},
	grants: {
		args: "[tool]",
		does: "the capabilities remembered for this project's tools",
		min: 0,
		max: 1,
		flags: [],
		readOnly: true,
		grants: true,
	},
};

export type Invocation =
	| { kind: "help" }
	| { kind: "version" }
	| { kind: "usage-error"; message: string }
	| { kind: "run"; command: CommandName; args: string[]; json: boolean; force: boolean; cwd?: string };

const OPTIONS = {
	cwd: { type: "string" },
	json: { type: "boolean" },
	force: { type: "boolean" },
	help: { type: "boolean", short: "h" },
	version: { type: "boolean", short: "v" },
} as const;

const readArgs = (argv: string[]) => parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });

export function parseInvocation(argv: string[]): Invocation {
	let parsed: ReturnType<typeof readArgs>;
	try {
		parsed = readArgs(argv);
	} catch (error) {
		return usageError((error as Error).message);
	}
	const { values, positionals } = parsed;
	if (values.help) return { kind: "help" };
	if (values.version) return { kind: "version" };
	const [name, ...args] = positionals;
	if (name === undefined || name === "help") return { kind: "help" };
	if (!Object.hasOwn(COMMANDS, name))
		return usageError(`unknown command '${name}' (commands: ${Object.keys(COMMANDS).join(", ")}).`);
	const command = name as CommandName;
	const spec = COMMANDS[command];
	if (args.length < spec.min || args.length > spec.max) {
		return usageError(
			`${args.length < spec.min ? "missing arguments" : "too many arguments"}: agent-forge ${command} ${spec.args}`,
		);
	}
	for (const flag of ["json", "force"] as const) {
		if (values[flag] && !spec.flags.includes(flag)) {
			const takers = (Object.keys(COMMANDS) as CommandName[]).filter((c) => COMMANDS[c].flags.includes(flag));
			return usageError(`--${flag} applies to ${takers.join(", ")} only, not to ${command}.`);
		}
	}
	for (const position of spec.versions ?? []) {
		const given = args[position];
		if (given !== undefined && parseVersion(given) === undefined)
			return usageError(`'${given}' is not a version: give N or vN (e.g. v2).`);
	}
	if (values.cwd !== undefined && !values.cwd.trim()) return usageError("--cwd needs a folder.");
	return { kind: "run", command, args, json: values.json ?? false, force: values.force ?? false, cwd: values.cwd };
}

function usageError(message: string): Invocation {
	return { kind: "usage-error", message };
}
