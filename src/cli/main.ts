// `agent-forge`: the toolbox from outside pi — list, show, history, diff, check (for CI of a shared toolbox),
// rollback, remove, export as a pi package, import. Same core code as pi's /forge.
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { formatForModel, formatForPerson } from "../errors/format.ts";
import { exportPackage, importTools } from "../share/package.ts";
import { checkToolbox } from "../toolbox/check.ts";
import { type OpenedToolbox, openToolbox } from "../toolbox/open-toolbox.ts";
import { historyTable, toolboxTable, toolDetails } from "../ui/views.ts";

export interface Io {
	out(text: string): void;
	err(text: string): void;
}

const USAGE = `Usage: agent-forge <command> [arguments] [--cwd <project>] [--json]

Commands:
  list [query]               the toolbox as a table (best matches first with a query)
  show <tool>                one tool: metadata, health, history and source
  history <tool>             every stored version of a tool
  diff <tool> [from] [to]    what changed between two versions (default: previous → current)
  check [tools…]             re-check every tool as the forge would; exit 1 if any is broken
  test <tool>                run a tool's tests; exit 1 if one fails
  rollback <tool> <version>  make an earlier version current again
  remove <tool>              remove a tool (its history is kept)
  export <dir> [tools…]      write the tools (default: every healthy one) as a pi package
  import <dir> [tools…]      bring tools from an exported package or another toolbox (--force replaces)

The toolbox is $PI_FORGE_DIR, else <project>/.pi/forge/extensions.`;

type Command = (args: string[], opened: OpenedToolbox, flags: { json: boolean; force: boolean }, io: Io) => Promise<number>;

const COMMANDS: Record<string, { min: number; run: Command }> = {
	list: {
		min: 0,
		run: async (args, { toolbox }, { json }, io) => {
			const { tools } = toolbox.list(args.join(" ") || undefined, 10_000);
			io.out(json ? JSON.stringify(tools.map(({ entry, health, state }) => ({ name: entry.name, version: entry.version, state, description: entry.description, calls: health?.calls ?? 0, failures: health?.failures ?? 0, lastUsedAt: health?.lastUsedAt ?? null })), null, 2) : toolboxTable(tools, new Date(), process.stdout.columns || 120));
			return 0;
		},
	},
	show: {
		min: 1,
		run: async ([name], { toolbox }, _flags, io) => {
			const view = toolbox.view(name);
			if (!view) return fail(io, `There is no forged tool named '${name}'.`);
			io.out(toolDetails(view, await toolbox.store.readSource(name), await toolbox.versions(name), new Date()));
			return 0;
		},
	},
	history: {
		min: 1,
		run: async ([name], { toolbox }, _flags, io) => (io.out(historyTable(name, await toolbox.versions(name), new Date())), 0),
	},
	diff: {
		min: 1,
		run: async ([name, from, to], { toolbox }, _flags, io) => {
			const b = to ? Number(to) : (toolbox.get(name)?.version ?? 0);
			const a = from ? Number(from) : b - 1;
			const diff = await toolbox.diff(name, a, b);
			if (!diff.ok) return fail(io, formatForPerson(diff.error));
			io.out(diff.value);
			return 0;
		},
	},
	check: {
		min: 0,
		run: async (names, { toolbox }, { json }, io) => {
			const verdicts = await checkToolbox(toolbox, names);
			if (json) io.out(JSON.stringify(verdicts, null, 2));
			else {
				for (const v of verdicts) {
					const where = v.error?.location ? ` at ${v.error.location.file}:${v.error.location.line}:${v.error.location.column}` : "";
					io.out(v.ok ? `✓ ${v.name} v${v.version}${v.edited ? " (edited by hand)" : ""}` : `✗ ${v.name}${v.version ? ` v${v.version}` : ""}: ${v.error?.phase}${where} — ${v.error?.message.split("\n")[0]}`);
				}
				const broken = verdicts.filter((v) => !v.ok).length;
				io.out(`${verdicts.length - broken} passed, ${broken} failed`);
			}
			return verdicts.every((v) => v.ok) ? 0 : 1;
		},
	},
	test: {
		min: 1,
		run: async ([name], { toolbox }, { json }, io) => {
			const result = await toolbox.runTests(name);
			if (!result.ok) return fail(io, formatForPerson(result.error));
			if (json) io.out(JSON.stringify(result.value.map(({ test, pass, expected, actual }) => ({ test, pass, expected, actual })), null, 2));
			else {
				for (const v of result.value) io.out(`${v.pass ? "✓" : "✗"} ${v.test.name ?? `test ${v.index + 1}`} ${JSON.stringify(v.test.args)}${v.pass ? "" : `: expected ${v.expected}, got ${v.actual}`}`);
				io.out(`${result.value.filter((v) => v.pass).length} passed, ${result.value.filter((v) => !v.pass).length} failed`);
			}
			return result.value.every((v) => v.pass) ? 0 : 1;
		},
	},
	rollback: {
		min: 2,
		run: async ([name, version], { toolbox }, _flags, io) => {
			const result = await toolbox.rollback(name, Number(version));
			if (!result.ok) return fail(io, formatForModel(result.error));
			io.out(`Rolled '${name}' back to v${version}: it is now v${result.value.meta.version}.`);
			return 0;
		},
	},
	remove: {
		min: 1,
		run: async ([name], { toolbox }, _flags, io) => {
			const result = await toolbox.remove(name);
			if (!result.ok) return fail(io, formatForPerson(result.error));
			io.out(`Removed '${name}' (history kept: agent-forge rollback ${name} ${result.value.version} restores it).`);
			return 0;
		},
	},
	export: {
		min: 1,
		run: async ([dir, ...names], { toolbox }, _flags, io) => {
			const result = await exportPackage(toolbox, resolve(dir), names);
			if (!result.ok) return fail(io, formatForPerson(result.error));
			io.out(`Exported ${result.value.tools.length} tool(s) to ${result.value.dir}: ${result.value.tools.join(", ")}\nInstall it with: pi install ${result.value.dir}`);
			return 0;
		},
	},
	import: {
		min: 1,
		run: async ([dir, ...names], { toolbox }, { force }, io) => {
			const outcomes = await importTools(toolbox, resolve(dir), { names, force });
			for (const o of outcomes) {
				io.out(o.ok ? `✓ ${o.name} imported as v${o.version}` : o.skipped ? `- ${o.name} skipped: ${o.skipped}` : `✗ ${o.name}: ${formatForPerson(o.error!)}`);
			}
			if (outcomes.length === 0) io.out("No tools found there.");
			return outcomes.some((o) => !o.ok && !o.skipped) ? 1 : 0;
		},
	},
};

function fail(io: Io, message: string): number {
	io.err(message);
	return 1;
}

const consoleIo: Io = { out: (text) => console.log(text), err: (text) => console.error(text) };

/** Runs one command; resolves to the exit code (0 ok, 1 failed, 2 usage). */
export async function main(argv: string[], io: Io = consoleIo, env: Record<string, string | undefined> = process.env): Promise<number> {
	let parsed;
	try {
		parsed = parseArgs({ args: argv, allowPositionals: true, options: { cwd: { type: "string" }, json: { type: "boolean" }, force: { type: "boolean" }, help: { type: "boolean", short: "h" } } });
	} catch (error) {
		io.err(`${(error as Error).message}\n\n${USAGE}`);
		return 2;
	}
	const [name, ...args] = parsed.positionals;
	if (parsed.values.help || !name) {
		(name ? io.out : io.err)(USAGE);
		return parsed.values.help ? 0 : 2;
	}
	const command = COMMANDS[name];
	if (!command || args.length < command.min) {
		io.err(`${command ? `'${name}' needs ${command.min} argument(s).` : `Unknown command '${name}'.`}\n\n${USAGE}`);
		return 2;
	}
	const cwd = realpathSync(resolve(parsed.values.cwd ?? process.cwd()));
	let opened: OpenedToolbox | undefined;
	try {
		opened = await openToolbox(cwd, env);
		for (const problem of opened.problems) io.err(`warning: ${problem.message}`);
		return await command.run(args, opened, { json: parsed.values.json ?? false, force: parsed.values.force ?? false }, io);
	} catch (error) {
		io.err(`agent-forge: ${(error as Error).message}`);
		return 1;
	} finally {
		await opened?.toolbox.close();
	}
}
