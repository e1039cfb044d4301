// Sharing a toolbox as a pi package: export chosen tools into a folder a team can `pi install` (a package.json with
// a pi manifest, a generated extension entry, the tools), and import tools from such a folder or another toolbox.
import { readFileSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import type { TakenNames } from "../contract/names.ts";
import { jsonFileOf, parseToolFileName, tsFileOf } from "../contract/tool-files.ts";
import { readRegular } from "../store/safe-fs.ts";
import type { Toolbox } from "../toolbox/toolbox.ts";

const INDEX_TEMPLATE = fileURLToPath(new URL("../../templates/package-index.ts.tmpl", import.meta.url));

export interface ExportReport {
	dir: string;
	tools: string[];
}

/** Writes `outDir` as a pi package holding `names` (default: every healthy tool). Refuses broken tools. */
export async function exportPackage(
	toolbox: Toolbox,
	outDir: string,
	names: string[] = [],
	packageName?: string,
): Promise<Result<ExportReport>> {
	const chosen = names.length
		? names
		: toolbox
				.entries()
				.filter((e) => e.status === "ok")
				.map((e) => e.name);
	for (const name of chosen) {
		const entry = toolbox.get(name);
		if (!entry) return fail(new ForgeError("not-found", `There is no forged tool named '${name}'.`));
		if (entry.status !== "ok")
			return fail(
				new ForgeError("broken", `'${name}' is broken and cannot be exported; repair it first.`, { tool: name }),
			);
	}
	if (chosen.length === 0) return fail(new ForgeError("not-found", "There is no healthy tool to export."));
	await mkdir(join(outDir, "tools"), { recursive: true });
	for (const name of chosen) {
		const { source, metaText: meta } = await toolbox.readTool(name);
		await Promise.all([
			writeFile(join(outDir, "tools", tsFileOf(name)), source!),
			writeFile(join(outDir, "tools", jsonFileOf(name)), meta!),
		]);
	}
	const name =
		packageName ??
		`${
			basename(outDir)
				.toLowerCase()
				.replace(/[^a-z0-9-]+/g, "-") || "forged"
		}-tools`;
	const manifest = {
		name,
		version: "1.0.0",
		description: `Forged tools: ${chosen.join(", ")}`,
		type: "module",
		keywords: ["pi-package", "agent-forge"],
		pi: { extensions: ["./index.ts"] },
		files: ["index.ts", "tools", "README.md"],
	};
	await writeFile(join(outDir, "package.json"), `${JSON.stringify(manifest, null, "\t")}\n`);
	await writeFile(join(outDir, "index.ts"), readFileSync(INDEX_TEMPLATE, "utf8"));
	const readme = [
		`# ${name}`,
		"",
		"Tools forged with Agent Forge, as a pi package.",
		"",
		"```bash",
		`pi install ${outDir}`,
		"```",
		"",
		...chosen.map((tool) => `- \`${tool}\` — ${toolbox.get(tool)!.description}`),
		"",
	];
	await writeFile(join(outDir, "README.md"), readme.join("\n"));
	return ok({ dir: outDir, tools: chosen });
}

export interface ImportOutcome {
	name: string;
	ok: boolean;
	version?: number;
	error?: ForgeError;
	skipped?: string;
}

/** Imports the tools of an exported package (its `tools/`) or of another toolbox folder. Existing names are skipped unless `force`. */
export async function importTools(
	toolbox: Toolbox,
	from: string,
	options: { names?: string[]; force?: boolean; takenNames?: TakenNames } = {},
): Promise<ImportOutcome[]> {
	const dir = await readdir(join(from, "tools")).then(
		() => join(from, "tools"),
		() => from,
	);
	const names = (await readdir(dir)).flatMap((file) => {
		const parsed = parseToolFileName(file);
		return parsed?.kind === "json" ? [parsed.name] : [];
	});
	const wanted = options.names?.length ? names.filter((name) => options.names!.includes(name)) : names;
	const outcomes: ImportOutcome[] = [];
	for (const name of wanted) {
		if (toolbox.get(name) && !options.force) {
			outcomes.push({
				name,
				ok: false,
				skipped: "a tool of that name is already in the toolbox (use --force to replace it)",
			});
			continue;
		}
		// The files are read without following a link: a package or folder from elsewhere may hold one to any file.
		let source: string | undefined;
		let metaText: string | undefined;
		try {
			[source, metaText] = await Promise.all([
				readRegular(join(dir, tsFileOf(name))),
				readRegular(join(dir, jsonFileOf(name))),
			]);
		} catch (error) {
			const reason = (error as Error).message;
			outcomes.push({ name, ok: false, error: new ForgeError("load", `${reason}: not imported.`, { tool: name }) });
			continue;
		}
		if (source === undefined || metaText === undefined) {
			outcomes.push({
				name,
				ok: false,
				error: new ForgeError(
					"load",
					`${source === undefined ? tsFileOf(name) : jsonFileOf(name)} is missing in ${dir}.`,
					{
						tool: name,
					},
				),
			});
			continue;
		}
		const result = await toolbox.importTool(source, metaText, options.takenNames ?? new Map());
		outcomes.push(
			result.ok ? { name, ok: true, version: result.value.meta.version } : { name, ok: false, error: result.error },
		);
	}
	return outcomes;
}
