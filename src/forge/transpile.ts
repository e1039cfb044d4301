// The forge's transpile step (order: toolbox/forge-pipeline.ts): transpile with esbuild. Syntax errors come back with
// their line and column in `forge-<name>.ts`.
import { type Message, type TransformOptions, transform } from "esbuild";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";

export interface CompiledCode {
	code: string;
	/** Source map (JSON text) back to the lines of `forge-<name>.ts`. */
	map: string;
}

export interface Transpiled {
	/** CommonJS, run by the runners; every `import()` in it is a call of `require`. */
	cjs: CompiledCode;
	/** ES module with every value import kept, read by the import analysis. */
	esm: CompiledCode;
}

const COMMON: TransformOptions = { loader: "ts", target: "node20", sourcemap: "external", sourcesContent: false };

export async function transpile(source: string, file: string): Promise<Result<Transpiled>> {
	try {
		const [cjs, esm] = await Promise.all([
			// `import("x")` becomes a promise of `require("x")`: the runners' require is the only way a tool gets a
			// module.
			transform(source, { ...COMMON, sourcefile: file, format: "cjs", supported: { "dynamic-import": false } }),
			transform(source, {
				...COMMON,
				sourcefile: file,
				format: "esm",
				tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
			}),
		]);
		return ok({ cjs: { code: cjs.code, map: cjs.map }, esm: { code: esm.code, map: esm.map } });
	} catch (error) {
		const messages = (error as { errors?: Message[] }).errors;
		if (!messages?.length) throw error;
		return fail(syntaxError(messages, file, source));
	}
}

function syntaxError(messages: Message[], file: string, source: string): ForgeError {
	const [first, ...rest] = messages;
	const location = first.location
		? { file, line: first.location.line, column: characterColumn(first.location) }
		: undefined;
	const notes = rest
		.slice(0, 5)
		.map((m) => `${m.location ? `${file}:${m.location.line}:${characterColumn(m.location)}: ` : ""}${m.text}`);
	return new ForgeError("syntax", first.text, { location, notes, source, hint: syntaxHint(first) });
}

/** esbuild counts columns in UTF-8 bytes; the model reads characters. 1-based. */
function characterColumn(location: NonNullable<Message["location"]>): number {
	return Buffer.from(location.lineText, "utf8").subarray(0, location.column).toString("utf8").length + 1;
}

function syntaxHint(message: Message): string {
	const line = message.location?.lineText.trim() ?? "";
	if (/^export\b/.test(line) || /^(async\s+)?function\s+execute\b/.test(line)) {
		return "logic is the body of execute only: send the statements inside the function, not a module or a function declaration.";
	}
	if (/^import\b/.test(line)) {
		return 'Put each import on its own single line at the very top of logic (they are moved to the module header), or use `await import("node:fs")`.';
	}
	return "Fix the syntax at that line and call forge_tool again with the complete corrected logic.";
}
