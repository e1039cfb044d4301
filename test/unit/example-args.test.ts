// The usage example in forge_tool's result: arguments that the tool's own schema accepts.
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { exampleArgs } from "../../src/schema/example-args.ts";

// Strict about values (no coercion, no defaults filled in): the example itself must be valid.
const ajv = new Ajv({ strict: false, validateFormats: false });
const valid = (schema: Record<string, unknown>, value: unknown) => {
	const validate = ajv.compile(schema);
	const ok = validate(value);
	return ok ? "valid" : JSON.stringify(validate.errors);
};
const object = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({
	type: "object",
	properties,
	required,
});

const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
	["a string placeholder", object({ text: { type: "string" } }), { text: "…" }],
	["minimum", object({ count: { type: "integer", minimum: 1 } }), { count: 1 }],
	["maximum below zero", object({ offset: { type: "number", maximum: -5 } }), { offset: -5 }],
	["an exclusive minimum", object({ ratio: { type: "number", exclusiveMinimum: 0, maximum: 1 } }), { ratio: 0.5 }],
	[
		"an integer exclusive minimum",
		object({ port: { type: "integer", exclusiveMinimum: 1023, maximum: 65535 } }),
		{ port: 1024 },
	],
	["multipleOf", object({ step: { type: "integer", minimum: 1, multipleOf: 5 } }), { step: 5 }],
	["enum", object({ unit: { type: "string", enum: ["km", "mi"] } }), { unit: "km" }],
	["const", object({ kind: { const: "point" } }), { kind: "point" }],
	["default", object({ limit: { type: "integer", minimum: 1, default: 10 } }), { limit: 10 }],
	["examples", object({ path: { type: "string", examples: ["data/sales.csv"] } }), { path: "data/sales.csv" }],
	["minLength", object({ code: { type: "string", minLength: 3 } }), { code: "………" }],
	["maxLength under a format", object({ day: { type: "string", format: "date", maxLength: 4 } }), { day: "2024" }],
	["a format", object({ url: { type: "string", format: "uri" } }), { url: "https://example.com" }],
	["a boolean and null", object({ dry: { type: "boolean" }, none: { type: "null" } }), { dry: false, none: null }],
	["a nullable type list", object({ note: { type: ["null", "string"], minLength: 2 } }), { note: "……" }],
	[
		"a nested object's required",
		object({ options: object({ depth: { type: "integer", minimum: 2 }, label: { type: "string" } }, ["depth"]) }),
		{ options: { depth: 2 } },
	],
	[
		"an array of objects",
		object({ rows: { type: "array", minItems: 2, items: object({ id: { type: "integer", minimum: 1 } }) } }),
		{ rows: [{ id: 1 }, { id: 1 }] },
	],
	[
		"an array with one item to show its shape",
		object({ tags: { type: "array", items: { type: "string", enum: ["a", "b"] } } }),
		{ tags: ["a"] },
	],
	[
		"unique items",
		object({ ids: { type: "array", items: { type: "integer" }, minItems: 3, uniqueItems: true } }),
		{ ids: [0, 1, 2] },
	],
	["maxItems 0", object({ none: { type: "array", items: { type: "string" }, maxItems: 0 } }), { none: [] }],
	[
		"a tuple",
		object({ point: { type: "array", items: [{ type: "number", minimum: 1 }, { type: "string" }] } }),
		{ point: [1, "…"] },
	],
	[
		"anyOf picks a non-null branch",
		object({ id: { anyOf: [{ type: "null" }, { type: "integer", minimum: 7 }] } }),
		{ id: 7 },
	],
	[
		"allOf merges",
		object({
			box: {
				allOf: [object({ w: { type: "integer", minimum: 1 } }), object({ h: { type: "integer", minimum: 2 } })],
			},
		}),
		{ box: { w: 1, h: 2 } },
	],
	[
		"a local $ref",
		{
			type: "object",
			$defs: { size: { type: "integer", minimum: 3 } },
			properties: { size: { $ref: "#/$defs/size" } },
			required: ["size"],
		},
		{ size: 3 },
	],
	[
		"no required: the first three properties",
		{
			type: "object",
			properties: { a: { type: "string" }, b: { type: "integer" }, c: { type: "boolean" }, d: { type: "string" } },
		},
		{ a: "…", b: 0, c: false },
	],
	["an empty required list", { type: "object", properties: { a: { type: "string" } }, required: [] }, {}],
];

describe("exampleArgs", () => {
	it.each(cases)("%s", (_label, schema, expected) => {
		const example = exampleArgs(schema);
		expect(example).toEqual(expected);
		expect(valid(schema, example)).toBe("valid");
	});

	it("a self-referencing schema ends", () => {
		const tree = {
			type: "object",
			properties: { child: { $ref: "#" }, name: { type: "string" } },
			required: ["name", "child"],
		};
		expect(() => JSON.stringify(exampleArgs(tree))).not.toThrow();
	});

	it("a required name without a declared schema still gets a placeholder", () => {
		expect(exampleArgs({ type: "object", required: ["x"] })).toEqual({ x: "…" });
	});
});
