// `npm run demo`: a scripted session in the real pi (no API key). The scripted model checks the toolbox, forges a tool
// with a mistake, reads the error, repairs it (with tests, so it is verified), uses it, calls it by name in the next
// prompt, and lists the toolbox.
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeTempDir, type PiRun, type ScriptStep, startPi, type ToolEvent } from "../test/helpers/pi-harness.ts";

const INDEX = fileURLToPath(new URL("../index.ts", import.meta.url));
const SAMPLES = fileURLToPath(new URL("../extensions/", import.meta.url));

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string) => (text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint("1");
const dim = paint("2");
const green = paint("32");
const red = paint("31");
const cyan = paint("36");

const csvSummary = {
	name: "csv-summary",
	description: "Summarise a CSV file of the project: row count, columns, and the sum of every numeric column.",
	parametersSchema: {
		type: "object",
		properties: { path: { type: "string", description: "CSV file, relative to the project" } },
		required: ["path"],
	},
	// The scripted model's first attempt reads `params.file`, which the schema does not have.
	logic: [
		'import { readFile } from "node:fs/promises";',
		'import { resolve } from "node:path";',
		'const [header, ...rows] = (await readFile(resolve(ctx.cwd, params.file), "utf8")).trim().split("\\n");',
		'const columns = header.split(",");',
		"const sums: Record<string, number> = {};",
		"for (const row of rows) {",
		'\trow.split(",").forEach((cell, i) => {',
		'\t\tif (cell !== "" && !Number.isNaN(Number(cell))) sums[columns[i]] = (sums[columns[i]] ?? 0) + Number(cell);',
		"\t});",
		"}",
		"return { rows: rows.length, columns, sums };",
	].join("\n"),
};
const repaired = {
	...csvSummary,
	logic: csvSummary.logic.replace("params.file", "params.path"),
	tests: [{ args: { path: "data/sales.csv" }, expect: '"rows": 3' }],
};

async function main(): Promise<void> {
	const cwd = await makeTempDir("agent-forge-demo");
	const toolbox = join(cwd, ".pi", "forge", "extensions");
	await mkdir(toolbox, { recursive: true });
	await cp(SAMPLES, toolbox, { recursive: true });
	await mkdir(join(cwd, "data"));
	await writeFile(
		join(cwd, "data", "sales.csv"),
		"region,units,revenue\nnorth,12,340.5\nsouth,7,190\neast,21,610.25\n",
	);

	console.log(bold("Agent Forge demo: the real pi, a scripted model, no API key"));
	console.log(dim(`project  ${cwd}`));
	console.log(dim(`toolbox  ${toolbox} (seeded with the samples from extensions/)`));

	const pi = await startPi({ extensionPaths: [INDEX], cwd });
	try {
		await prompt(pi.run.bind(pi), "Summarise data/sales.csv. Check the toolbox first; forge a tool if none fits.", [
			[{ name: "list_forge", args: { query: "summarise csv file" } }],
			[{ name: "forge_tool", args: csvSummary }],
			({ lastToolResults }) => {
				if (!lastToolResults[0]?.isError) throw new Error("the demo expected the first attempt to fail");
				return [{ name: "forge_tool", args: repaired }];
			},
			[{ name: "use_forge_tool", args: { name: "csv-summary", args: { path: "data/sales.csv" } } }],
			{ text: "data/sales.csv has 3 rows; units sum to 40 and revenue to 1140.75." },
		]);
		await prompt(pi.run.bind(pi), "Now the same for a second file, and show me the toolbox.", [
			[{ name: "csv-summary", args: { path: "data/sales.csv" } }],
			[{ name: "list_forge", args: {} }],
			{ text: "csv-summary is now a tool of its own; the toolbox has four tools." },
		]);
	} finally {
		await pi.dispose();
	}
	console.log(`\n${green("Demo finished.")} ${dim(`The forged files are in ${toolbox}`)}`);
}

async function prompt(
	run: (prompt: string, steps: ScriptStep[]) => Promise<PiRun>,
	text: string,
	steps: ScriptStep[],
): Promise<void> {
	console.log(`\n${bold(cyan("user ▸"))} ${text}`);
	const result = await run(text, steps);
	result.toolEvents.forEach((event, i) => {
		printToolEvent(event, result.toolNamesSeen[i]);
	});
}

function printToolEvent(event: ToolEvent, offered: string[] | undefined): void {
	const args = JSON.stringify(event.args);
	const shownArgs = args.length > 110 ? `${args.slice(0, 107)}…` : args;
	const direct =
		offered?.includes(event.toolName) && !["forge_tool", "use_forge_tool", "list_forge"].includes(event.toolName);
	console.log(
		`\n  ${bold("model ▸")} ${event.toolName}${direct ? dim(" (a forged tool, called directly)") : ""} ${dim(shownArgs)}`,
	);
	const mark = event.isError ? red("✗ error") : green("✓");
	const lines = event.text.split("\n");
	const shown = event.isError
		? lines.slice(0, lines.findIndex((l) => l.startsWith("Source of")) >>> 0).slice(0, 14)
		: lines.slice(0, 12);
	console.log(`    ${mark}`);
	for (const line of shown) console.log(`    ${event.isError ? red("│") : dim("│")} ${line}`);
	if (lines.length > shown.length)
		console.log(
			`    ${dim(`│ … ${lines.length - shown.length} more line(s) (the source of the tool, for the repair)`)}`,
		);
}

await main();
