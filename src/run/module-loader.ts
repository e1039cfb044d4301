// Evaluates a forged tool's compiled CommonJS with a `require` that serves only the allowed modules: the run-time
// backstop of the import check. esbuild compiles static imports and `import x = require(…)` to `require(…)` calls, and
// `import(…)` to `Promise.resolve().then(() => __toESM(require(…)))` (src/forge/transpile.ts), so every way a tool
// names a module reaches this `require`. A dynamic import (like a default or namespace import) gets esbuild's wrapper
// around the module `require` gave (a runner's facade): a new object whose members, and whose `default`, are that
// module's. The module is compiled without an import callback: an `import()` that reached V8 unchanged is rejected
// (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING) and loads nothing.
import { createRequire } from "node:module";
import { compileFunction } from "node:vm";
import { ALLOWED_MODULES_TEXT, isAllowedModule } from "../contract/allowed-modules.ts";
import { ForgeError } from "../contract/forge-error.ts";
import { locateTypebox } from "./typebox.ts";

/** Gives the module for an allowed specifier (already checked); runners plug in their own (facades, for instance). */
export type ModuleProvider = (specifier: string) => unknown;

const hostRequire = createRequire(import.meta.url);

/** The real modules of this process; TypeBox is pi's, whichever spelling the tool used. */
export const hostModules: ModuleProvider = (specifier) =>
	hostRequire(specifier === "typebox" || specifier === "@sinclair/typebox" ? locateTypebox().entry : specifier);

export function coreLibraryRequire(
	tool: string,
	provide: ModuleProvider = hostModules,
): (specifier: string) => unknown {
	return (specifier: string) => {
		if (typeof specifier !== "string" || !isAllowedModule(specifier)) {
			throw new ForgeError(
				"import",
				`require(${JSON.stringify(specifier)}) was refused at run time: forged tools may use only ${ALLOWED_MODULES_TEXT}.`,
				{ tool },
			);
		}
		return provide(specifier);
	};
}

/**
 * Runs the module body and returns its exports. `filename` is what stack frames will name; `console`, when given, is
 * the module's own `console` (a runner's capturing one), in place of the global.
 */
export function evaluateModule(
	code: string,
	filename: string,
	require: (specifier: string) => unknown,
	console: unknown = globalThis.console,
): Record<string, unknown> {
	const wrapper = compileFunction(code, ["exports", "require", "module", "__filename", "__dirname", "console"], {
		filename,
	});
	const module = { exports: {} as Record<string, unknown> };
	wrapper.call(module.exports, module.exports, require, module, filename, "", console);
	return module.exports;
}
