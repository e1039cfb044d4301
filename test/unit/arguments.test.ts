// Argument validation of forged tools: coercion like pi's, errors naming each bad field, one cached validator per tool version.
import { describe, expect, it } from "vitest";
import { createArgumentValidators } from "../../src/schema/arguments.ts";

const validators = createArgumentValidators();

const schema = {
	type: "object",
	properties: { text: { type: "string" }, count: { type: "number" }, loud: { type: "boolean" } },
	required: ["text"],
};

function refusal(tool: string, hash: string, toolSchema: Record<string, unknown>, args: unknown) {
	const result = validators.validate(tool, hash, toolSchema, args);
	if (result.ok) throw new Error(`expected ${JSON.stringify(args)} to be refused`);
	expect(result.error.phase).toBe("arguments");
	return result.error;
}

describe("ArgumentValidators.validate", () => {
	it("accepts valid arguments and returns a copy", () => {
		const args = { text: "hi", count: 2 };
		const result = validators.validate("valid", "h1", schema, args);
		expect(result).toEqual({ ok: true, value: { text: "hi", count: 2 } });
		if (result.ok) expect(result.value).not.toBe(args);
	});

	it("coerces like pi does, without changing the caller's object", () => {
		const args = { text: "hi", count: "5", loud: "true" };
		expect(validators.validate("coerce", "h1", schema, args)).toEqual({
			ok: true,
			value: { text: "hi", count: 5, loud: true },
		});
		expect(args.count).toBe("5");
	});

	it("fills defaults from the schema", () => {
		const withDefault = { type: "object", properties: { limit: { type: "number", default: 10 } } };
		expect(validators.validate("defaults", "h1", withDefault, {})).toEqual({ ok: true, value: { limit: 10 } });
	});

	it("treats missing args (undefined, null) as {}", () => {
		const optional = { type: "object", properties: { a: { type: "string" } } };
		expect(validators.validate("empty", "h1", optional, undefined)).toEqual({ ok: true, value: {} });
		expect(validators.validate("empty", "h1", optional, null)).toEqual({ ok: true, value: {} });
	});

	it("names a missing required field", () => {
		const error = refusal("required", "h1", schema, { count: 1 });
		expect(error.message).toBe("Invalid arguments for 'required':");
		expect(error.details.notes).toEqual(["params.text: must have required property 'text'"]);
	});

	it("names a field of the wrong type", () => {
		const error = refusal("wrong-type", "h1", schema, { text: "x", count: "many" });
		expect(error.details.notes).toEqual(["params.count: must be number"]);
	});

	it("lists every bad field at once", () => {
		const error = refusal("all-errors", "h1", schema, { count: "many" });
		expect(error.details.notes).toEqual([
			"params.text: must have required property 'text'",
			"params.count: must be number",
		]);
	});

	it("names the extra key when additionalProperties is false", () => {
		const closed = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
		const error = refusal("closed", "h1", closed, { a: "x", extra: 1 });
		expect(error.details.notes).toEqual(["params: must NOT have additional properties ('extra')"]);
	});

	it("refuses args that are not an object, naming what they are", () => {
		expect(refusal("shape", "h1", schema, ["hi"]).message).toBe(
			"args must be an object of named parameters, got an array.",
		);
		expect(refusal("shape", "h1", schema, "hi").message).toBe(
			"args must be an object of named parameters, got string.",
		);
		expect(refusal("shape", "h1", schema, 7).message).toBe("args must be an object of named parameters, got number.");
		expect(refusal("shape", "h1", schema, 7).details.hint).toContain('use_forge_tool({"name":"shape","args":{…}})');
	});

	it("carries the tool, the schema and the args as given", () => {
		const args = { count: "many" };
		const error = refusal("carries", "h1", schema, args);
		expect(error.details.tool).toBe("carries");
		expect(error.details.schema).toBe(schema);
		expect(error.details.args).toBe(args);
		expect(error.details.hint).toContain("the tool itself was not run");
	});

	it("reuses the compiled validator while the hash stays the same", () => {
		const v1 = { type: "object", properties: { n: { type: "number" } } };
		const v2 = { type: "object", properties: { n: { type: "string" } } };
		expect(validators.validate("cached", "same", v1, { n: 1 }).ok).toBe(true);
		// Same hash: the schema is not looked at again, so v1 still decides.
		expect(validators.validate("cached", "same", v2, { n: 1 }).ok).toBe(true);
		expect(validators.validate("cached", "same", v2, { n: "x" }).ok).toBe(false);
	});

	it("recompiles with the new schema when the hash changes", () => {
		const v1 = { type: "object", properties: { n: { type: "number" } } };
		const v2 = { type: "object", properties: { n: { type: "number", maximum: 3 } } };
		expect(validators.validate("recompiled", "v1", v1, { n: 5 }).ok).toBe(true);
		const error = refusal("recompiled", "v2", v2, { n: 5 });
		expect(error.details.notes).toEqual(["params.n: must be <= 3"]);
	});

	it("recompiles after forget, even with the same hash", () => {
		const v1 = { type: "object", properties: { n: { type: "number" } } };
		const v2 = { type: "object", properties: { n: { type: "string" } } };
		expect(validators.validate("forgotten", "same", v1, { n: 1 }).ok).toBe(true);
		validators.forget("forgotten");
		expect(refusal("forgotten", "same", v2, { n: [] }).details.notes).toEqual(["params.n: must be string"]);
	});

	it("keeps each owner's validators apart", () => {
		const v1 = { type: "object", properties: { n: { type: "string" } } };
		const v2 = { type: "object", properties: { n: { type: "number" } } };
		const other = createArgumentValidators();
		expect(validators.validate("owned", "same", v1, { n: "x" }).ok).toBe(true);
		expect(other.validate("owned", "same", v2, { n: "x" }).ok).toBe(false);
	});
});

describe("validators of schemas with an $id", () => {
	it("a new version with the same $id and a new shape validates against the new shape", () => {
		const v1 = { type: "object", $id: "shared", properties: { a: { type: "string" } }, required: ["a"] };
		const v2 = { type: "object", $id: "shared", properties: { b: { type: "number" } }, required: ["b"] };
		expect(validators.validate("idtool", "h1", v1, { a: "x" }).ok).toBe(true);
		const result = validators.validate("idtool", "h2", v2, { a: "x" });
		expect(!result.ok && result.error.details.notes).toEqual(["params.b: must have required property 'b'"]);
	});
});

describe("fieldPath", async () => {
	const { fieldPath } = await import("../../src/schema/field-path.ts");
	it.each([
		["", "params"],
		["/text", "params.text"],
		["/items/0/name", "params.items[0].name"],
		["/a~1b/c~0d", 'params["a/b"]["c~d"]'],
		["/with space", 'params["with space"]'],
	])("%s → %s", (pointer, expected) => {
		expect(fieldPath("params", pointer)).toBe(expected);
	});
});
