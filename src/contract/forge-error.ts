// The one error type of Agent Forge, its plain-data shape for every boundary (toData / fromData), and the Result
// union the core returns instead of throwing.

/** What failed. The model reads this first, so the names match the contract's phases. */
export type ForgePhase =
	| "name"
	| "description"
	| "schema"
	| "syntax"
	| "import"
	| "load"
	| "shape"
	| "tests"
	| "arguments"
	| "not-found"
	| "broken"
	| "runtime"
	| "timeout"
	| "memory"
	| "secrets"
	| "aborted"
	| "permission"
	| "store"
	/** Agent Forge's own runner could not run the tool: nothing the tool's code can fix. */
	| "runner";

/** Where in a forged file something went wrong: lines of `forge-<name>.ts` on disk, 1-based. */
export interface SourceLocation {
	file: string;
	line: number;
	column: number;
}

export interface ForgeErrorDetails {
	/** The headline's title when the phase's own would mislead (e.g. a schema-phase error that is the logic's slip). */
	title?: string;
	tool?: string;
	location?: SourceLocation;
	/** The whole source of `forge-<name>.ts`, so the model can repair it. */
	source?: string;
	/** One line telling the model how to repair. */
	hint?: string;
	/** Stack frames already mapped to lines of the forged file. */
	stack?: string[];
	args?: unknown;
	schema?: unknown;
	/** Extra facts worth showing (e.g. every validation issue). */
	notes?: string[];
	/**
	 * What a runtime error came from: the tool's logic (the default), its arguments (a path or address that came in
	 * with them) or a refused permission. Only a fault of the logic is worth showing the whole source for.
	 */
	origin?: ErrorOrigin;
	/** What the call printed to the console before it failed (bounded). */
	console?: string;
	/** The commands that grant what the call was refused, shown exactly (capabilities are not paths to shorten). */
	grants?: string[];
	/** Node's error code (ENOENT…) of an error a tool may test for, e.g. a file operation pi's process relayed. */
	code?: string;
}

export type ErrorOrigin = "logic" | "input" | "permission";

export class ForgeError extends Error {
	readonly phase: ForgePhase;
	readonly details: ForgeErrorDetails;

	constructor(phase: ForgePhase, message: string, details: ForgeErrorDetails = {}, options?: { cause?: unknown }) {
		super(message, options);
		this.name = "ForgeError";
		this.phase = phase;
		this.details = details;
	}

	/** A copy with more details (e.g. the source, once the caller knows it). */
	with(details: ForgeErrorDetails): ForgeError {
		return new ForgeError(this.phase, this.message, { ...this.details, ...details }, { cause: this.cause });
	}
}

/**
 * A ForgeError as plain data: the one shape that crosses every boundary (the runner's threads and processes, the
 * broker's replies, the registry and health files).
 */
export interface ForgeErrorData {
	phase: ForgePhase;
	message: string;
	location?: SourceLocation;
	hint?: string;
	/** Stack frames already mapped to lines of the forged file. */
	stack?: string[];
	notes?: string[];
	/** Node's error code (ENOENT…) for errors a tool may test for. */
	code?: string;
	/** Whether the logic, an argument or a refused permission caused it (see ForgeErrorDetails). */
	origin?: ErrorOrigin;
	/** What the call printed to the console before it failed (bounded). */
	console?: string;
}

/** The details that travel as data; the rest (tool, source, args, schema, grants, title) the receiving side knows. */
const DATA_DETAILS = ["location", "hint", "stack", "notes", "code", "origin", "console"] as const;

/** The error as plain data: phase, message and every data detail that is set (undefined ones are left out). */
export function toData(error: ForgeError): ForgeErrorData {
	const data: ForgeErrorData = { phase: error.phase, message: error.message };
	for (const key of DATA_DETAILS) {
		const value = error.details[key];
		if (value !== undefined) (data as unknown as Record<string, unknown>)[key] = value;
	}
	return data;
}

/** The error back from plain data; `details` (what the receiving side knows, e.g. the tool and its source) win. */
export function fromData(data: ForgeErrorData, details: ForgeErrorDetails = {}): ForgeError {
	const { phase, message, ...carried } = data;
	return new ForgeError(phase, message, { ...carried, ...details });
}

/**
 * What the registry and health files keep of an error: phase, message, location and hint. Stack, notes and console
 * output stay out: they may hold what a tool printed or threw, secrets included.
 */
export function storedData(data: ForgeErrorData): ForgeErrorData {
	const stored: ForgeErrorData = { phase: data.phase, message: data.message };
	if (data.location !== undefined) stored.location = data.location;
	if (data.hint !== undefined) stored.hint = data.hint;
	return stored;
}

export type Result<T, E = ForgeError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const fail = (error: ForgeError): { ok: false; error: ForgeError } => ({ ok: false, error });

export function isForgeError(value: unknown): value is ForgeError {
	return value instanceof ForgeError;
}
