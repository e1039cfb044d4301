// The shape of src/: dependencies point one way along the path of a forge, files stay small, and effects stay at the
// edges. Read from the sources themselves, so a change that breaks a rule fails here with the file and the import.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { tokenizer } from "acorn";
import { transformSync } from "esbuild";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "..", "src");

/** The path of a forge, bottom first. A folder may import only folders of a lower rank. */
const RANKS: Record<string, number> = {
	contract: 0, // the forged-tool contract: names, files and hashes, allowed modules, module shape, tests, errors
	security: 1, // secret patterns and redaction
	schema: 2, // parameter schemas and argument validation
	forge: 3, // the checks a forge runs
	store: 4, // the toolbox on disk
	run: 5, // running tools: inline, isolated (parent, host, worker)
	policy: 6, // the capability gate: decide, protected locations, ask, remember, audit
	toolbox: 7, // the facade over the parts above
	ui: 8,
	share: 8,
	cli: 9,
	pi: 9,
	"config.ts": 8, // reads the environment once; the composition root (index.ts, cli) passes it down
};

const MAX_LINES = 300;
/** Files that may read process.env: the config, and the entry points of the runner's own processes. */
const ENV_READERS = [/^config\.ts$/, /^run\/isolated\/(host|worker)\//];
/** Folders whose files may touch the disk: the stores, the runners, the policy's stores and the surfaces. */
const FS_FOLDERS = new Set(["store", "run", "policy", "pi", "cli", "share", "config.ts"]);

function sourceFiles(dir = SRC): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith(".ts") ? [relative(SRC, path)] : [];
	});
}

const folderOf = (file: string) => file.split("/")[0];
/** Static imports and re-exports, and dynamic imports outside strings (no quote before them on their line). */
const specifiers = (text: string) =>
	[
		...text.matchAll(
			/(?:^|\n)\s*(?:import|export)[^"';]*?from\s*["']([^"']+)["']|(?:^|\n)[^\n"'`]*?\bimport\(\s*["']([^"']+)["']\s*\)/g,
		),
	].map((match) => match[1] ?? match[2]);

/** Whether the code (not its comments or strings) reads `process.env`: the file's JavaScript, token by token. */
function readsProcessEnv(text: string): boolean {
	if (!/process\.env\b/.test(text)) return false;
	const { code } = transformSync(text, { loader: "ts", format: "esm" });
	const tokens = [...tokenizer(code, { ecmaVersion: "latest", sourceType: "module" })];
	const name = (i: number) =>
		tokens[i]?.type.label === "name" ? (tokens[i] as { value?: unknown }).value : undefined;
	return tokens.some((_, i) => name(i) === "process" && tokens[i + 1]?.type.label === "." && name(i + 2) === "env");
}

const files = sourceFiles();
const read = (file: string) => readFileSync(join(SRC, file), "utf8");

describe("the layers of src/", () => {
	it("every folder has a rank", () => {
		expect(files.map(folderOf).filter((folder) => RANKS[folder] === undefined)).toEqual([]);
	});

	it("no folder imports one of the same or a higher rank", () => {
		const wrong: string[] = [];
		for (const file of files) {
			for (const specifier of specifiers(read(file))) {
				if (!specifier.startsWith(".")) continue;
				const target = relative(SRC, normalize(join(SRC, dirname(file), specifier)));
				const [from, to] = [folderOf(file), folderOf(target)];
				if (from !== to && !(RANKS[to] < RANKS[from])) wrong.push(`${file} imports ${target}`);
			}
		}
		expect(wrong).toEqual([]);
	});

	it(`no file is over ${MAX_LINES} lines`, () => {
		const long = files
			.map((file) => ({ file, lines: read(file).split("\n").length }))
			.filter(({ lines }) => lines > MAX_LINES)
			.map(({ file, lines }) => `${file}: ${lines}`);
		expect(long).toEqual([]);
	});

	it("only the config and the runner's own processes read process.env", () => {
		const readers = files.filter((file) => readsProcessEnv(read(file)));
		expect(readers.filter((file) => !ENV_READERS.some((pattern) => pattern.test(file)))).toEqual([]);
	});

	it("only stores, runners and surfaces touch the disk", () => {
		const touching = files.filter((file) =>
			specifiers(read(file)).some((s) => /^(node:)?fs(\/promises)?$|^proper-lockfile$|^write-file-atomic$/.test(s)),
		);
		expect(touching.filter((file) => !FS_FOLDERS.has(folderOf(file)))).toEqual([]);
	});
});
