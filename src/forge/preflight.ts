// Stage 6 of the forge: a real load of the staged file with jiti (as pi loads extensions), then a check of its shape.
// jiti resolves, wraps and evaluates the module; its transform step is handed esbuild's output for that file, so the
// code that is preflighted is exactly the code that will run (and babel's few milliseconds are saved).
import { createRequire } from "node:module";
import { createJiti, type Jiti } from "jiti";
import { ForgeError, type Result, fail, ok } from "../errors/forge-error.ts";

export interface ModuleShape {
	name: string;
	description: string;
	parameters: Record<string, unknown>;
}

/** Transpiled code for the files being preflighted, by absolute path. */
const transpiled = new Map<string, string>();
let jiti: Jiti | undefined;

/** One jiti for all preflights: no module cache (every load is fresh), typebox aliased to ours as pi aliases it to its own. */
function preflightJiti(): Jiti {
	if (jiti) return jiti;
	const require = createRequire(import.meta.url);
	const typebox = require.resolve("@sinclair/typebox");
	jiti = createJiti(import.meta.url, {
		moduleCache: false,
		fsCache: false,
		interopDefault: false,
		alias: { "@sinclair/typebox": typebox, typebox },
		transform: ({ filename, source }) => {
			const code = filename ? transpiled.get(filename) : undefined;
			if (code === undefined) throw new Error(`preflight has no transpiled code for ${filename ?? "an anonymous module"} (${source.length} characters)`);
			return { code };
		},
	});
	return jiti;
}

/** Loads `stagedPath` (whose esbuild CommonJS output is `cjs`) and checks it exports `metadata` for `expectedName` and an `execute` function. */
export async function preflightLoad(stagedPath: string, cjs: string, expectedName: string, file: string, source: string): Promise<Result<ModuleShape>> {
	let loaded: Record<string, unknown>;
	transpiled.set(stagedPath, cjs);
	try {
		loaded = (await preflightJiti().import(stagedPath)) as Record<string, unknown>;
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return fail(
			new ForgeError("load", `Loading ${file} failed: ${message.split(stagedPath).join(file)}`, {
				source,
				hint: "The module throws while it loads: keep top-level code to the template and move work into the logic.",
			}, { cause: error }),
		);
	} finally {
		transpiled.delete(stagedPath);
	}
	return checkShape(loaded, expectedName, file, source);
}

export function checkShape(loaded: Record<string, unknown>, expectedName: string, file: string, source: string): Result<ModuleShape> {
	const shapeError = (message: string) =>
		fail(new ForgeError("shape", message, { source, hint: `${file} must export \`metadata\` ({ name, description, parameters }) and \`async function execute(params, pi, ctx)\`, as the template does.` }));

	const metadata = loaded.metadata as Partial<ModuleShape> | undefined;
	if (typeof metadata !== "object" || metadata === null) return shapeError(`${file} does not export \`metadata\`.`);
	if (metadata.name !== expectedName) return shapeError(`metadata.name is ${JSON.stringify(metadata.name)}, expected "${expectedName}".`);
	if (typeof metadata.description !== "string") return shapeError("metadata.description must be a string.");
	if (typeof metadata.parameters !== "object" || metadata.parameters === null) return shapeError("metadata.parameters must be a schema object.");
	if (typeof loaded.execute !== "function") return shapeError(`${file} does not export an \`execute\` function.`);
	return ok({ name: metadata.name, description: metadata.description, parameters: metadata.parameters as Record<string, unknown> });
}
