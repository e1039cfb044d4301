// What each `agent-forge` command does with an opened toolbox; resolves to the exit code (0 ok, 1 failed).
// Arguments arrive checked by parse-args.ts (count, flags, versions).
import { resolve } from "node:path";
import { formatForModel, formatForPerson } from "../contract/error-format.ts";
import type { Result } from "../contract/forge-error.ts";
import { exportPackage, importTools } from "../share/package.ts";
import { grantCapability, listGrants, revokeCapability } from "../toolbox/grants.ts";
import type { OpenedToolbox } from "../toolbox/open-toolbox.ts";
import type { Moved } from "../toolbox/toolboxes.ts";
import { parseVersion } from "../ui/version.ts";
import { historyTable, toolboxTable, toolDetails } from "../ui/views.ts";
import type { CommandName } from "./parse-args.ts";

export interface Io {
	out(text: string): void;
	err(text: string): void;
}

export interface CommandInput {
	args: string[];
	json: boolean;
	force: boolean;
}

type Command = (input: CommandInput, opened: OpenedToolbox, io: Io) => Promise<number>;

function fail(io: Io, message: string): number {
	io.err(message);
	return 1;
}

const noSuchTool = (name: string) => `There is no forged tool named '${name}'.`;
/** parse-args.ts has already refused anything that is not a version. */
const version = (text: string) => parseVersion(text) ?? 0;

/** What a promote or demote did. */
function moved(result: Result<Moved>, io: Io): number {
	if (!result.ok) return fail(io, formatForPerson(result.error));
	const { name, version, to, versions, replaced } = result.value;
	const where = to === "user" ? "the user toolbox (every project sees it)" : "the project toolbox";
	const replacing = replaced ? `; it replaced the v${replaced} that was there` : "";
	io.out(
		`Moved '${name}' v${version} to ${where}, with ${versions} stored version${versions === 1 ? "" : "s"}${replacing}.`,
	);
	return 0;
}

export const RUN: Record<CommandName, Command> = {
	list: async ({ args, json }, { toolboxes: toolbox }, io) => {
		const { tools } = toolbox.list(args.join(" ") || undefined, 10_000);
		io.out(
			json
				? JSON.stringify(
						tools.map(({ entry, health, state, scope }) => ({
							name: entry.name,
							version: entry.version,
							state,
							scope,
							description: entry.description,
							calls: health?.calls ?? 0,
							failures: health?.failures ?? 0,
							lastUsedAt: health?.lastUsedAt ?? null,
						})),
						null,
						2,
					)
				: toolboxTable(tools, new Date(), process.stdout.columns || 120),
		);
		return 0;
	},

	show: async ({ args: [name] }, { toolboxes: toolbox }, io) => {
		const view = toolbox.view(name);
		if (!view) return fail(io, noSuchTool(name));
		io.out(toolDetails(view, await toolbox.readSource(name), await toolbox.versions(name), new Date()));
		return 0;
	},

	history: async ({ args: [name] }, { toolboxes: toolbox }, io) => {
		const [entries, live] = [await toolbox.versions(name), toolbox.get(name)];
		if (entries.length === 0 && !live) return fail(io, noSuchTool(name));
		if (entries.length === 0) {
			io.out(
				`No stored versions of '${name}' yet; the live one is v${live!.version}. Versions are recorded when pi, or a command that changes the toolbox, opens it.`,
			);
			return 0;
		}
		const last = entries.at(-1)!;
		const unrecorded =
			live && (last.version !== live.version || last.event === "removed")
				? `\n  v${live.version}  live, not yet recorded (it is when pi next opens the toolbox)`
				: "";
		io.out(historyTable(name, entries, new Date()) + unrecorded);
		return 0;
	},

	diff: async ({ args: [name, from, to] }, { toolboxes: toolbox }, io) => {
		const stored = await toolbox.versions(name);
		const newest = toolbox.get(name)?.version ?? stored.at(-1)?.version;
		if (newest === undefined) return fail(io, noSuchTool(name));
		const b = to ? version(to) : newest;
		const a = from ? version(from) : b - 1;
		if (a < 1)
			return fail(
				io,
				`'${name}' has no version before v${b}: give two versions to compare (agent-forge diff ${name} <from> <to>).`,
			);
		const diff = await toolbox.diff(name, a, b);
		if (!diff.ok) return fail(io, formatForPerson(diff.error));
		io.out(diff.value);
		return 0;
	},

	test: async ({ args: [name], json }, { toolboxes: toolbox }, io) => {
		const result = await toolbox.runTests(name);
		if (!result.ok) return fail(io, formatForPerson(result.error));
		const verdicts = result.value;
		if (json)
			io.out(
				JSON.stringify(
					verdicts.map(({ test, pass, expected, actual }) => ({ test, pass, expected, actual })),
					null,
					2,
				),
			);
		if (verdicts.length === 0) {
			return fail(
				io,
				`'${name}' is a draft: it has no tests, so nothing was run and it cannot be verified. Re-forge it with tests (forge_tool … "tests": [{ "args": {…}, "expect": "…" }]).`,
			);
		}
		const failed = verdicts.filter((v) => !v.pass).length;
		if (!json) {
			for (const v of verdicts)
				io.out(
					`${v.pass ? "✓" : "✗"} ${v.test.name ?? `test ${v.index + 1}`} ${JSON.stringify(v.test.args)}${v.pass ? "" : `: expected ${v.expected}, got ${v.actual}`}`,
				);
			io.out(`${verdicts.length - failed} passed, ${failed} failed`);
			if (failed === 0 && !toolbox.get(name)?.verified)
				io.out(
					`Not recorded: agent-forge test only reads the toolbox; '${name}' shows as verified once /forge test ${name} passes in pi.`,
				);
		}
		return failed === 0 ? 0 : 1;
	},

	check: async ({ args: names, json }, { toolboxes: toolbox }, io) => {
		const verdicts = await toolbox.check(names);
		if (json) io.out(JSON.stringify(verdicts, null, 2));
		else if (verdicts.length === 0) io.out("The toolbox is empty: nothing to check.");
		else {
			for (const v of verdicts) {
				const where = v.error?.location
					? ` at ${v.error.location.file}:${v.error.location.line}:${v.error.location.column}`
					: "";
				const tests = v.tests ? `${v.tests} test${v.tests === 1 ? "" : "s"} passed` : "draft: no tests";
				const edited = v.edited ? " (edited by hand)" : "";
				const user = v.scope === "user" ? " [user toolbox]" : "";
				io.out(
					v.ok
						? `✓ ${v.name} v${v.version}${user} (${tests}${v.edited ? ", edited by hand" : ""})`
						: `✗ ${v.name}${v.version ? ` v${v.version}` : ""}${user}${edited}: ${v.error?.phase}${where} — ${v.error?.message.split("\n")[0]}`,
				);
			}
			const broken = verdicts.filter((v) => !v.ok).length;
			io.out(`${verdicts.length - broken} passed, ${broken} failed`);
		}
		return verdicts.every((v) => v.ok) ? 0 : 1;
	},

	export: async ({ args: [dir, ...names] }, { toolbox }, io) => {
		const result = await exportPackage(toolbox, resolve(dir), names);
		if (!result.ok) return fail(io, formatForPerson(result.error));
		io.out(
			`Exported ${result.value.tools.length} tool(s) to ${result.value.dir}: ${result.value.tools.join(", ")}\nInstall it with: pi install ${result.value.dir}`,
		);
		return 0;
	},

	rollback: async ({ args: [name, to] }, { toolboxes: toolbox }, io) => {
		const result = await toolbox.rollback(name, version(to));
		if (!result.ok) return fail(io, formatForModel(result.error));
		io.out(`Rolled '${name}' back to v${version(to)}: it is now v${result.value.meta.version}.`);
		return 0;
	},

	remove: async ({ args: [name] }, { toolboxes: toolbox }, io) => {
		const callers = toolbox.callersOf(name);
		const result = await toolbox.remove(name);
		if (!result.ok) return fail(io, formatForPerson(result.error));
		io.out(`Removed '${name}' (history kept: agent-forge rollback ${name} v${result.value.version} restores it).`);
		if (callers.length)
			io.out(
				`'${name}' is called by ${callers.join(", ")} (through pi.useTool): their calls of it fail until it is back.`,
			);
		return 0;
	},

	import: async ({ args: [dir, ...names], force }, { toolbox }, io) => {
		const outcomes = await importTools(toolbox, resolve(dir), { names, force });
		for (const o of outcomes) {
			io.out(
				o.ok
					? `✓ ${o.name} imported as v${o.version}`
					: o.skipped
						? `- ${o.name} skipped: ${o.skipped}`
						: `✗ ${o.name}: ${formatForPerson(o.error!)}`,
			);
		}
		if (outcomes.length === 0) io.out("No tools found there.");
		return outcomes.some((o) => !o.ok && !o.skipped) ? 1 : 0;
	},

	promote: async ({ args: [name], force }, { toolboxes }, io) => moved(await toolboxes.promote(name, { force }), io),

	demote: async ({ args: [name], force }, { toolboxes }, io) => moved(await toolboxes.demote(name, { force }), io),

	// A capability with spaces (a shell line) may come quoted as one argument or as several words.
	grant: async ({ args: [name, ...capability] }, opened, io) => {
		const outcome = await grantCapability(opened, name, capability.join(" "));
		if (!outcome.ok) return fail(io, outcome.message);
		io.out(outcome.message);
		return 0;
	},

	revoke: async ({ args: [name, ...capability] }, opened, io) => {
		const outcome = await revokeCapability(opened, name, capability.length ? capability.join(" ") : undefined);
		if (!outcome.ok) return fail(io, outcome.message);
		io.out(outcome.message);
		return 0;
	},

	grants: async ({ args: [name] }, opened, io) => {
		io.out(await listGrants(opened, name));
		return 0;
	},
};
