// A preflight load in pi's process with jiti (as pi loads extensions), then a check of the module's shape. The
// inline runner uses it (and tests and benches through it); the isolated runner preflights in a worker instead.
// jiti resolves, wraps and evaluates the module; its transform step is handed esbuild's output for that file, so the
// code that is preflighted is exactly the code that will run (and babel's few milliseconds are saved).
import { createJiti, type Jiti } from "jiti";
import { ForgeError, fail } from "../contract/forge-error.ts";
import { checkShape, type PreflightLoader } from "../contract/module-shape.ts";
import { createPositionMapper } from "../contract/source-map.ts";
import { mapStack } from "../contract/stack.ts";
import { locateTypebox } from "./typebox.ts";

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
