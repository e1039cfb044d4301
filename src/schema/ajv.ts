// One configured Ajv instance (coercion matches pi's own argument handling) and a bounded cache of compiled schemas.
import { Ajv, type ValidateFunction } from "ajv";

let instance: Ajv | undefined;

export function sharedAjv(): Ajv {
	instance ??= new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true, validateSchema: true });
	return instance;
}

/** Compiled validators by schema text. Ajv caches by object identity, which would grow by one copy per forge. */
const compiled = new Map<string, { schema: object; validate: ValidateFunction }>();
export const COMPILED_SCHEMA_LIMIT = 500;

export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
	const key = JSON.stringify(schema);
	const hit = compiled.get(key);
	if (hit) {
		compiled.delete(key);
		compiled.set(key, hit);
		return hit.validate;
	}
	const ajv = sharedAjv();
	const validate = ajv.compile(schema);
	compiled.set(key, { schema, validate });
	if (compiled.size > COMPILED_SCHEMA_LIMIT) {
		const [oldestKey, oldest] = compiled.entries().next().value as [string, { schema: object }];
		compiled.delete(oldestKey);
		ajv.removeSchema(oldest.schema);
	}
	return validate;
}
