// Argument validation for forged tools: one compiled Ajv validator per tool version, kept by the validators object
// its owner (the toolbox) creates and tells to forget a tool. A schema with a regular expression or a `$ref` in it is
// validated off pi's main thread, within a bound (see bounded-validator.ts).
import type { ErrorObject, ValidateFunction } from "ajv";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { compileSchema, forAjv as forAjvSchema } from "./ajv.ts";
import type { BoundedValidator } from "./bounded-validator.ts";
import { fieldPath } from "./field-path.ts";
import type { JsonSchema } from "./parameters-schema.ts";

/** The compiled validators of a toolbox's tools, one per tool (recompiled when its hash changes). */
export class ArgumentValidators {
	private readonly validators = new Map<string, { hash: string; validate: ValidateFunction }>();

	/** Validates (and, like pi, coerces) `args`; the error names each bad field and carries the schema. */
	validate(tool: string, hash: string, schema: JsonSchema, args: unknown): Result<Record<string, unknown>> {
		const given = args === undefined || args === null ? {} : args;
		if (typeof given !== "object" || Array.isArray(given)) {
			return fail(
				new ForgeError(
					"arguments",
					`args must be an object of named parameters, got ${Array.isArray(given) ? "an array" : typeof given}.`,
					{
						tool,
						args,
						schema,
						hint: `Call it as use_forge_tool({"name":"${tool}","args":{…}}) with the parameters named in the schema.`,
					},
				),
			);
		}
		const copy = structuredClone(given) as Record<string, unknown>;
		const validate = this.validatorFor(tool, hash, schema);
		if (validate instanceof Error) {
			return fail(
				new ForgeError("schema", `The parameters schema of '${tool}' does not compile: ${validate.message}`, {
					tool,
					schema,
					hint: `Re-forge '${tool}' with a valid parametersSchema.`,
				}),
			);
		}
		if (validate(copy)) return ok(copy);
		return fail(invalidArguments(tool, schema, args, validate.errors ?? []));
	}

	/**
	 * `validate`, with the validation of a schema that `needsBound` run by `checker` within `timeoutMs`: a pattern
	 * that backtracks for ever fails the call (phase arguments) instead of hanging pi.
	 */
	async validateWithin(
		tool: string,
		hash: string,
		schema: JsonSchema,
		args: unknown,
		checker: BoundedValidator,
		timeoutMs: number,
		signal?: AbortSignal,
	): Promise<Result<Record<string, unknown>>> {
		if (!needsBound(schema)) return this.validate(tool, hash, schema, args);
		return validateBounded(tool, hash, schema, args, checker, timeoutMs, this, signal);
	}

	/** Forget a tool's validator (after a re-forge or removal). */
	forget(tool: string): void {
		this.validators.delete(tool);
	}

	private validatorFor(tool: string, hash: string, schema: JsonSchema): ValidateFunction | Error {
		const cached = this.validators.get(tool);
		if (cached?.hash === hash) return cached.validate;
		let validate: ValidateFunction;
		try {
			validate = compileSchema(schema);
		} catch (error) {
			return error as Error;
		}
		this.validators.set(tool, { hash, validate });
		return validate;
	}
}

/** A new set of validators, owned by the caller. */
export function createArgumentValidators(): ArgumentValidators {
	return new ArgumentValidators();
}

/**
 * Keywords whose cost a model controls beyond the size of what it sends: regular expressions, references (which can
 * nest exponentially) and uniqueItems (quadratic).
 */
const UNBOUNDED_KEYWORDS = new Set([
	// Compares every pair of items (deep equality for objects): quadratic in the arguments' size.
	"uniqueItems",
	"pattern",
	"patternProperties",
	"propertyNames",
	"$ref",
	"$dynamicRef",
	"$recursiveRef",
]);

/**
 * Whether validating against `schema` could run a model's regular expression or unfold references (checked on keys,
 * iteratively).
 */
export function needsBound(schema: unknown): boolean {
	const stack: unknown[] = [schema];
	while (stack.length > 0) {
		const node = stack.pop();
		if (typeof node !== "object" || node === null) continue;
		if (Array.isArray(node)) {
			stack.push(...node);
			continue;
		}
		for (const [key, value] of Object.entries(node)) {
			if (UNBOUNDED_KEYWORDS.has(key)) return true;
			if (typeof value === "object" && value !== null) stack.push(value);
		}
	}
	return false;
}

/** `validateWithin` for a schema that needs the bound: `checker` validates, the verdict becomes a Result. */
async function validateBounded(
	tool: string,
	hash: string,
	schema: JsonSchema,
	args: unknown,
	checker: BoundedValidator,
	timeoutMs: number,
	validators: ArgumentValidators,
	signal?: AbortSignal,
): Promise<Result<Record<string, unknown>>> {
	const given = args === undefined || args === null ? {} : args;
	if (typeof given !== "object" || Array.isArray(given)) return validators.validate(tool, hash, schema, args);
	const verdict = await checker.validate(forAjvSchema(schema), structuredClone(given), timeoutMs, signal);
	if (verdict === "timeout") {
		return fail(
			new ForgeError(
				"arguments",
				`Checking the arguments of '${tool}' against its parameters schema took longer than ${timeoutMs} ms, so the tool was not run.`,
				{
					tool,
					schema,
					hint: `A pattern in the schema backtracks catastrophically (nested quantifiers such as (a+)+), or its $refs nest exponentially: re-forge '${tool}' with a simpler schema.`,
				},
			),
		);
	}
	if ("error" in verdict) {
		return fail(
			new ForgeError("schema", `The parameters schema of '${tool}' does not compile: ${verdict.error}`, {
				tool,
				schema,
				hint: `Re-forge '${tool}' with a valid parametersSchema.`,
			}),
		);
	}
	if (verdict.valid) return ok(verdict.data as Record<string, unknown>);
	return fail(invalidArguments(tool, schema, args, verdict.errors));
}

function invalidArguments(tool: string, schema: JsonSchema, args: unknown, errors: ErrorObject[]): ForgeError {
	const notes = errors.map((e) => {
		const pointer =
			e.keyword === "required"
				? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`
				: e.instancePath;
		const extra =
			e.keyword === "additionalProperties"
				? ` ('${(e.params as { additionalProperty: string }).additionalProperty}')`
				: "";
		return `${fieldPath("params", pointer)}: ${e.message}${extra}`;
	});
	return new ForgeError("arguments", `Invalid arguments for '${tool}':`, {
		tool,
		notes,
		args,
		schema,
		hint: "Fix the arguments to match the parameters schema below and call again; the tool itself was not run.",
	});
}
