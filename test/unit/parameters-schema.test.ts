// The forge's schema check: the parameters schema must be a valid JSON Schema of an object, returned as plain JSON.
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { validateParametersSchema } from "../../src/schema/parameters-schema.ts";

const textSchema = {
	type: "object",
	properties: { text: { type: "string", description: "The text" } },
	required: ["text"],
};

function refusal(input: unknown) {
	const result = validateParametersSchema(input);
	if (result.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
	expect(result.error.phase).toBe("schema");
	expect(result.error.details.hint).toContain("parametersSchema must be a JSON Schema object");
	return result.error;
}

describe("validateParametersSchema", () => {
	it("accepts an object schema and returns an equal plain copy", () => {
		const result = validateParametersSchema(textSchema);
		expect(result).toEqual({ ok: true, value: textSchema });
		if (result.ok) expect(result.value).not.toBe(textSchema);
	});

	it("accepts an object schema without properties", () => {
		expect(validateParametersSchema({ type: "object" })).toEqual({ ok: true, value: { type: "object" } });
	});

	it("accepts the schema as JSON text, as models sometimes send it", () => {
		expect(validateParametersSchema(JSON.stringify(textSchema))).toEqual({ ok: true, value: textSchema });
	});

	it("refuses a string that is not JSON, quoting the parse error", () => {
		const error = refusal("{type: object}");
		expect(error.message).toMatch(/^parametersSchema is a string that is not valid JSON: .+/);
	});

	it("refuses null and undefined as missing", () => {
		expect(refusal(null).message).toBe("parametersSchema is missing.");
		expect(refusal(undefined).message).toBe("parametersSchema is missing.");
		expect(refusal("null").message).toBe("parametersSchema is missing.");
	});

	it("refuses arrays and primitives, naming what it got", () => {
		expect(refusal([textSchema]).message).toBe("parametersSchema must be an object, got an array.");
		expect(refusal(42).message).toBe("parametersSchema must be an object, got number.");
		expect(refusal(true).message).toBe("parametersSchema must be an object, got boolean.");
		expect(refusal("[]").message).toBe("parametersSchema must be an object, got an array.");
	});

	it("refuses a schema of something other than an object, carrying the schema", () => {
		const error = refusal({ type: "string" });
		expect(error.message).toBe('parametersSchema must describe an object (type "object"); it has type "string".');
		expect(error.details.schema).toEqual({ type: "string" });
		expect(refusal({ type: "strin" }).message).toContain('it has type "strin"');
	});

	it("refuses a schema without a type", () => {
		expect(refusal({ properties: { a: { type: "string" } } }).message).toContain("it has no type.");
	});

	it("refuses properties that are not an object", () => {
		for (const properties of [[{ type: "string" }], "text", null, 3]) {
			expect(refusal({ type: "object", properties }).message).toBe(
				"parametersSchema.properties must be an object mapping each parameter name to its schema.",
			);
		}
	});

	it("lists invalid keyword values as notes", () => {
		const error = refusal({ type: "object", properties: { count: { type: "strin" } } });
		expect(error.message).toBe("parametersSchema is not a valid JSON Schema:");
		expect(error.details.notes?.length).toBeGreaterThan(0);
		expect(error.details.notes?.some((note) => note.startsWith("parametersSchema.properties.count.type: "))).toBe(
			true,
		);
		expect(
			error.details.notes?.some(
				(note) => note.includes("must be equal to one of the allowed values") && note.includes("string"),
			),
		).toBe(true);
	});

	it("notes a required list that is not an array of strings", () => {
		const error = refusal({ type: "object", required: "text" });
		expect(error.details.notes?.some((note) => note.startsWith("parametersSchema.required: "))).toBe(true);
	});

	it("refuses a $ref that does not resolve", () => {
		const error = refusal({ type: "object", properties: { a: { $ref: "#/definitions/missing" } } });
		expect(error.message).toMatch(/^parametersSchema does not compile: .*#\/definitions\/missing/);
	});

	it("accepts a $ref that resolves", () => {
		const schema = {
			type: "object",
			definitions: { n: { type: "number" } },
			properties: { a: { $ref: "#/definitions/n" } },
		};
		expect(validateParametersSchema(schema)).toEqual({ ok: true, value: schema });
	});

	it("refuses a schema that cannot be serialised to JSON", () => {
		const cyclic: Record<string, unknown> = { type: "object" };
		cyclic.self = cyclic;
		expect(refusal(cyclic).message).toMatch(/^parametersSchema is not JSON-serialisable: /);
	});

	it("strips a TypeBox schema (its hidden '~kind' keys) to plain JSON", () => {
		const typebox = Type.Object({
			text: Type.String({ description: "The text" }),
			count: Type.Optional(Type.Number()),
		});
		expect(Object.getOwnPropertyNames(typebox)).toContain("~kind");
		const result = validateParametersSchema(typebox);
		if (!result.ok) throw result.error;
		expect(Object.getOwnPropertyNames(result.value)).not.toContain("~kind");
		expect(Object.getOwnPropertyNames(result.value.properties as object)).toEqual(["text", "count"]);
		expect(Object.getOwnPropertyNames((result.value.properties as Record<string, object>).text)).not.toContain(
			"~kind",
		);
		expect(result.value).toEqual({
			type: "object",
			properties: { text: { type: "string", description: "The text" }, count: { type: "number" } },
			required: ["text"],
		});
	});
});

describe("schemas that once broke the shared Ajv", () => {
	it("a schema with an $id can be re-forged with a different shape", () => {
		expect(validateParametersSchema({ type: "object", $id: "same-id" }).ok).toBe(true);
		const changed = validateParametersSchema({
			type: "object",
			$id: "same-id",
			properties: { a: { type: "string" } },
		});
		expect(changed.ok).toBe(true);
	});

	it("a schema declaring another draft is read as draft-07 instead of throwing", () => {
		const result = validateParametersSchema({
			$schema: "https://json-schema.org/draft/2020-12/schema",
			type: "object",
		});
		expect(result.ok).toBe(true);
	});

	it("refuses a __proto__ key anywhere in the schema", () => {
		const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
		const result = validateParametersSchema(schema);
		expect(!result.ok && result.error.message).toContain("'__proto__'");
	});
});

describe("required names declared properties", () => {
	const schemaError = (input: unknown) => {
		const result = validateParametersSchema(input);
		if (result.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
		expect(result.error.phase).toBe("schema");
		return result.error;
	};

	it("refuses a required name that properties does not declare, with a did-you-mean", () => {
		const error = schemaError({ type: "object", properties: { text: { type: "string" } }, required: ["txt"] });
		expect(error.message).toBe(
			"parametersSchema.required names 'txt', but parametersSchema.properties does not declare it (it declares: text).",
		);
		expect(error.details.hint).toMatch(/^Did you mean 'text'\?/);
	});

	it("names every undeclared name, also in nested object schemas and array items", () => {
		const error = schemaError({
			type: "object",
			properties: {
				path: { type: "string" },
				options: { type: "object", properties: { limit: { type: "integer" } }, required: ["limt"] },
				rows: {
					type: "array",
					items: { type: "object", properties: { id: { type: "string" } }, required: ["ID", "id"] },
				},
			},
			required: ["path", "pth"],
		});
		expect(error.message).toContain("parametersSchema.required names 'pth'");
		expect(error.details.notes).toEqual([
			"parametersSchema.properties.options.required names 'limt', which is not declared either",
			"parametersSchema.properties.rows.items.required names 'ID', which is not declared either",
		]);
	});

	it("refuses required without any properties at the top level, and says what to do without a guess", () => {
		const error = schemaError({ type: "object", required: ["text"] });
		expect(error.message).toContain("(it declares: nothing)");
		expect(error.details.hint).toMatch(/^Every name in required must be a key of properties: declare 'text'/);
	});

	it("accepts names covered by patternProperties, and required in anyOf branches without properties", () => {
		expect(
			validateParametersSchema({
				type: "object",
				patternProperties: { "^x-": { type: "string" } },
				required: ["x-id"],
			}).ok,
		).toBe(true);
		const either = {
			type: "object",
			properties: { a: { type: "string" }, b: { type: "string" } },
			anyOf: [{ required: ["a"] }, { required: ["b"] }],
		};
		expect(validateParametersSchema(either).ok).toBe(true);
	});
});
