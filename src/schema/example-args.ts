// Example arguments for a forged tool's usage line: the call shape its schema asks for, with values that honour the
// schema's own examples, defaults, enums, bounds and lengths, nested objects and arrays included. Pure.
import type { JsonSchema } from "./parameters-schema.ts";

const MAX_DEPTH = 6;
/** Without `required`, this many properties show the shape. */
const SHOWN_WITHOUT_REQUIRED = 3;
const PLACEHOLDER = "…";

const FORMATS: Record<string, string> = {
	"date-time": "2024-01-31T12:00:00Z",
	date: "2024-01-31",
	time: "12:00:00",
	email: "user@example.com",
	uri: "https://example.com",
	url: "https://example.com",
	"uri-reference": "https://example.com",
	hostname: "example.com",
	ipv4: "127.0.0.1",
	ipv6: "::1",
	uuid: "123e4567-e89b-42d3-a456-426614174000",
};

/**
 * Arguments for a call: the required properties (or the first few, when nothing is required), each with a fitting
 * value.
 */
export function exampleArgs(schema: JsonSchema): Record<string, unknown> {
	const value = exampleObject(schema, schema, 0);
	return typeof value === "object" && value !== null && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: {};
}

/** A value the schema accepts, as far as a placeholder can tell (a `pattern` is not solved). */
export function exampleValue(schema: unknown, root: JsonSchema, depth = 0): unknown {
	if (!isObject(schema) || depth > MAX_DEPTH) return PLACEHOLDER;
	const resolved = resolveRef(schema, root);
	if (resolved !== schema) return exampleValue(resolved, root, depth + 1);
	if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
	if ("const" in schema) return schema.const;
	if (schema.default !== undefined) return schema.default;
	if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
	const branches = (
		Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
	)?.filter(isObject);
	if (branches?.length) {
		const { anyOf: _a, oneOf: _o, ...rest } = schema;
		const branch = branches.find((b) => b.type !== "null") ?? branches[0];
		return exampleValue({ ...rest, ...branch }, root, depth + 1);
	}
	if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
		const { allOf, ...rest } = schema;
		return exampleValue(
			allOf.filter(isObject).reduce<Record<string, unknown>>((merged, part) => mergeSchemas(merged, part), rest),
			root,
			depth + 1,
		);
	}
	switch (typeOf(schema)) {
		case "string":
			return exampleString(schema);
		case "integer":
			return exampleNumber(schema, true);
		case "number":
			return exampleNumber(schema, false);
		case "boolean":
			return false;
		case "null":
			return null;
		case "array":
			return exampleArray(schema, root, depth);
		case "object":
			return exampleObject(schema, root, depth);
		default:
			return PLACEHOLDER;
	}
}

function exampleObject(schema: Record<string, unknown>, root: JsonSchema, depth: number): Record<string, unknown> {
	const properties = isObject(schema.properties) ? schema.properties : {};
	const keys = Array.isArray(schema.required)
		? schema.required.filter((k): k is string => typeof k === "string")
		: Object.keys(properties).slice(0, SHOWN_WITHOUT_REQUIRED);
	const example: Record<string, unknown> = {};
	for (const key of keys) example[key] = exampleValue(properties[key] ?? {}, root, depth + 1);
	return example;
}

function exampleArray(schema: Record<string, unknown>, root: JsonSchema, depth: number): unknown[] {
	const tuple = Array.isArray(schema.prefixItems)
		? schema.prefixItems
		: Array.isArray(schema.items)
			? schema.items
			: undefined;
	if (tuple) return tuple.map((item) => exampleValue(item, root, depth + 1));
	const maxItems = typeof schema.maxItems === "number" ? schema.maxItems : Number.POSITIVE_INFINITY;
	const minItems = typeof schema.minItems === "number" ? schema.minItems : 0;
	if (!isObject(schema.items)) return Array.from({ length: Math.min(minItems, maxItems) }, () => PLACEHOLDER);
	const count = Math.min(Math.max(minItems, 1), maxItems);
	const items = schema.items;
	// Distinct items where they must be: successive enum values, or numbered placeholders.
	if (schema.uniqueItems === true && count > 1) {
		if (Array.isArray(items.enum)) return items.enum.slice(0, count);
		return Array.from({ length: count }, (_, i) =>
			typeOf(items) === "string"
				? `${PLACEHOLDER}${i + 1}`
				: typeOf(items) === "integer" || typeOf(items) === "number"
					? i
					: exampleValue(items, root, depth + 1),
		);
	}
	return Array.from({ length: count }, () => exampleValue(items, root, depth + 1));
}

function exampleString(schema: Record<string, unknown>): string {
	let text = (typeof schema.format === "string" && FORMATS[schema.format]) || PLACEHOLDER;
	const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
	const maxLength = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
	if ([...text].length < minLength) text = text.padEnd(text.length + minLength - [...text].length, PLACEHOLDER);
	if ([...text].length > maxLength) text = [...text].slice(0, maxLength).join("");
	return text;
}

function exampleNumber(schema: Record<string, unknown>, integer: boolean): number {
	const num = (key: string) => (typeof schema[key] === "number" ? (schema[key] as number) : undefined);
	const step = integer ? 1 : 0.5;
	const exclusiveMin = num("exclusiveMinimum");
	const exclusiveMax = num("exclusiveMaximum");
	const low =
		num("minimum") ??
		(exclusiveMin !== undefined ? (integer ? Math.floor(exclusiveMin) + 1 : exclusiveMin + step) : undefined);
	const high =
		num("maximum") ??
		(exclusiveMax !== undefined ? (integer ? Math.ceil(exclusiveMax) - 1 : exclusiveMax - step) : undefined);
	let value = 0;
	if (low !== undefined && value < low) value = integer ? Math.ceil(low) : low;
	if (high !== undefined && value > high) value = integer ? Math.floor(high) : high;
	const multipleOf = num("multipleOf");
	if (multipleOf && multipleOf > 0 && value % multipleOf !== 0) {
		const up = Math.ceil(value / multipleOf) * multipleOf;
		value = high === undefined || up <= high ? up : Math.floor(value / multipleOf) * multipleOf;
	}
	return value;
}

/** The schema's type; an array of types gives its first non-null one; without a type, what its keywords imply. */
function typeOf(schema: Record<string, unknown>): string | undefined {
	const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== "null") ?? schema.type[0]) : schema.type;
	if (typeof type === "string") return type;
	if (isObject(schema.properties) || Array.isArray(schema.required)) return "object";
	if (schema.items !== undefined || schema.prefixItems !== undefined) return "array";
	if (
		["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some(
			(k) => typeof schema[k] === "number",
		)
	)
		return "number";
	if (["minLength", "maxLength", "pattern", "format"].some((k) => schema[k] !== undefined)) return "string";
	return undefined;
}

function mergeSchemas(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
	const merged = { ...a, ...b };
	if (isObject(a.properties) && isObject(b.properties)) merged.properties = { ...a.properties, ...b.properties };
	if (Array.isArray(a.required) && Array.isArray(b.required))
		merged.required = [...new Set([...a.required, ...b.required])];
	return merged;
}

/**
 * A local `$ref` (`#/$defs/x`, `#/definitions/x`, `#`) resolved within the root schema; anything else is left as is.
 */
function resolveRef(schema: Record<string, unknown>, root: JsonSchema): Record<string, unknown> {
	if (typeof schema.$ref !== "string" || !schema.$ref.startsWith("#")) return schema;
	let target: unknown = root;
	for (const part of schema.$ref.slice(1).split("/").filter(Boolean)) {
		target = isObject(target) ? target[decodeURIComponent(part.replace(/~1/g, "/").replace(/~0/g, "~"))] : undefined;
	}
	return isObject(target) ? target : schema;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
