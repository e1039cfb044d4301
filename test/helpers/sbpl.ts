// A reader and a small evaluator of SBPL (macOS sandbox profiles), for testing the profiles Agent Forge makes where no
// sandbox-exec is at hand: the text is read as s-expressions (balanced, strings in SBPL's escaping), and a question
// ("may file-write-create reach this path?") is answered as Seatbelt does: the last rule that matches decides.
// Regular expressions are compiled by JavaScript's RegExp, a proxy for Seatbelt's (the profiles use only what both
// read the same way: anchors, groups, `?`, `*`, `|`, bracket classes and backslash escapes).

export type Sexp = string | { string: string } | Sexp[];

/** The forms of `text`; throws on an unbalanced parenthesis or an unterminated string. */
export function readSbpl(text: string): Sexp[] {
	let i = 0;
	const forms: Sexp[] = [];
	const stack: Sexp[][] = [];
	while (i < text.length) {
		const char = text[i]!;
		if (/\s/.test(char)) i++;
		else if (char === ";") while (i < text.length && text[i] !== "\n") i++;
		else if (char === "(") {
			stack.push([]);
			i++;
		} else if (char === ")") {
			const done = stack.pop();
			if (!done) throw new Error(`unbalanced ) at ${i}`);
			(stack.at(-1) ?? forms).push(done);
			i++;
		} else if (char === '"') {
			let end = i + 1;
			while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
			if (end >= text.length) throw new Error(`unterminated string at ${i}`);
			(stack.at(-1) ?? forms).push({ string: JSON.parse(text.slice(i, end + 1)) as string });
			i = end + 1;
		} else {
			let end = i;
			while (end < text.length && !/[\s()";]/.test(text[end]!)) end++;
			(stack.at(-1) ?? forms).push(text.slice(i, end));
			i = end;
		}
	}
	if (stack.length) throw new Error("unbalanced (: the profile ends inside a form");
	return forms;
}

export interface Query {
	operation: string;
	path?: string;
	/** The vnode's type, for `vnode-type` filters (a regular file when not said). */
	type?: "file" | "directory" | "character-device";
}

/** "allow" or "deny" for `query`: the last matching rule's action (Seatbelt's order). */
export function decide(profile: string, query: Query): "allow" | "deny" {
	let decision: "allow" | "deny" = "deny";
	for (const form of readSbpl(profile)) {
		if (!Array.isArray(form) || (form[0] !== "allow" && form[0] !== "deny")) continue;
		const operations = form.slice(1).filter((part): part is string => typeof part === "string");
		const filters = form.slice(1).filter((part) => Array.isArray(part) && part[0] !== "with") as Sexp[][];
		if (!operations.some((operation) => covers(operation, query.operation))) continue;
		if (filters.length === 0 || filters.some((filter) => matches(filter, query))) decision = form[0];
	}
	return decision;
}

const VNODE_TYPES: Record<string, string> = {
	"REGULAR-FILE": "file",
	DIRECTORY: "directory",
	"CHARACTER-DEVICE": "character-device",
};

function covers(ruleOperation: string, operation: string): boolean {
	if (ruleOperation === "default") return true;
	if (ruleOperation.endsWith("*")) return operation.startsWith(ruleOperation.slice(0, -1));
	return ruleOperation === operation;
}

function argument(filter: Sexp[], index = 1): string {
	const value = filter[index];
	if (typeof value === "object" && value !== null && !Array.isArray(value)) return value.string;
	return String(value);
}

function matches(filter: Sexp[], query: Query): boolean {
	const path = query.path;
	switch (filter[0]) {
		case "subpath":
			return path !== undefined && (path === argument(filter) || path.startsWith(`${argument(filter)}/`));
		case "literal":
			return path === argument(filter);
		case "regex":
			return path !== undefined && new RegExp(argument(filter)).test(path);
		case "require-all":
			return (filter.slice(1) as Sexp[][]).every((inner) => matches(inner, query));
		case "require-any":
			return (filter.slice(1) as Sexp[][]).some((inner) => matches(inner, query));
		case "require-not":
			return !matches(filter[1] as Sexp[], query);
		case "vnode-type":
			return VNODE_TYPES[String(filter[1])] === (query.type ?? "file");
		default:
			return false;
	}
}

/** Every string literal in the profile. */
export function stringsOf(profile: string): string[] {
	const out: string[] = [];
	const walk = (form: Sexp) => {
		if (Array.isArray(form)) form.forEach(walk);
		else if (typeof form === "object") out.push(form.string);
	};
	readSbpl(profile).forEach(walk);
	return out;
}
