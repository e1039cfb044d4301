// The core library: the only modules a forged tool may import (contract, Safety).

const NODE_MODULES = ["fs", "fs/promises", "path", "path/posix", "path/win32", "child_process"];
const TYPEBOX_MODULES = ["@sinclair/typebox", "typebox"];

/** Value imports a forged tool may make, in every accepted spelling. */
export const ALLOWED_MODULES: ReadonlySet<string> = new Set([
	...NODE_MODULES,
	...NODE_MODULES.map((name) => `node:${name}`),
	...TYPEBOX_MODULES,
]);

/** Packages a forged tool may import for types only (erased before it runs). */
export const TYPE_ONLY_MODULES: ReadonlySet<string> = new Set([
	"@earendil-works/pi-coding-agent",
	"@mariozechner/pi-coding-agent",
]);

export function isAllowedModule(specifier: string): boolean {
	return ALLOWED_MODULES.has(specifier);
}

export const ALLOWED_MODULES_TEXT =
	"fs, fs/promises, path, child_process (bare or node:), typebox (or @sinclair/typebox), and type-only imports of pi (@earendil-works/pi-coding-agent or @mariozechner/pi-coding-agent)";
