// A forge-time check that the logic and the schema agree: reading `params.file` when the schema declares only `path`
// is the classic slip, and would otherwise surface later as "undefined" at run time.
import { type Node, parse } from "acorn";
import { fullAncestor } from "acorn-walk";
import { closestName } from "../contract/did-you-mean.ts";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { createPositionMapper } from "../contract/source-map.ts";
import type { CompiledCode } from "./transpile.ts";

// biome-ignore lint/suspicious/noExplicitAny: acorn's ESTree nodes are walked by field name; each field read is checked where it is used
type AnyNode = Node & Record<string, any>;

interface Read {
	name: string;
	line: number;
	column: number;
}

/** The names the logic reads from `params` (`params.x`, `params["x"]`, `const { x } = params`), where they are read. */
export function paramReads(code: string): Read[] {
	const ast = parse(code, { ecmaVersion: "latest", sourceType: "module", locations: true }) as AnyNode;
	const reads: Read[] = [];
	const at = (node: AnyNode, name: string) =>
		reads.push({ name, line: node.loc!.start.line, column: node.loc!.start.column + 1 });
	fullAncestor(ast, (node: AnyNode) => {
		if (node.type === "MemberExpression" && node.object.type === "Identifier" && node.object.name === "params") {
			const property = node.property as AnyNode;
			if (!node.computed && property.type === "Identifier") at(property, property.name);
			else if (property.type === "Literal" && typeof property.value === "string") at(property, property.value);
		}
		if (
			node.type === "VariableDeclarator" &&
			node.init?.type === "Identifier" &&
			node.init.name === "params" &&
			node.id.type === "ObjectPattern"
		) {
			for (const property of node.id.properties as AnyNode[]) {
				if (property.type === "Property" && !property.computed && property.key.type === "Identifier")
					at(property.key, property.key.name);
			}
		}
	});
	return reads;
}

/** Refuses logic that reads a parameter the schema does not declare (unless the schema allows any property). */
export function checkParams(
	esm: CompiledCode,
	schema: Record<string, unknown>,
	file: string,
	source: string,
): Result<void> {
	const properties = schema.properties;
	if (typeof properties !== "object" || properties === null) return ok(undefined);
	if (schema.additionalProperties === true || schema.patternProperties !== undefined) return ok(undefined);
	const declared = Object.keys(properties);
	const unknown = paramReads(esm.code).filter(
		(read) => !declared.includes(read.name) && !(read.name in Object.prototype),
	);
	if (unknown.length === 0) return ok(undefined);
	const toSource = createPositionMapper(esm.map);
	const [first, ...rest] = unknown.map((read) => ({ ...read, at: toSource(read.line, read.column) }));
	const suggestion = closestName(first.name, declared);
	return fail(
		new ForgeError(
			"schema",
			`The logic reads params.${first.name}, but the parameters schema declares no '${first.name}' (it declares: ${declared.join(", ") || "nothing"}).`,
			{
				title: "the logic reads a parameter the schema does not declare",
				location: first.at ? { file, line: first.at.line, column: first.at.column } : undefined,
				notes: [
					...new Set(
						rest.map(
							(r) =>
								`params.${r.name}${r.at ? ` at ${file}:${r.at.line}:${r.at.column}` : ""} is not declared either`,
						),
					),
				],
				source,
				hint: suggestion
					? `Did you mean params.${suggestion}? Use the schema's name in the logic, or add '${first.name}' to parametersSchema.properties.`
					: `Add '${first.name}' to parametersSchema.properties, or read one of the declared parameters instead.`,
			},
		),
	);
}
