// The forge's first check: the tool's name (contract: ^[a-z][a-z0-9_-]{0,47}$, never a name held by a tool that is not
// forged).
import { ForgeError, fail, ok, type Result } from "./forge-error.ts";

export const NAME_PATTERN = /^[a-z][a-z0-9_-]{0,47}$/;

/** The forge's own tools: never forgeable, whatever pi reports. */
export const FORGE_TOOL_NAMES = ["forge_tool", "use_forge_tool", "list_forge"] as const;

/** Names whose files would collide with the toolbox's own files (`forge-registry.json`). */
export const RESERVED_NAMES = ["registry"] as const;

/** Who holds a name that is not a forged tool: "pi's built-in tool", "the extension at …". */
export type TakenNames = ReadonlyMap<string, string>;

const hint = (suggestion: string) =>
	`Call forge_tool again with a name like '${suggestion}': lowercase letters, digits, '-' or '_', starting with a letter, at most 48 characters.`;

export function suggestName(raw: string): string {
	const cleaned = raw
		.toLowerCase()
		.replace(/[^a-z0-9_-]+/g, "-")
		.replace(/^[^a-z]+/, "")
		.replace(/-+$/, "")
		.slice(0, 48);
	return cleaned || "my-tool";
}

/** A name the forge could ever accept (the pattern, not one of its own tools, not reserved). */
export function isForgeableName(name: string): boolean {
	return (
		NAME_PATTERN.test(name) &&
		!(FORGE_TOOL_NAMES as readonly string[]).includes(name) &&
		!(RESERVED_NAMES as readonly string[]).includes(name)
	);
}

export function validateName(name: unknown, taken: TakenNames): Result<string> {
	if (typeof name !== "string" || name.length === 0) {
		return fail(new ForgeError("name", "The tool needs a name (a non-empty string).", { hint: hint("my-tool") }));
	}
	if (!NAME_PATTERN.test(name)) {
		const why =
			name.length > 48
				? `is ${name.length} characters long (at most 48)`
				: !/^[a-z]/.test(name)
					? "must start with a lowercase letter"
					: `contains ${describeBadCharacters(name)}`;
		return fail(new ForgeError("name", `The name '${printable(name)}' ${why}.`, { hint: hint(suggestName(name)) }));
	}
	if ((FORGE_TOOL_NAMES as readonly string[]).includes(name)) {
		return fail(
			new ForgeError("name", `'${name}' is one of Agent Forge's own tools.`, {
				hint: hint(`my-${name.replace(/_/g, "-")}`),
			}),
		);
	}
	if ((RESERVED_NAMES as readonly string[]).includes(name)) {
		return fail(
			new ForgeError("name", `'${name}' is reserved: its file would collide with forge-registry.json.`, {
				hint: hint(`${name}-tool`),
			}),
		);
	}
	const holder = taken.get(name);
	if (taken.has(name)) {
		return fail(
			new ForgeError("name", `The name '${name}' is already held by ${holder}, which is not a forged tool.`, {
				hint: hint(`${name}-forged`),
			}),
		);
	}
	return ok(name);
}

function describeBadCharacters(name: string): string {
	const bad = [...new Set([...name].filter((ch) => !/[a-z0-9_-]/.test(ch)))];
	return `characters that are not allowed: ${bad.map((ch) => JSON.stringify(ch)).join(", ")}`;
}

/** Names can hold control characters (NUL…); never echo them raw. */
function printable(name: string): string {
	return JSON.stringify(name).slice(1, -1).slice(0, 80);
}
