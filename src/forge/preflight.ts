// Stage 6 of the forge: a real load of the staged file with jiti (as pi loads extensions), then a check of its shape.
// jiti resolves, wraps and evaluates the module; its transform step is handed esbuild's output for that file, so the
// code that is preflighted is exactly the code that will run (and babel's few milliseconds are saved).
// Runners call this where they run code: the inline runner in pi's process, the isolated one in its host.
import { createJiti, type Jiti } from "jiti";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { createPositionMapper } from "../contract/source-map.ts";
import { mapStack } from "../contract/stack.ts";
import { locateTypebox } from "../run/typebox.ts";

export interface ModuleShape {
	name: string;
	description: string;
	parameters: Record<string, unknown>;
}

/** `map` (the esbuild source map of `cjs`) lets a throw from top-level code be located in `forge-<name>.ts`. */
export type PreflightLoader = (
	stagedPath: string,
	cjs: string,
	expectedName: string,
	file: string,
	map?: string,
) => Promise<Result<ModuleShape>>;

/** A loader with its own jiti: no module cache (every load is fresh), typebox aliased to `typeboxPath` as pi aliases it to its own. */
export function createPreflightLoader(typeboxPath: string): PreflightLoader {
	const transpiled = new Map<string, string>();
	const jiti: Jiti = createJiti(import.meta.url, {
		moduleCache: false,
		fsCache: false,
		interopDefault: false,
		alias: { "@sinclair/typebox": typeboxPath, typebox: typeboxPath },
		transform: ({ filename, source }) => {
			const code = filename ? transpiled.get(filename) : undefined;
			if (code === undefined)
				throw new Error(
					`preflight has no transpiled code for ${filename ?? "an anonymous module"} (${source.length} characters)`,
				);
			return { code };
		},
	});
	return async (stagedPath, cjs, expectedName, file, map) => {
		let loaded: Record<string, unknown>;
		transpiled.set(stagedPath, cjs);
		try {
			loaded = (await jiti.import(stagedPath)) as Record<string, unknown>;
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			const mapped =
				map && error instanceof Error
					? mapStack(error.stack, stagedPath, createPositionMapper(map), file)
					: undefined;
			return fail(
				new ForgeError(
					"load",
					`Loading ${file} failed: ${message.split(stagedPath).join(file)}`,
					{
						location: mapped?.location,
						stack: mapped?.frames,
						hint: "The module throws while it loads: keep top-level code to the template and move work into the logic.",
					},
					{ cause: error },
				),
			);
		} finally {
			transpiled.delete(stagedPath);
		}
		return checkShape(loaded, expectedName, file);
	};
}

let inProcess: PreflightLoader | undefined;

/** Preflight in this process (the inline runner). */
export const preflightLoad: PreflightLoader = (...args) => {
	inProcess ??= createPreflightLoader(locateTypebox().entry);
	return inProcess(...args);
};

export function checkShape(loaded: Record<string, unknown>, expectedName: string, file: string): Result<ModuleShape> {
	const shapeError = (message: string) =>
		fail(
			new ForgeError("shape", message, {
				hint: `${file} must export \`metadata\` ({ name, description, parameters }) and \`async function execute(params, pi, ctx)\`, as the template does.`,
			}),
		);

	const metadata = loaded.metadata as Partial<ModuleShape> | undefined;
	if (typeof metadata !== "object" || metadata === null) return shapeError(`${file} does not export \`metadata\`.`);
	if (metadata.name !== expectedName)
		return shapeError(`metadata.name is ${JSON.stringify(metadata.name)}, expected "${expectedName}".`);
	if (typeof metadata.description !== "string") return shapeError("metadata.description must be a string.");
	if (typeof metadata.parameters !== "object" || metadata.parameters === null)
		return shapeError("metadata.parameters must be a schema object.");
	if (typeof loaded.execute !== "function") return shapeError(`${file} does not export an \`execute\` function.`);
	return ok({
		name: metadata.name,
		description: metadata.description,
		parameters: JSON.parse(JSON.stringify(metadata.parameters)) as Record<string, unknown>,
	});
}
