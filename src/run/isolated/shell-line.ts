// A shell line read the way sh reads its words (quotes and escapes joined, operators apart), enough to tell which
// words name what runs (a command, the script an interpreter is given, a file read as input) and whether the line
// decides that only when it runs: an expansion (`$PWD`, `$(…)`, `` `…` ``), a change of folder (`cd`), `eval`, a
// pattern the shell expands (`*.sh`, `~`), or an interpreter fed its code by a pipe or xargs (`cat x.sh | sh`). Such a
// line cannot be bound to the content of the files it runs. Pure.
import { basename } from "node:path";

export type WordRole = "command" | "script" | "input" | "argument";

export interface ShellWord {
	/** The word as the shell passes it on (quotes removed, escapes resolved). */
	text: string;
	role: WordRole;
	/** Holds what the shell expands into other words (unquoted `*`, `?`, `[`, braces, a leading `~`). */
	pattern: boolean;
}

export interface ShellLine {
	words: ShellWord[];
	/** Why what the line runs cannot be told from its text; undefined when it can. */
	unbound?: string;
}

/** Programs that run the file named after their options: `sh build.sh`, `node tools/x.js`, `. ./env.sh`. */
export const INTERPRETERS: ReadonlySet<string> = new Set([
	"sh",
	"bash",
	"dash",
	"zsh",
	"ksh",
	"node",
	"python",
	"python3",
	"perl",
	"ruby",
	"php",
	"tsx",
	"source",
	".",
]);
const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh"]);
/** Options that give an interpreter its code inline (no script file follows). */
const INLINE_CODE: ReadonlySet<string> = new Set(["-c", "-e", "-E", "-p", "-m", "-r", "--eval", "--print"]);
/** Words in front of a command that run it: the next word is a command too. */
const PREFIXES: ReadonlySet<string> = new Set([
	"sudo",
	"env",
	"time",
	"nice",
	"nohup",
	"command",
	"exec",
	"builtin",
	"timeout",
	"xargs",
	"stdbuf",
]);
/** find's options that run a command on each file found. */
const FIND_EXEC: ReadonlySet<string> = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
/** Reserved words after which a command follows. */
const KEYWORDS: ReadonlySet<string> = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"]);
/** Operators after which a command follows. */
const SEPARATORS: ReadonlySet<string> = new Set([";", "&", "&&", "||", "|", "(", ")", ";;", "|&"]);
const TWO_CHAR_OPS: ReadonlySet<string> = new Set(["&&", "||", ";;", ">>", "<<", "<&", ">&", "<>", ">|", "&>", "|&"]);
/** How deep `sh -c '<line>'` is read into. */
const MAX_DEPTH = 3;

export const UNBOUND = {
	quoting: "its quoting could not be read",
	expansion: "it expands a variable or a command's output ($…, `…`), which decides what runs only when it runs",
	folder: (word: string) => `it changes folder (${word}), so the files it names are looked up elsewhere when it runs`,
	eval: "it builds a command with eval",
	pattern: (word: string) => `it names what runs by a pattern the shell expands (${word})`,
	tooDeep: "it nests shells in shells too deep to read",
	piped: (name: string) => `it gives ${name} its code through a pipe or xargs, not from a file the line names`,
	missing: (word: string) => `it runs ${word}, which is not a file there now`,
} as const;

type Token = { op: string } | { word: string; pattern: boolean };

/** The words of `line` with their roles, and why it is not bound to files, if it is not. */
export function readShellLine(line: string, depth = 0): ShellLine {
	const read = tokenize(line);
	if (!read.tokens) return { words: [], unbound: read.unbound };
	const words: ShellWord[] = [];
	let unbound = read.unbound;
	let expect: "command" | "prefixed" | "argument" = "command";
	let interpreter: { name: string; inline: boolean; done: boolean } | undefined;
	let nextIsLine = false;
	let nextRole: WordRole | undefined;
	/** The command's input comes from a pipe, or its arguments from xargs; `readsFile`: it has a `<` of its own. */
	let fed = false;
	let readsFile = false;
	let command = "";
	// An interpreter given no script and no inline code runs what it reads: from a pipe or xargs, that is not in the line.
	const endCommand = () => {
		if (interpreter && !interpreter.done && fed && !readsFile) unbound ??= UNBOUND.piped(interpreter.name);
	};
	for (const token of read.tokens) {
		if ("op" in token) {
			if (SEPARATORS.has(token.op)) {
				endCommand();
				expect = "command";
				interpreter = undefined;
				fed = token.op === "|" || token.op === "|&";
				readsFile = false;
			}
			if (token.op === "<" || token.op === "<>") readsFile = true;
			// A redirection's word is a file: one read in is run by the command (`sh < build.sh`), one written is not.
			nextRole = token.op === "<" || token.op === "<>" ? "input" : SEPARATORS.has(token.op) ? undefined : "argument";
			continue;
		}
		const { word, pattern } = token;
		let role: WordRole = "argument";
		if (nextRole) {
			role = nextRole;
			nextRole = undefined;
		} else if (expect !== "argument") {
			if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || KEYWORDS.has(word)) {
				words.push({ text: word, role: "argument", pattern });
				continue;
			}
			if (expect === "prefixed" && (word.startsWith("-") || /^\d+(\.\d+)?[smhd]?$/.test(word))) {
				words.push({ text: word, role: "argument", pattern });
				continue;
			}
			role = "command";
			const name = basename(word);
			command = name;
			if (name === "cd" || name === "pushd" || name === "popd") unbound ??= UNBOUND.folder(name);
			if (name === "eval") unbound ??= UNBOUND.eval;
			if (name === "xargs") fed = true;
			expect = PREFIXES.has(name) ? "prefixed" : "argument";
			interpreter = INTERPRETERS.has(name) ? { name, inline: false, done: false } : undefined;
		} else if (command === "find" && FIND_EXEC.has(word)) {
			// `find … -exec sh {} \;`: a command follows, given the files found.
			expect = "command";
			fed = true;
		} else if (nextIsLine) {
			nextIsLine = false;
			const nested = depth < MAX_DEPTH ? readShellLine(word, depth + 1) : { words: [], unbound: UNBOUND.tooDeep };
			words.push({ text: word, role: "argument", pattern: false }, ...nested.words);
			unbound ??= nested.unbound;
			continue;
		} else if (interpreter && !interpreter.done) {
			if (word.startsWith("-")) {
				const inline = INLINE_CODE.has(word) || (SHELLS.has(interpreter.name) && /^-[a-z]*c[a-z]*$/.test(word));
				if (inline) {
					interpreter.inline = true;
					interpreter.done = true;
					nextIsLine = SHELLS.has(interpreter.name);
				}
			} else {
				role = "script";
				interpreter.done = true;
			}
		}
		// A command without a slash is looked up on PATH whatever a pattern makes of it; a script or input is a path.
		const path = role === "script" || role === "input" || (role === "command" && /^~|\//.test(word));
		if (pattern && path) unbound ??= UNBOUND.pattern(word);
		words.push({ text: word, role, pattern });
	}
	endCommand();
	return { words, unbound };
}

/** The line's tokens; none when its quoting cannot be read. `unbound`: an expansion was seen. */
function tokenize(line: string): { tokens?: Token[]; unbound?: string } {
	const tokens: Token[] = [];
	let word = "";
	let inWord = false;
	let pattern = false;
	let unbound: string | undefined;
	const end = () => {
		if (inWord) tokens.push({ word, pattern });
		word = "";
		inWord = false;
		pattern = false;
	};
	for (let i = 0; i < line.length; i++) {
		const c = line[i]!;
		if (c === " " || c === "\t") end();
		else if (c === "\n") {
			end();
			tokens.push({ op: ";" });
		} else if (c === "#" && !inWord) {
			const newline = line.indexOf("\n", i);
			if (newline < 0) break;
			i = newline - 1;
		} else if (c === "\\") {
			if (i + 1 >= line.length) return { unbound: UNBOUND.quoting };
			if (line[i + 1] !== "\n") word += line[i + 1];
			inWord = line[i + 1] !== "\n" || inWord;
			i++;
		} else if (c === "'") {
			const close = line.indexOf("'", i + 1);
			if (close < 0) return { unbound: UNBOUND.quoting };
			word += line.slice(i + 1, close);
			inWord = true;
			i = close;
		} else if (c === '"') {
			const quoted = doubleQuoted(line, i + 1);
			if (!quoted) return { unbound: UNBOUND.quoting };
			if (quoted.expands) unbound ??= UNBOUND.expansion;
			word += quoted.text;
			inWord = true;
			i = quoted.end;
		} else if (c === "`" || (c === "$" && /[A-Za-z_{(0-9@*#?$!'"-]/.test(line[i + 1] ?? ""))) {
			unbound ??= UNBOUND.expansion;
			word += c;
			inWord = true;
		} else if (";&|()<>".includes(c)) {
			end();
			const two = line.slice(i, i + 2);
			if (TWO_CHAR_OPS.has(two)) i++;
			tokens.push({ op: TWO_CHAR_OPS.has(two) ? two : c });
		} else {
			if ("*?[{".includes(c) || (c === "~" && !inWord)) pattern = true;
			word += c;
			inWord = true;
		}
	}
	end();
	return { tokens, unbound };
}

/** A double-quoted part from `start` (after the quote) to its closing quote; undefined when it never closes. */
function doubleQuoted(line: string, start: number): { text: string; end: number; expands: boolean } | undefined {
	let text = "";
	let expands = false;
	for (let i = start; i < line.length; i++) {
		const c = line[i]!;
		if (c === '"') return { text, end: i, expands };
		if (c === "\\" && i + 1 < line.length && '$`"\\\n'.includes(line[i + 1]!)) {
			if (line[i + 1] !== "\n") text += line[i + 1];
			i++;
			continue;
		}
		if (c === "`" || (c === "$" && /[A-Za-z_{(0-9@*#?$!-]/.test(line[i + 1] ?? ""))) expands = true;
		text += c;
	}
	return undefined;
}
