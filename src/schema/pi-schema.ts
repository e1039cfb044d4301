// The parameters schema pi itself checks a forged tool's arguments against when the model calls the tool by its own
// name. pi validates in its main thread, so pi's copy leaves out what a model can make take unbounded time there: a
// regular expression (`pattern`, `patternProperties`, `propertyNames`) and a reference (`$ref`, which can nest
// exponentially) and `uniqueItems` (every pair of items compared). A pattern stays in the description, for the model. The forge then checks the arguments against the
// full schema, off pi's main thread and within a bound (schema/arguments.ts), before the tool runs.

const MAX_DEPTH = 64;
const SCHEMA_MAPS = ["properties", "dependentSchemas"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_VALUES = [
	"items",
	"additionalProperties",
	"not",
	"if",
	"then",
	"else",
	"contains",
	"unevaluatedProperties",
	"unevaluatedItems",
	"additionalItems",
];
const DROPPED = new Set([
	"uniqueItems",
	"pattern",
	"patternProperties",
	"propertyNames",
	"$ref",
	"$dynamicRef",
	"$recursiveRef",
	"$defs",
	"definitions",
	"$anchor",
	"$dynamicAnchor",
	"$id",
]);

export function piSafeSchema(schema: Record<string, unknown>, depth = 0): Record<string, unknown> {
	if (depth > MAX_DEPTH) return {};
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(schema)) {
		if (DROPPED.has(key)) continue;
		if (SCHEMA_MAPS.includes(key) && isObject(value))
			out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, child(sub, depth)]));
		else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map((sub) => child(sub, depth));
		else if (SCHEMA_VALUES.includes(key) && (isObject(value) || Array.isArray(value)))
			out[key] = Array.isArray(value) ? value.map((sub) => child(sub, depth)) : child(value, depth);
		else out[key] = value;
	}
	// Without its patternProperties, `additionalProperties: false` would refuse the names they allowed.
	if (isObject(schema.patternProperties) && out.additionalProperties === false) delete out.additionalProperties;
	const notes = [
		...(typeof schema.pattern === "string" ? [`Must match the regular expression /${schema.pattern}/.`] : []),
		...(schema.uniqueItems === true ? ["Its items must all differ."] : []),
	];
	for (const note of notes)
		out.description = typeof out.description === "string" && out.description ? `${out.description} ${note}` : note;
	return out;
}

function child(value: unknown, depth: number): unknown {
	return isObject(value) ? piSafeSchema(value, depth + 1) : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
