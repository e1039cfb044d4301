// `/forge`: the toolbox for a person — a table, one tool in detail, its history and diffs, roll-back, removal, tests
// and grants — with tool names completed. Output is shown in the chat as an Agent Forge message (FORGE_MESSAGE);
// index.ts's `context` hook takes those messages out of what the model is sent.
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { AutocompleteItem } from "@earendil-works/pi-tui";
import type { ForgeConfig } from "../contract/config.ts";
import { formatForPerson } from "../contract/error-format.ts";
import type { Result } from "../contract/forge-error.ts";
import { GRANT_FORMS } from "../policy/grant-key.ts";
import { inertText } from "../policy/terminal-text.ts";
import { describeSandbox } from "../run/isolated/parent/os-sandbox.ts";
import { grantCapability, listGrants, revokeCapability } from "../toolbox/grants.ts";
import type { OpenedToolbox } from "../toolbox/open-toolbox.ts";
import type { Moved } from "../toolbox/toolboxes.ts";
import { parseVersion } from "../ui/version.ts";
import { historyTable, toolboxTable, toolDetails } from "../ui/views.ts";
import type { ForgeSession } from "./forge-session.ts";
import { currentListing } from "./list-forge.ts";
import { untrustedNote } from "./project-trust.ts";

export const FORGE_MESSAGE = "agent-forge";

interface Subcommand {
	usage: string;
	summary: string;
	/** Whether its first argument is a tool name (for completion). */
	takesTool: boolean;
	/** `rest`: what followed the tool's name, as typed (a capability may hold spaces). */
	run(args: string[], opened: OpenedToolbox, ctx: ExtensionCommandContext, rest: string): Promise<string>;
}

const SUBCOMMANDS: Record<string, Subcommand> = {
	list: {
		usage: "/forge list [query]",
		summary: "the toolbox as a table (best matches first with a query)",
		takesTool: false,
		// What confines the tools comes first: a person should not have to look for the absence of an OS sandbox.
		run: async (args, { toolboxes: toolbox, runner, config }) => {
			const { listing, rechecking } = await currentListing(toolbox, args.join(" ") || undefined, 500);
			const note = rechecking ? `\n${rechecking} tool(s) changed on disk are still being re-checked.` : "";
			const trust = untrustedNote(config);
			const status = [describeSandbox(await runner.sandbox()), policyLine(config), ...(trust ? [trust] : [])];
			return `${status.join("\n")}\n\n${toolboxTable(listing.tools, new Date())}${note}`;
		},
	},
	show: {
		usage: "/forge show <tool>",
		summary: "metadata, health, history and source of one tool",
		takesTool: true,
		run: async ([name], { toolboxes: toolbox }) => {
			await toolbox.fresh(name);
			const view = toolbox.view(name);
			if (!view)
				return unknownTool(
					name,
					toolbox.entries().map((e) => e.name),
				);
			return toolDetails(view, await toolbox.readSource(name), await toolbox.versions(name), new Date());
		},
	},
	history: {
		usage: "/forge history <tool>",
		summary: "every stored version of a tool",
		takesTool: true,
		run: async ([name], { toolboxes: toolbox }) => historyTable(name, await toolbox.versions(name), new Date()),
	},
	diff: {
		usage: "/forge diff <tool> [from] [to]",
		summary: "what changed between two versions (default: the previous and the current one)",
		takesTool: true,
		run: async ([name, from, to], { toolboxes: toolbox }) => {
			const current =
				toolbox.get(name)?.version ?? Math.max(0, ...(await toolbox.versions(name)).map((e) => e.version));
			const b = to ? parseVersion(to) : current;
			const a = from ? parseVersion(from) : b && b - 1;
			if (a === undefined || b === undefined) return "A version is N or vN: /forge diff <tool> v2 v3";
			const diff = await toolbox.diff(name, a, b);
			return diff.ok ? diff.value : formatForPerson(diff.error);
		},
	},
	rollback: {
		usage: "/forge rollback <tool> <version>",
		summary: "make an earlier version current again (after the usual checks)",
		takesTool: true,
		run: async ([name, version], { toolboxes: toolbox }) => {
			const to = parseVersion(version ?? "");
			if (to === undefined)
				return "Which version (N or vN)? /forge rollback <tool> <version> (see /forge history <tool>)";
			const result = await toolbox.rollback(name, to);
			return result.ok
				? `Rolled '${name}' back to v${to}: it is now v${result.value.meta.version}.`
				: formatForPerson(result.error);
		},
	},
	remove: {
		usage: "/forge remove <tool>",
		summary: "remove a tool (its history is kept; /forge rollback brings it back)",
		takesTool: true,
		run: async ([name], { toolboxes: toolbox }, ctx) => {
			if (!toolbox.get(name))
				return unknownTool(
					name,
					toolbox.entries().map((e) => e.name),
				);
			if (ctx.hasUI && !(await ctx.ui.confirm("Remove forged tool", `Remove '${name}'? Its history is kept.`)))
				return "Kept.";
			const callers = toolbox.callersOf(name);
			const result = await toolbox.remove(name);
			if (!result.ok) return formatForPerson(result.error);
			return [`Removed '${name}'. It is no longer offered to the model.`, ...callersNote(name, callers)].join("\n");
		},
	},
	test: {
		usage: "/forge test <tool>",
		summary: "run a tool's tests now",
		takesTool: true,
		run: async ([name], { toolboxes: toolbox }) => {
			const result = await toolbox.runTests(name);
			if (!result.ok) return formatForPerson(result.error);
			if (result.value.length === 0)
				return `'${name}' has no tests (a draft). Ask the agent to re-forge it with tests.`;
			return [
				...result.value.map(
					(v) =>
						`${v.pass ? "✓" : "✗"} ${v.test.name ?? `test ${v.index + 1}`} ${JSON.stringify(v.test.args)}${v.pass ? "" : `: expected ${v.expected}, got ${v.actual}`}`,
				),
				`${result.value.filter((v) => v.pass).length} passed, ${result.value.filter((v) => !v.pass).length} failed`,
			].join("\n");
		},
	},
	promote: {
		usage: "/forge promote <tool> [--force]",
		summary: "move a project tool, with its history, to the user toolbox (every project sees it)",
		takesTool: true,
		run: async ([name, flag], { toolboxes }) => {
			if (!name) return "Which tool? /forge promote <tool> (see /forge list)";
			return movedText(await toolboxes.promote(name, { force: flag === "--force" }));
		},
	},
	demote: {
		usage: "/forge demote <tool> [--force]",
		summary: "move a user-toolbox tool, with its history, back into this project's toolbox",
		takesTool: true,
		run: async ([name, flag], { toolboxes }) => {
			if (!name) return "Which tool? /forge demote <tool> (see /forge list)";
			return movedText(await toolboxes.demote(name, { force: flag === "--force" }));
		},
	},
	grants: {
		usage: "/forge grants [tool]",
		summary: "capabilities remembered for the tools of this project",
		takesTool: true,
		run: async ([name], opened) => listGrants(opened, name),
	},
	grant: {
		usage: "/forge grant <tool> <capability>",
		summary: "let a tool's current version have a capability, from its next call",
		takesTool: true,
		run: async ([name], opened, _ctx, rest) => {
			if (!name || !rest.trim())
				return `Which tool and capability? /forge grant <tool> <capability> (capabilities: ${GRANT_FORMS})`;
			return (await grantCapability(opened, name, rest)).message;
		},
	},
	revoke: {
		usage: "/forge revoke <tool> [capability]",
		summary: "forget one grant of a tool, or all of them",
		takesTool: true,
		run: async ([name], opened, _ctx, rest) => {
			if (!name) return "Which tool? /forge revoke <tool> [capability] (see /forge grants)";
			return (await revokeCapability(opened, name, rest.trim() || undefined)).message;
		},
	},
	help: {
		usage: "/forge help",
		summary: "this help",
		takesTool: false,
		run: async () => helpText(),
	},
};

/** What a promote or demote did, for a person. */
export function movedText(result: Result<Moved>): string {
	if (!result.ok) return formatForPerson(result.error);
	const { name, version, to, versions, replaced } = result.value;
	const where = to === "user" ? "the user toolbox: every project sees it" : "this project's toolbox";
	const history = `${versions} stored version${versions === 1 ? "" : "s"} moved with it`;
	return `Moved '${name}' v${version} to ${where} (${history}${replaced ? `; it replaced the v${replaced} that was there` : ""}).`;
}

function helpText(): string {
	return [
		"Agent Forge — /forge commands:",
		...Object.values(SUBCOMMANDS).map((s) => `  ${s.usage.padEnd(34)} ${s.summary}`),
	].join("\n");
}

/** What removing a tool others call does to them (it is said after the removal, by /forge and agent-forge). */
export function callersNote(name: string, callers: readonly string[]): string[] {
	if (callers.length === 0) return [];
	return [
		`'${name}' is called by ${callers.join(", ")} (through pi.useTool): their calls of it fail until it is back (/forge rollback ${name}).`,
	];
}

function unknownTool(name: string | undefined, known: string[]): string {
	if (!name) return "Which tool? Name one (Tab completes).";
	return `There is no forged tool named '${name}'.${known.length ? ` Tools: ${known.join(", ")}` : ""}`;
}

/** `/forge show x` → { name: "show", args: ["x"] }; no argument means the table. */
export function parseForgeArgs(input: string): { name: string; args: string[] } {
	const [name = "list", ...args] = input.trim().split(/\s+/).filter(Boolean);
	return { name: name.toLowerCase(), args };
}

/** What follows the sub-command and the tool's name, as typed: `grant t shell:ls  -l` → "shell:ls  -l". */
export function afterTool(input: string): string {
	return /^\s*\S+\s+\S+\s?(.*)$/s.exec(input)?.[1] ?? "";
}

export function forgeCompletions(prefix: string, toolNames: string[]): AutocompleteItem[] | null {
	const parts = prefix.split(/\s+/);
	if (parts.length <= 1) {
		const items = Object.entries(SUBCOMMANDS)
			.filter(([name]) => name.startsWith(parts[0] ?? ""))
			// A trailing space after a sub-command that takes a tool, so the next Tab completes the tool's name.
			.map(([name, sub]) => ({ value: sub.takesTool ? `${name} ` : name, label: name, description: sub.summary }));
		return items.length ? items : null;
	}
	const sub = SUBCOMMANDS[parts[0].toLowerCase()];
	if (!sub?.takesTool || parts.length > 2) return null;
	// Nothing to offer once the name is complete: Enter then runs the command instead of accepting a completion.
	if (toolNames.includes(parts[1])) return null;
	const items = toolNames
		.filter((name) => name.startsWith(parts[1]))
		.map((name) => ({ value: `${parts[0]} ${name}`, label: name }));
	return items.length ? items : null;
}

/** The policy in effect and where it was set. */
function policyLine(config: Pick<ForgeConfig, "policy" | "policyFrom">): string {
	return `Policy: ${config.policy}${config.policyFrom ? ` (${config.policyFrom})` : ""}.`;
}

export function registerForgeCommand(pi: ExtensionAPI, session: ForgeSession): void {
	pi.registerCommand("forge", {
		description:
			"Agent Forge: the toolbox (list, show, history, diff, rollback, remove, promote, demote, grants, grant, revoke, help)",
		getArgumentCompletions: (prefix) =>
			forgeCompletions(prefix, session.current?.toolboxes.entries().map((e) => e.name) ?? []),
		handler: async (input, ctx) => {
			const { name, args } = parseForgeArgs(input);
			const sub = SUBCOMMANDS[name];
			let text: string;
			try {
				await session.toolboxFor(ctx);
				text = sub
					? await sub.run(args, session.current!, ctx, afterTool(input))
					: `Unknown sub-command '${name}'.\n${helpText()}`;
			} catch (error) {
				text = `Agent Forge: ${(error as Error).message.split("\n")[0]}`;
			}
			// Tool files may hold anything (they can be edited by hand): escape sequences are shown, never acted on.
			pi.sendMessage({ customType: FORGE_MESSAGE, content: inertText(text), display: true });
		},
	});
}
