// What argument validation needs of a checker that runs a schema's validation off pi's main thread within a
// deadline (run/bounded-checker.ts provides one). Defined here so schema/ depends on no runner.
import type { ErrorObject } from "ajv";

export type ValidationVerdict =
	| { valid: true; data: unknown }
	| { valid: false; errors: ErrorObject[] }
	| "timeout"
	| { error: string };

export interface BoundedValidator {
	/**
	 * Validates (and coerces, as pi's own validation does) a copy of `data` against `schema`, within `timeoutMs`; not
	 * at all once `signal` (the call's) has aborted.
	 */
	validate(
		schema: Record<string, unknown>,
		data: unknown,
		timeoutMs: number,
		signal?: AbortSignal,
	): Promise<ValidationVerdict>;
}
