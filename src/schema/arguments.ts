// Argument validation for forged tools: one compiled Ajv validator per tool version, cached.
import type { ValidateFunction } from "ajv";
import { ForgeError, type Result, fail, ok } from "../errors/forge-error.ts";
import { compileSchema } from "./ajv.ts";
import { fieldPath } from "./field-path.ts";
import type { JsonSchema } from "./parameters-schema.ts";

const validators = new Map<string, { hash: string; validate: ValidateFunction }>();

function validatorFor(tool: string, hash: string, schema: JsonSchema): ValidateFunction | Error {
	const cached = validators.get(tool);
	if (cached?.hash === hash) return cached.validate;
	let validate: ValidateFunction;
	try {
		validate = compileSchema(schema);
	} catch (error) {
		return error as Error;
	}
	validators.set(tool, { hash, validate });
	return validate;
}

/** Validates (and, like pi, coerces) `args`; the error names each bad field and carries the schema. */
export function validateArguments(tool: string, hash: string, schema: JsonSchema, args: unknown): Result<Record<string, unknown>> {
	const given = args === undefined || args === null ? {} : args;
	if (typeof given !== "object" || Array.isArray(given)) {
		return fail(
			new ForgeError("arguments", `args must be an object of named parameters, got ${Array.isArray(given) ? "an array" : typeof given}.`, {
				tool,
				args,
				schema,
				hint: `Call it as use_forge_tool({"name":"${tool}","args":{…}}) with the parameters named in the schema.`,
			}),
		);
	}
	const copy = structuredClone(given) as Record<string, unknown>;
	const validate = validatorFor(tool, hash, schema);
	if (validate instanceof Error) {
		return fail(new ForgeError("schema", `The parameters schema of '${tool}' does not compile: ${validate.message}`, { tool, schema, hint: `Re-forge '${tool}' with a valid parametersSchema.` }));
	}
	if (validate(copy)) return ok(copy);

	const notes = (validate.errors ?? []).map((e) => {
		const pointer = e.keyword === "required" ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}` : e.instancePath;
		const extra = e.keyword === "additionalProperties" ? ` ('${(e.params as { additionalProperty: string }).additionalProperty}')` : "";
		return `${fieldPath("params", pointer)}: ${e.message}${extra}`;
	});
	return fail(
		new ForgeError("arguments", `Invalid arguments for '${tool}':`, {
			tool,
			notes,
			args,
			schema,
			hint: "Fix the arguments to match the parameters schema below and call again; the tool itself was not run.",
		}),
	);
}

/** Forget a tool's validator (after a re-forge or removal). */
export function forgetValidator(tool: string): void {
	validators.delete(tool);
}
