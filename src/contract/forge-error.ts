// The one error type of Agent Forge, and the Result union the core returns instead of throwing.

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

	/** Plain data for the registry and health files. */
	toData(): ForgeErrorData {
		return { phase: this.phase, message: this.message, location: this.details.location, hint: this.details.hint };
	}

	static fromData(data: ForgeErrorData, details: ForgeErrorDetails = {}): ForgeError {
		return new ForgeError(data.phase, data.message, { location: data.location, hint: data.hint, ...details });
	}
}

export interface ForgeErrorData {
	phase: ForgePhase;
	message: string;
	location?: SourceLocation;
	hint?: string;
}

export type Result<T, E = ForgeError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const fail = (error: ForgeError): { ok: false; error: ForgeError } => ({ ok: false, error });

export function isForgeError(value: unknown): value is ForgeError {
	return value instanceof ForgeError;
}
