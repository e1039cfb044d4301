// pi's copy of a forged tool's schema (validated in pi's main thread) holds no regular expression and no reference;
// `needsBound` tells which schemas are checked off the main thread.
import { describe, expect, it } from "vitest";
import { needsBound } from "../../src/schema/arguments.ts";
import { piSafeSchema } from "../../src/schema/pi-schema.ts";

describe("piSafeSchema", () => {
	it("leaves out patterns, keeping them in the description for the model", () => {
		expect(
			piSafeSchema({
				type: "object",
				properties: { code: { type: "string", pattern: "^(a+)+$", description: "A code." } },
				required: ["code"],
			}),
		).toEqual({
			type: "object",
			properties: { code: { type: "string", description: "A code. Must match the regular expression /^(a+)+$/." } },
			required: ["code"],
		});
	});

	it("leaves out patternProperties (and the additionalProperties: false that leaned on them), propertyNames, $ref and $defs, at any depth", () => {
		const schema = {
			type: "object",
			properties: {
				list: {
					type: "array",
					items: {
						anyOf: [
							{ $ref: "#/$defs/a" },
							{
								type: "object",
								patternProperties: { "^x": {} },
								additionalProperties: false,
								propertyNames: { pattern: "^(\\w+)*$" },
							},
						],
					},
				},
			},
			$defs: { a: { type: "number" } },
		};
		expect(piSafeSchema(schema)).toEqual({
			type: "object",
			properties: { list: { type: "array", items: { anyOf: [{}, { type: "object" }] } } },
		});
	});

	it("leaves out uniqueItems (every pair of items compared), saying it in the description", () => {
		expect(
			piSafeSchema({
				type: "object",
				properties: { tags: { type: "array", uniqueItems: true, description: "Tags." } },
			}),
		).toEqual({
			type: "object",
			properties: { tags: { type: "array", description: "Tags. Its items must all differ." } },
		});
	});

	it("keeps everything else as it is", () => {
		const schema = {
			type: "object",
			properties: { n: { type: "integer", minimum: 1, enum: [1, 2] }, flag: { type: "boolean", default: false } },
			additionalProperties: false,
		};
		expect(piSafeSchema(schema)).toEqual(schema);
	});

	it("what it returns needs no bound", () => {
		const schema = {
			type: "object",
			properties: { a: { pattern: "x" }, b: { $ref: "#/$defs/b" } },
			$defs: { b: { patternProperties: { y: {} } } },
		};
		expect(needsBound(schema)).toBe(true);
		expect(needsBound(piSafeSchema(schema))).toBe(false);
	});
});

describe("needsBound", () => {
	it.each([
		[{ type: "object", properties: { a: { type: "string" } } }, false],
		[{ type: "object", properties: { a: { type: "string", pattern: "^a$" } } }, true],
		[{ type: "object", anyOf: [{ properties: { a: { $ref: "#" } } }] }, true],
		[{ type: "object", properties: { pattern: { type: "string" } } }, true],
		[{ type: "object", properties: { tags: { type: "array", uniqueItems: true } } }, true],
		[{ type: "object", properties: { tags: { type: "array", uniqueItems: false } } }, true],
	])("%j → %s", (schema, expected) => {
		expect(needsBound(schema)).toBe(expected);
	});
});
