// The forge's import check (order: toolbox/forge-pipeline.ts): parse the transpiled module (acorn) and refuse what
// reaches outside the core library.
import { type Node, parse } from "acorn";
import { fullAncestor } from "acorn-walk";
import { ALLOWED_MODULES_TEXT, isAllowedModule, TYPE_ONLY_MODULES } from "../contract/allowed-modules.ts";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { createPositionMapper } from "../contract/source-map.ts";
import type { CompiledCode } from "./transpile.ts";

export interface Violation {
	construct: string;
	message: string;
	/** Position in the transpiled code, 1-based. */
	line: number;
	column: number;
}

// biome-ignore lint/suspicious/noExplicitAny: acorn's ESTree nodes are walked by field name; each field read is checked where it is used
type AnyNode = Node & Record<string, any>;

const DANGEROUS_PROCESS_MEMBERS = new Set([
	"binding",
	"_linkedBinding",
	"dlopen",
	"getBuiltinModule",
	"kill",
	"_kill",
	"reallyExit",
	"_debugProcess",
]);
/** Globals that evaluate text as code, refused wherever they are named (called, aliased or destructured). */
const CODE_FROM_TEXT = new Set(["eval", "Function"]);
const GLOBAL_OBJECTS = new Set(["globalThis", "global", "self", "window"]);

/** A default export is what pi loads an extension by: a forged tool's file must never be one, wherever it lands. */
const DEFAULT_EXPORT =
	"A default export is not allowed: a forged tool's file exports `metadata` and `execute` only (pi would load a file with a default export as an extension). The logic is the body of `execute`: it cannot close that function and add declarations after it.";

/** Every construct in the module that the contract refuses, in source order. */
export function findViolations(code: string): Violation[] {
	const ast = parse(code, {
		ecmaVersion: "latest",
		sourceType: "module",
		locations: true,
		allowHashBang: true,
	}) as AnyNode;
	const found: Violation[] = [];
	const add = (node: AnyNode, construct: string, message: string) =>
		found.push({ construct, message, line: node.loc!.start.line, column: node.loc!.start.column + 1 });

	const checkSpecifier = (node: AnyNode, specifier: string, how: string) => {
		if (isAllowedModule(specifier)) return;
		if (TYPE_ONLY_MODULES.has(specifier)) {
			add(
				node,
				how,
				`${how} of '${specifier}' is not allowed: only type-only imports of pi are (\`import type { … } from "${specifier}"\`).`,
			);
		} else {
			add(node, how, `${how} of '${specifier}' is outside the core library.`);
		}
	};

	fullAncestor(ast, (node: AnyNode, _state: unknown, ancestors: AnyNode[]) => {
		switch (node.type) {
			case "ExportDefaultDeclaration":
				add(node, "default export", DEFAULT_EXPORT);
				break;
			case "ImportDeclaration":
			case "ExportAllDeclaration":
			case "ExportNamedDeclaration":
				if (node.source) checkSpecifier(node, String(node.source.value), "import");
				if (
					node.specifiers?.some((s: AnyNode) => s.exported?.name === "default" || s.exported?.value === "default")
				)
					add(node, "default export", DEFAULT_EXPORT);
				break;
			case "ImportExpression":
				if (isStringLiteral(node.source)) checkSpecifier(node, node.source.value, "import()");
				else
					add(
						node,
						"computed import()",
						"A computed import() (its module name is not a string literal) is not allowed.",
					);
				break;
			case "CallExpression":
			case "NewExpression":
				checkCall(node, add, checkSpecifier);
				break;
			case "MemberExpression":
				checkMember(node, add);
				break;
			case "Identifier": {
				const parent = ancestors[ancestors.length - 2];
				if (
					node.name === "require" &&
					!(parent?.type === "CallExpression" && parent.callee === node) &&
					!isDeclaration(parent, node)
				) {
					add(
						node,
						"require as a value",
						'Taking `require` as a value (to call it later) is not allowed: call require("module") directly.',
					);
					break;
				}
				if (!CODE_FROM_TEXT.has(node.name)) break;
				const called =
					(parent?.type === "NewExpression" || parent?.type === "CallExpression") && parent.callee === node;
				if (node.name === "eval") add(node, "eval", "`eval` is not allowed.");
				else if (called)
					add(
						parent,
						"new Function",
						"`new Function(…)` / `Function(…)` is not allowed: it evaluates text as code.",
					);
				else add(node, "Function", "Naming the `Function` constructor is not allowed: it evaluates text as code.");
				break;
			}
			case "ObjectPattern":
				for (const property of node.properties as AnyNode[]) {
					const key = property.type === "Property" && !property.computed ? (property.key as AnyNode) : undefined;
					const name = key?.type === "Identifier" ? key.name : isStringLiteral(key) ? key.value : undefined;
					if (name && (CODE_FROM_TEXT.has(name) || DANGEROUS_PROCESS_MEMBERS.has(name))) {
						add(property, `destructured ${name}`, `Taking \`${name}\` out of an object is not allowed.`);
					}
				}
				break;
		}
	});
	return found.sort((a, b) => a.line - b.line || a.column - b.column);
}

function checkCall(
	node: AnyNode,
	add: (n: AnyNode, c: string, m: string) => void,
	checkSpecifier: (n: AnyNode, s: string, how: string) => void,
) {
	const callee = node.callee as AnyNode;
	if (callee.type === "Identifier" && callee.name === "require") {
		const [first] = node.arguments as AnyNode[];
		if (first && isStringLiteral(first)) checkSpecifier(node, first.value, "require");
		else
			add(
				node,
				"require of a non-literal",
				"require() with a module name that is not a string literal is not allowed.",
			);
	}
	if (propertyName(callee) === "constructor" && callee.type === "MemberExpression") {
		add(node, ".constructor(…)", "Calling `.constructor(…)` is not allowed: it reaches the Function constructor.");
	}
}

function checkMember(node: AnyNode, add: (n: AnyNode, c: string, m: string) => void) {
	const object = node.object as AnyNode;
	const property = propertyName(node);
	if (
		object.type === "Identifier" &&
		object.name === "process" &&
		property &&
		DANGEROUS_PROCESS_MEMBERS.has(property)
	) {
		add(node, `process.${property}`, `\`process.${property}\` is not allowed: it loads native code.`);
	}
	if (object.type === "Identifier" && object.name === "module" && property === "constructor") {
		add(node, "module.constructor", "`module.constructor` is not allowed: it reaches Node's module loader.");
	}
	if (
		object.type === "Identifier" &&
		GLOBAL_OBJECTS.has(object.name) &&
		(property === "eval" || property === "Function")
	) {
		add(
			node,
			`${object.name}.${property}`,
			`\`${object.name}.${property}\` is not allowed: it evaluates text as code.`,
		);
	}
	if (property === "constructor" && object.type === "MemberExpression" && propertyName(object) === "constructor") {
		add(
			node,
			".constructor.constructor",
			"`.constructor.constructor` is not allowed: it reaches the Function constructor.",
		);
	}
}

/** `typeof require` and a property named `require` are not uses of the function. */
function isDeclaration(parent: AnyNode | undefined, node: AnyNode): boolean {
	if (!parent) return false;
	if (parent.type === "UnaryExpression" && parent.operator === "typeof") return true;
	if (parent.type === "MemberExpression" && parent.property === node && !parent.computed) return true;
	if (parent.type === "Property" && parent.key === node && !parent.computed) return true;
	return false;
}

function propertyName(node: AnyNode): string | undefined {
	if (node.type !== "MemberExpression") return undefined;
	const property = node.property as AnyNode;
	if (!node.computed && property.type === "Identifier") return property.name;
	if (isStringLiteral(property)) return property.value;
	return undefined;
}

function isStringLiteral(node: AnyNode | undefined): node is AnyNode & { value: string } {
	return !!node && node.type === "Literal" && typeof node.value === "string";
}

/** The forge stage: refuse the module, naming the first construct at its line in `forge-<name>.ts`. */
export function checkImports(esm: CompiledCode, file: string, source: string): Result<void> {
	const violations = findViolations(esm.code);
	if (violations.length === 0) return ok(undefined);
	const toSource = createPositionMapper(esm.map);
	const located = violations.map((v) => ({ ...v, at: toSource(v.line, v.column) }));
	const [first, ...rest] = located;
	const where = (v: (typeof located)[number]) => (v.at ? `${file}:${v.at.line}:${v.at.column}: ` : "");
	return fail(
		new ForgeError("import", `${first.message}`, {
			location: first.at ? { file, line: first.at.line, column: first.at.column } : undefined,
			notes: rest.map((v) => `${where(v)}${v.message}`),
			source,
			hint: `Forged tools may import only ${ALLOWED_MODULES_TEXT}. Rewrite that part with the core library (or plain JavaScript) and forge again.`,
		}),
	);
}
