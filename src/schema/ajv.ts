// One configured Ajv instance: JSON Schema for forged tools' parameters (coercion matches pi's own argument handling).
import { Ajv } from "ajv";

let instance: Ajv | undefined;

export function sharedAjv(): Ajv {
	instance ??= new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true, validateSchema: true });
	return instance;
}
