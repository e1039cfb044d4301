// One configured Ajv instance (coercion matches pi's own argument handling) and a bounded cache of compiled schemas.
import { Ajv, type ValidateFunction } from "ajv";

let instance: Ajv | undefined;

export function sharedAjv(): Ajv {
	instance ??= new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true, validateSchema: true });
	return instance;
}

/**
 * What Ajv sees of a parameters schema: without `$id` (Ajv would refuse a second schema under the same id, so a
 * re-forge could never change it) and `$schema` (forged schemas are read as draft-07 whatever they declare).
 */
export function forAjv(schema: Record<string, unknown>): Record<string, unknown> {
	const { $id: _id, $schema: _schema, ...rest } = schema;
	return rest;
}

/** Compiled validators by schema text. Ajv caches by object identity, which would grow by one copy per forge. */
const compiled = new Map<string, { schema: object; validate: ValidateFunction }>();
export const COMPILED_SCHEMA_LIMIT = 500;

/** Compiles (or reuses) a validator; throws Ajv's error for a schema that does not compile. */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
	const plain = forAjv(schema);
	const key = JSON.stringify(plain);
	const hit = compiled.get(key);
	if (hit) {
		compiled.delete(key);
		compiled.set(key, hit);
		return hit.validate;
	}
	const ajv = sharedAjv();
	const validate = ajv.compile(plain);
	compiled.set(key, { schema: plain, validate });
	if (compiled.size > COMPILED_SCHEMA_LIMIT) {
		const [oldestKey, oldest] = compiled.entries().next().value as [string, { schema: object }];
		compiled.delete(oldestKey);
		ajv.removeSchema(oldest.schema);
	}
	return validate;
}
