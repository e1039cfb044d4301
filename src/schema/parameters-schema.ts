// The forge's schema check (order: toolbox/forge-pipeline.ts): the parameters schema must be a valid JSON Schema of an
// object (checked by compiling it with Ajv).

import { closestName } from "../contract/did-you-mean.ts";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { compileSchema, forAjv, sharedAjv } from "./ajv.ts";
import { fieldPath } from "./field-path.ts";

export type JsonSchema = Record<string, unknown>;

const HINT_OBJECT =
	'parametersSchema must be a JSON Schema object such as {"type":"object","properties":{"text":{"type":"string","description":"…"}},"required":["text"]}.';

/** Accepts the schema as an object (or as JSON text, which models sometimes send) and returns plain JSON. */
export function validateParametersSchema(input: unknown): Result<JsonSchema> {
	let schema = input;
	if (typeof schema === "string") {
		try {
			schema = JSON.parse(schema);
		} catch (error) {
			return fail(
				new ForgeError(
					"schema",
					`parametersSchema is a string that is not valid JSON: ${(error as Error).message}`,
					{ hint: HINT_OBJECT },
				),
			);
		}
	}
	if (schema === undefined || schema === null) {
		return fail(new ForgeError("schema", "parametersSchema is missing.", { hint: HINT_OBJECT }));
	}
	if (typeof schema !== "object" || Array.isArray(schema)) {
		return fail(
			new ForgeError(
				"schema",
				`parametersSchema must be an object, got ${Array.isArray(schema) ? "an array" : typeof schema}.`,
				{ hint: HINT_OBJECT },
			),
		);
	}
	let plain: JsonSchema;
	try {
		plain = JSON.parse(JSON.stringify(schema)) as JsonSchema;
	} catch (error) {
		return fail(
			new ForgeError("schema", `parametersSchema is not JSON-serialisable: ${(error as Error).message}`, {
				hint: HINT_OBJECT,
			}),
		);
	}
	if (plain.type !== "object") {
		const got = plain.type === undefined ? "no type" : `type ${JSON.stringify(plain.type)}`;
		return fail(
			new ForgeError("schema", `parametersSchema must describe an object (type "object"); it has ${got}.`, {
				hint: HINT_OBJECT,
				schema: plain,
			}),
		);
	}
	if (
		plain.properties !== undefined &&
		(typeof plain.properties !== "object" || plain.properties === null || Array.isArray(plain.properties))
	) {
		return fail(
			new ForgeError(
				"schema",
				"parametersSchema.properties must be an object mapping each parameter name to its schema.",
				{ hint: HINT_OBJECT, schema: plain },
			),
		);
	}

	const pollution = findPrototypeKey(plain);
	if (pollution) {
		return fail(
			new ForgeError(
				"schema",
				`parametersSchema has the key '${pollution}', which is not allowed (it would change the prototype of the metadata object).`,
				{ hint: HINT_OBJECT, schema: plain },
			),
		);
	}

	const ajv = sharedAjv();
	let valid: boolean;
	try {
		valid = ajv.validateSchema(forAjv(plain)) as boolean;
	} catch (error) {
		return fail(
			new ForgeError("schema", `parametersSchema cannot be checked: ${(error as Error).message}`, {
				hint: HINT_OBJECT,
				schema: plain,
			}),
		);
	}
	if (!valid) {
		const notes = (ajv.errors ?? []).map(
			(e) =>
				`${fieldPath("parametersSchema", e.instancePath)}: ${e.message}${e.params && "allowedValues" in e.params ? ` (${(e.params.allowedValues as unknown[]).join(", ")})` : ""}`,
		);
		return fail(
			new ForgeError("schema", "parametersSchema is not a valid JSON Schema:", {
				notes,
				hint: HINT_OBJECT,
				schema: plain,
			}),
		);
	}
	const undeclared = undeclaredRequired(plain);
	if (undeclared.length) return fail(requiredError(undeclared, plain));
	try {
		compileSchema(plain);
	} catch (error) {
		return fail(
			new ForgeError("schema", `parametersSchema does not compile: ${(error as Error).message}`, {
				hint: HINT_OBJECT,
				schema: plain,
			}),
		);
	}
	return ok(plain);
}

/** `__proto__` as a key would set the prototype of the object literal it is rendered into, not a property. */
function findPrototypeKey(value: unknown): string | undefined {
	if (typeof value !== "object" || value === null) return undefined;
	for (const key of Object.keys(value)) {
		if (key === "__proto__") return key;
		const nested = findPrototypeKey((value as Record<string, unknown>)[key]);
		if (nested) return nested;
	}
	return undefined;
}

interface UndeclaredRequired {
	/** Where the object schema is, e.g. `parametersSchema` or `parametersSchema.properties.options`. */
	at: string;
	name: string;
	declared: string[];
}

const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SUBSCHEMA_MAPS = ["properties", "$defs", "definitions"];

/**
 * Names in `required` that `properties` does not declare: at the top level always, below it wherever an object schema
 * has `properties` (a bare `required` in an anyOf branch is a legitimate pattern). With a `patternProperties`, every
 * name counts as declared: telling which names its patterns cover would run a model's regular expressions in pi's
 * main thread.
 */
export function undeclaredRequired(schema: JsonSchema, at = "parametersSchema", top = true): UndeclaredRequired[] {
	const found: UndeclaredRequired[] = [];
	const properties = isObject(schema.properties) ? schema.properties : undefined;
	if (Array.isArray(schema.required) && (top || properties)) {
		const declared = Object.keys(properties ?? {});
		const patterned = isObject(schema.patternProperties) && Object.keys(schema.patternProperties).length > 0;
		for (const name of schema.required) {
			if (typeof name === "string" && !declared.includes(name) && !patterned) found.push({ at, name, declared });
		}
	}
	for (const key of SUBSCHEMA_MAPS) {
		const map = schema[key];
		if (isObject(map))
			for (const [name, sub] of Object.entries(map))
				if (isObject(sub)) found.push(...undeclaredRequired(sub, `${at}.${key}.${name}`, false));
	}
	for (const key of SUBSCHEMA_LISTS) {
		const list = schema[key];
		if (Array.isArray(list))
			list.forEach((sub, i) => {
				if (isObject(sub)) found.push(...undeclaredRequired(sub, `${at}.${key}[${i}]`, false));
			});
	}
	for (const key of ["items", "additionalProperties"]) {
		const sub = schema[key];
		if (isObject(sub)) found.push(...undeclaredRequired(sub, `${at}.${key}`, false));
	}
	return found;
}

function requiredError(undeclared: UndeclaredRequired[], schema: JsonSchema): ForgeError {
	const [first, ...rest] = undeclared;
	const suggestion = first.declared.length ? closestName(first.name, first.declared) : undefined;
	return new ForgeError(
		"schema",
		`${first.at}.required names '${first.name}', but ${first.at}.properties does not declare it (it declares: ${first.declared.join(", ") || "nothing"}).`,
		{
			notes: rest.map((r) => `${r.at}.required names '${r.name}', which is not declared either`),
			hint: suggestion
				? `Did you mean '${suggestion}'? Every name in required must be a key of properties: write '${suggestion}' in required, or declare '${first.name}' in properties.`
				: `Every name in required must be a key of properties: declare '${first.name}' in properties (with its type and description), or remove it from required.`,
			schema,
		},
	);
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
