// The checks every forged source passes before it may run: syntax (esbuild) and imports (acorn), and for files on disk
// a preflight load.
import { fail, ok, type Result } from "../contract/forge-error.ts";
import type { ModuleShape, PreflightLoader } from "../contract/module-shape.ts";
import { tsFileOf } from "../contract/tool-files.ts";
import { checkImports } from "./imports.ts";
import { type Transpiled, transpile } from "./transpile.ts";

export async function checkSource(source: string, file: string): Promise<Result<Transpiled>> {
	const transpiled = await transpile(source, file);
	if (!transpiled.ok) return transpiled;
	const imports = checkImports(transpiled.value.esm, file, source);
	if (!imports.ok) return fail(imports.error);
	return ok(transpiled.value);
}

/** Full check of a file already on disk (hand edits, rebuilds): the static checks, then a preflight load of it. */
export async function verifyToolFile(
	name: string,
	path: string,
	source: string,
	preflight: PreflightLoader,
): Promise<Result<{ transpiled: Transpiled; shape: ModuleShape }>> {
	const file = tsFileOf(name);
	const checked = await checkSource(source, file);
	if (!checked.ok) return fail(checked.error.with({ tool: name }));
	const shape = await preflight(path, checked.value.cjs.code, name, file, checked.value.cjs.map);
	if (!shape.ok) return fail(shape.error.with({ tool: name, source }));
	return ok({ transpiled: checked.value, shape: shape.value });
}
