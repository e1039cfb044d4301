// The forge speaks up at the right moment: when the agent runs the same kind of shell command for the third time in a
// session, a forged tool would likely serve it better. "The same kind" is the same program and, for programs made of
// sub-commands (git, npm, docker…), the same sub-command; for others, the same options (the values may differ:
// `grep -rn TODO src` and `grep -rn FIXME lib` are one pattern). Pure: the caller feeds commands and says what to append.

/** Programs whose first word after the program names what they do. */
const SUB_COMMAND_PROGRAMS = new Set([
	"git",
	"npm",
	"pnpm",
	"yarn",
	"bun",
	"npx",
	"docker",
	"kubectl",
	"cargo",
	"go",
	"pip",
	"uv",
	"gh",
	"make",
	"terraform",
	"helm",
	"systemctl",
	"apt",
	"brew",
]);
/** Words in front of the program that do not change what runs. */
const PREFIXES = new Set(["sudo", "env", "time", "nice", "nohup", "command", "exec"]);
/** Commands too basic to be worth a tool of their own. */
const TRIVIAL = new Set(["cd", "pwd", "echo", "true", "false", "clear", "exit", "export", "set", "source", "."]);

export const SUGGEST_AFTER = 3;

/** The pattern of a shell command line, or undefined when there is nothing worth counting. */
export function commandPattern(commandLine: string): string | undefined {
	// The first command of a pipeline or list is what the line is about (`cd x && npm test` is about npm).
	const segments = commandLine
		.split(/&&|\|\||;|\|/)
		.map((segment) => segment.trim())
		.filter(Boolean);
	for (const segment of segments) {
		const words = segment.split(/\s+/).filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
		while (words.length && PREFIXES.has(words[0])) words.shift();
		const program = words[0]?.split("/").pop();
		if (!program || TRIVIAL.has(program)) continue;
		const rest = words.slice(1);
		if (SUB_COMMAND_PROGRAMS.has(program)) {
			const sub = rest.find((word) => !word.startsWith("-"));
			return sub ? `${program} ${sub}` : program;
		}
		const options = [
			...new Set(rest.filter((word) => word.startsWith("-")).map((word) => word.split("=")[0])),
		].sort();
		return [program, ...options].join(" ");
	}
	return undefined;
}

/** Counts patterns over one session; says once per pattern when it reached the threshold. */
export class ShellPatterns {
	private readonly counts = new Map<string, number>();
	private readonly spoken = new Set<string>();

	/** The pattern to speak up about now (exactly once, at the third run), else undefined. */
	record(commandLine: string): string | undefined {
		const pattern = commandPattern(commandLine);
		if (!pattern) return undefined;
		const count = (this.counts.get(pattern) ?? 0) + 1;
		this.counts.set(pattern, count);
		if (count < SUGGEST_AFTER || this.spoken.has(pattern)) return undefined;
		this.spoken.add(pattern);
		return pattern;
	}

	reset(): void {
		this.counts.clear();
		this.spoken.clear();
	}
}

/** The one line appended to the result: a forged tool that exists and fits, or the suggestion to forge one. */
export function suggestionLine(pattern: string, existing: string | undefined): string {
	return existing
		? `[Agent Forge] This is the third \`${pattern} …\` command in this session: the forged tool '${existing}' may do it in one call (use_forge_tool, or list_forge {"name":"${existing}"} to read it).`
		: `[Agent Forge] This is the third \`${pattern} …\` command in this session: if you will need it again, forge_tool can make it a checked, reusable tool.`;
}
