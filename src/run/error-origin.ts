// Reads a forged tool's failure: the chain of causes under the thrown error (`fetch failed` → `ECONNREFUSED`), and
// where the fault lies: in the arguments (a path or an address that came in with them), in a refused permission, or
// in the logic. Only the logic is worth repairing; the others need another argument or a grant.
import { resolve, sep } from "node:path";
import type { ErrorOrigin } from "../contract/forge-error.ts";
import { NOT_PUBLIC } from "./isolated/parent/net-target.ts";

const MAX_CAUSES = 4;
/** Of an AggregateError (several addresses tried), the errors shown. */
const MAX_AGGREGATED = 3;

export interface Diagnosis {
	origin: ErrorOrigin;
	/** What to change, when the origin says more than "fix the logic". */
	hint?: string;
}

/** What the call was given: its arguments, and the folder relative paths in them are taken from. */
export interface CallInput {
	params: unknown;
	cwd: string;
}

type Described = Error & {
	code?: unknown;
	path?: unknown;
	dest?: unknown;
	hostname?: unknown;
	address?: unknown;
	port?: unknown;
	errors?: unknown;
	data?: { hint?: unknown };
};

/** `Caused by: Error: connect ECONNREFUSED 127.0.0.1:9`, outermost first; an AggregateError's errors each on a line. */
export function causeLines(error: unknown): string[] {
	const lines: string[] = [];
	const seen = new Set<unknown>([error]);
	let current = read(() => (error as Described)?.cause);
	for (let depth = 0; depth < MAX_CAUSES && current !== undefined && current !== null && !seen.has(current); depth++) {
		seen.add(current);
		lines.push(`Caused by: ${describe(current)}`);
		const errors = read(() => (current as Described).errors);
		if (Array.isArray(errors)) {
			errors.slice(0, MAX_AGGREGATED).forEach((inner, i) => {
				lines.push(`  (${i + 1} of ${errors.length}) ${describe(inner)}`);
			});
		}
		current = read(() => (current as Described).cause);
	}
	return lines;
}

/** `Name: message [CODE]`, the code only when the message does not already say it. */
export function describe(value: unknown): string {
	if (!(value instanceof Error)) return read(() => String(value)) ?? "(an unreadable value)";
	const code = read(() => (value as Described).code);
	const head = value.message ? `${value.name}: ${value.message}` : value.name;
	return typeof code === "string" && !head.includes(code) ? `${head} [${code}]` : head;
}

/** Where the fault of a failed call lies, and what to change when it is not the logic. */
export function diagnose(error: unknown, input?: CallInput): Diagnosis {
	const chain = errorChain(error);
	const refused = chain.find(
		(e) => e.code === "ERR_FORGE_PERMISSION" || e.code === "ERR_ACCESS_DENIED" || e.name === "PermissionError",
	);
	if (refused) {
		const hint = chain.map((e) => read(() => e.data?.hint)).find((h): h is string => typeof h === "string");
		return {
			origin: "permission",
			hint:
				hint ??
				"This access was refused by the forge's policy, not by a fault of the logic: the tool needs a grant for it (see `/forge grants`), or another path inside the project.",
		};
	}
	// A granted host name that resolved to a private address: refused by the forge, whatever the logic does.
	if (chain.some((e) => e.code === NOT_PUBLIC))
		return {
			origin: "permission",
			hint: "The forge refused this request: the host name resolved to a private address, which a grant of a name never reaches. If the tool is meant to reach that address, fetch it by its address (so its grant can be asked for) or have the user grant net:<address>[:port]; the logic need not change.",
		};
	const args = input ? stringArguments(input.params) : [];
	for (const e of chain) {
		const code = typeof e.code === "string" ? e.code : undefined;
		if (!code) continue;
		const fsProblem = FS_PROBLEMS[code];
		if (fsProblem && input) {
			const arg = args.find((a) => errorPaths(e).some((path) => samePath(path, a.value, input.cwd)));
			if (arg) {
				const relative = !arg.value.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(arg.value);
				return {
					origin: "input",
					hint: `The error comes from the arguments, not the logic: ${arg.field} (${JSON.stringify(arg.value)}) ${fsProblem.what} (${code}). Call the tool again with a ${arg.field} that ${fsProblem.want}${relative ? " (a relative path is taken from the project folder)" : ""}; the tool need not change.`,
				};
			}
		}
		const netProblem = NET_PROBLEMS[code];
		if (netProblem) {
			const target = networkTarget(e);
			const arg = target && args.find((a) => pointsAt(a.value, target));
			const where = target ? `${target.host}${target.port !== undefined ? `:${target.port}` : ""}` : "the address";
			if (arg) {
				return {
					origin: "input",
					hint: `The error comes from the arguments, not the logic: ${arg.field} (${JSON.stringify(arg.value)}) points at ${where}, where ${netProblem} (${code}). Check the address and that the server runs, then call the tool again; the tool need not change.`,
				};
			}
			return {
				origin: "logic",
				hint: `The connection failed: at ${where} ${netProblem} (${code}). If that address in the logic is right, the server is down or unreachable from here; otherwise correct it and call forge_tool again.`,
			};
		}
	}
	return { origin: "logic" };
}

const FS_PROBLEMS: Record<string, { what: string; want: string }> = {
	ENOENT: { what: "names a file or folder that does not exist", want: "exists" },
	ENOTDIR: { what: "goes through a file as if it were a folder", want: "names a real path" },
	EISDIR: { what: "names a folder where a file is expected", want: "names a file" },
	EEXIST: { what: "names something that already exists", want: "is not taken yet" },
	ENOTEMPTY: { what: "names a folder that is not empty", want: "names an empty folder" },
	EACCES: { what: "names a file whose own permissions forbid this", want: "the tool may open" },
	EPERM: { what: "names a file whose own permissions forbid this", want: "the tool may open" },
	ELOOP: { what: "names a path with a loop of symbolic links", want: "names a real path" },
	ENAMETOOLONG: { what: "is too long to be a path", want: "is a real path" },
};

const NET_PROBLEMS: Record<string, string> = {
	ECONNREFUSED: "nothing accepts connections",
	ENOTFOUND: "the host name does not resolve",
	EAI_AGAIN: "the host name could not be resolved (temporarily)",
	ETIMEDOUT: "nothing answered in time",
	UND_ERR_CONNECT_TIMEOUT: "nothing answered in time",
	ECONNRESET: "the connection was reset",
	EHOSTUNREACH: "the host cannot be reached",
	ENETUNREACH: "the network cannot be reached",
};

/** The error and its causes, AggregateErrors' members included, as far as they can be read. */
function errorChain(error: unknown): Described[] {
	const chain: Described[] = [];
	const queue: unknown[] = [error];
	while (queue.length > 0 && chain.length < MAX_CAUSES * (MAX_AGGREGATED + 1)) {
		const next = queue.shift();
		if (!(next instanceof Error) || chain.includes(next as Described)) continue;
		chain.push(next as Described);
		const cause = read(() => (next as Described).cause);
		if (cause !== undefined) queue.push(cause);
		const errors = read(() => (next as Described).errors);
		if (Array.isArray(errors)) queue.push(...errors.slice(0, MAX_AGGREGATED));
	}
	return chain;
}

/** The paths an fs error names: its fields, else the quoted ones in its message (`open '/a/b'`). */
function errorPaths(error: Described): string[] {
	const fields = [read(() => error.path), read(() => error.dest)].filter((p): p is string => typeof p === "string");
	if (fields.length > 0) return fields;
	return [...String(read(() => error.message) ?? "").matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

function samePath(errorPath: string, value: string, cwd: string): boolean {
	if (!value.trim()) return false;
	const trimmed = value.replace(/^\.\//, "");
	return errorPath === value || errorPath === resolve(cwd, value) || errorPath.endsWith(`${sep}${trimmed}`);
}

function networkTarget(error: Described): { host: string; port?: string } | undefined {
	const host = [read(() => error.hostname), read(() => error.address)].find((h): h is string => typeof h === "string");
	const port = read(() => error.port);
	return host
		? { host, port: typeof port === "number" || typeof port === "string" ? String(port) : undefined }
		: undefined;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** An argument names the target: as a URL (host and port), or as the host itself. */
function pointsAt(value: string, target: { host: string; port?: string }): boolean {
	if (value === target.host) return true;
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		return target.port !== undefined && value.includes(`${target.host}:${target.port}`);
	}
	const host = url.hostname.replace(/^\[|\]$/g, "");
	const sameHost = host === target.host || (LOOPBACK.has(host) && LOOPBACK.has(target.host));
	const port = url.port || ({ "http:": "80", "https:": "443" } as Record<string, string>)[url.protocol];
	return sameHost && (target.port === undefined || port === target.port);
}

/** Every string among the arguments, with where it sits (`params.files[1]`); bounded in depth and number. */
function stringArguments(params: unknown): Array<{ field: string; value: string }> {
	const found: Array<{ field: string; value: string }> = [];
	const walk = (value: unknown, field: string, depth: number) => {
		if (found.length >= 200) return;
		if (typeof value === "string") found.push({ field, value });
		else if (depth < 4 && Array.isArray(value))
			value.forEach((item, i) => {
				walk(item, `${field}[${i}]`, depth + 1);
			});
		else if (depth < 4 && value && typeof value === "object") {
			for (const [key, item] of Object.entries(value))
				walk(
					item,
					/^[A-Za-z_$][\w$]*$/.test(key) ? `${field}.${key}` : `${field}[${JSON.stringify(key)}]`,
					depth + 1,
				);
		}
	};
	walk(params, "params", 0);
	return found;
}

/** A property that throws when read (a hostile thrown value) reads as undefined. */
function read<T>(get: () => T): T | undefined {
	try {
		return get();
	} catch {
		return undefined;
	}
}
