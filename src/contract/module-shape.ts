// The shape a forged module must have once loaded: `metadata` ({ name, description, parameters }) and an `execute`
// function. Every runner checks a loaded module with `checkShape`, wherever it loaded it (pi's process, a worker).
import { ForgeError, fail, ok, type Result } from "./forge-error.ts";

export interface ModuleShape {
	name: string;
	description: string;
	parameters: Record<string, unknown>;
}

/**
 * Loads a staged module and checks its shape (a runner provides one). `map` (the esbuild source map of `cjs`) lets
 * a throw from top-level code be located in `forge-<name>.ts`.
 */
export type PreflightLoader = (
	stagedPath: string,
	cjs: string,
	expectedName: string,
	file: string,
	map?: string,
) => Promise<Result<ModuleShape>>;

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
