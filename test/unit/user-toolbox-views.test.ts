// How the scope of a tool is shown (list_forge, its detail, forge_tool's result, the /forge and CLI table, the widget),
// and the user toolbox's runner: the project's, with keys of its own.
import { describe, expect, it } from "vitest";
import { parseInvocation } from "../../src/cli/parse-args.ts";
import { ok } from "../../src/contract/forge-error.ts";
import { scopeLines } from "../../src/pi/forge-tool.ts";
import { formatListing } from "../../src/pi/list-forge.ts";
import { formatToolDetail } from "../../src/pi/tool-detail.ts";
import type { Runner, RunRequest } from "../../src/run/runner.ts";
import type { RegistryEntry } from "../../src/store/registry.ts";
import { userRunner } from "../../src/toolbox/toolboxes.ts";
import { toolboxTable, toolDetails } from "../../src/ui/views.ts";
import { widgetLines } from "../../src/ui/widget.ts";

const now = new Date("2026-01-01T12:00:00Z");
const entry = (name: string, version = 1): RegistryEntry => ({
	name,
	description: `The ${name} tool.`,
	parameters: { type: "object", properties: {} },
	version,
	hash: `h-${name}`,
	updatedAt: "",
	status: "ok",
	stamps: {},
});

describe("the scope, as the model reads it", () => {
	it("list_forge marks a user tool, and a project tool that hides one", () => {
		const text = formatListing(
			{
				total: 2,
				matched: 2,
				tools: [
					{ entry: entry("greet"), state: "ok", scope: "project", hides: entry("greet", 4) },
					{ entry: entry("shout"), state: "ok", scope: "user" },
				],
			},
			undefined,
			now,
		);
		expect(text).toContain(
			"- greet v1 [ok, draft] The greet tool. — never used; hides the user toolbox's 'greet' v4",
		);
		expect(text).toContain("- shout v1 (user) [ok, draft] The shout tool. — never used");
	});

	it("list_forge with a name says the scope, and the namesake a project tool hides", () => {
		const base = { entry: entry("greet"), state: "ok" as const, tests: [], edited: false, path: "forge-greet.ts" };
		expect(formatToolDetail({ ...base, scope: "user" }, now)).toContain(
			'Scope: user (the user toolbox, seen from every project; to change it there, pass scope "user" to forge_tool)',
		);
		expect(formatToolDetail({ ...base, scope: "project", hides: { version: 2 } }, now)).toContain(
			"Scope: project (the user toolbox also has a 'greet', v2; this project's tool wins, so use_forge_tool runs this one here)",
		);
		expect(formatToolDetail(base, now)).not.toContain("Scope:");
		// The step to change it keeps it where it lives: without scope "user" a forge would make a hiding project copy.
		expect(formatToolDetail({ ...base, scope: "user" }, now)).toContain(
			'To change it: forge_tool with name "greet", scope "user", the description',
		);
		expect(formatToolDetail(base, now)).toContain('To change it: forge_tool with name "greet", the description');
	});

	it("forge_tool says where the tool went and which namesake this project uses", () => {
		const config = { userToolboxDir: "/agent/forge/extensions" };
		const user = { entry: entry("greet"), state: "ok" as const, scope: "user" as const };
		expect(scopeLines("user", user, config)).toEqual([
			"Scope: the user toolbox (/agent/forge/extensions): every project sees it, from its next call.",
		]);
		const project = { entry: entry("greet", 3), state: "ok" as const, scope: "project" as const };
		expect(scopeLines("user", project, config)[1]).toContain(
			"this project's toolbox has its own 'greet' (v3), and the project's tool wins a name clash",
		);
		expect(scopeLines("project", { ...project, hides: entry("greet", 2) }, config)).toEqual([
			"Note: the user toolbox's 'greet' (v2) is hidden in this project by this one (the project's tool wins a name clash); other projects still get the user toolbox's.",
		]);
		expect(scopeLines("project", project, config)).toEqual([]);
	});
});

describe("the scope, as a person reads it", () => {
	it("the table has a SCOPE column when the user toolbox has tools, and marks a tool that hides another", () => {
		const table = toolboxTable(
			[
				{ entry: entry("greet"), state: "ok", scope: "project", hides: { version: 1 } },
				{ entry: entry("shout"), state: "ok", scope: "user" },
			],
			now,
		);
		expect(table.split("\n")[0]).toMatch(/^TOOL\s+VER\s+STATE\s+SCOPE\s+CALLS/);
		expect(table).toMatch(/greet\s+v1\s+draft\s+project\*/);
		expect(table).toMatch(/shout\s+v1\s+draft\s+user /);
		expect(table).toContain("* hides the user toolbox's tool of the same name");
		expect(toolboxTable([{ entry: entry("greet"), state: "ok" }], now)).not.toContain("SCOPE");
		expect(toolboxTable([{ entry: entry("greet"), state: "ok", scope: "project" }], now)).not.toContain("SCOPE");
	});

	it("/forge show and agent-forge show name the scope", () => {
		expect(toolDetails({ entry: entry("shout"), state: "ok", scope: "user" }, undefined, [], now)).toContain(
			"Scope: user (the user toolbox: every project sees it)",
		);
	});

	it("the widget counts the tools from the user toolbox, only when there are some", () => {
		const state = { total: 3, broken: [], quarantined: [], executing: [] };
		expect(widgetLines({ ...state, user: 2 }, now)[0]).toBe("Evolved Tools: 3 (3 ok) · 2 from the user toolbox");
		expect(widgetLines(state, now)[0]).toBe("Evolved Tools: 3 (3 ok)");
	});

	it("agent-forge promote and demote take a tool and --force", () => {
		expect(parseInvocation(["promote", "x", "--force"])).toMatchObject({
			command: "promote",
			args: ["x"],
			force: true,
		});
		expect(parseInvocation(["demote", "x"])).toMatchObject({ command: "demote", args: ["x"], force: false });
		expect(parseInvocation(["promote"])).toEqual({
			kind: "usage-error",
			message: "missing arguments: agent-forge promote <tool>",
		});
	});
});

describe("userRunner", () => {
	it("runs and forgets the user toolbox's tools under keys of their own, passes the rest through, never disposes the shared runner", async () => {
		const seen: string[] = [];
		let disposed = false;
		const shared: Runner & { preflightReadsFile: boolean } = {
			kind: "fake",
			preflightReadsFile: true,
			preflight: async () => ok({ name: "x", description: "", parameters: {} }),
			run: async (request: RunRequest) => {
				seen.push(`run ${request.tool.key}`);
				return ok({ output: { content: [], kind: "none" } as never });
			},
			forget: (name) => seen.push(`forget ${name}`),
			dispose: async () => {
				disposed = true;
			},
		};
		const runner = userRunner(shared);
		const tool = {
			name: "greet",
			hash: "h",
			file: "forge-greet.ts",
			path: "/p",
			code: { code: "", map: "" } as never,
		};
		await runner.run({ tool, params: {}, cwd: "/", timeoutMs: 1, host: { pi: {}, hasUI: false, notify() {} } });
		await runner.run({
			tool: { ...tool, key: "greet@tests" },
			params: {},
			cwd: "/",
			timeoutMs: 1,
			host: { pi: {}, hasUI: false, notify() {} },
		});
		runner.forget("greet");
		await runner.dispose();
		expect(seen).toEqual(["run user:greet", "run user:greet@tests", "forget user:greet"]);
		expect(disposed).toBe(false);
		expect(runner.kind).toBe("fake");
		expect((runner as Runner & { preflightReadsFile?: boolean }).preflightReadsFile).toBe(true);
		expect((await runner.preflight("/p", "", "greet", "forge-greet.ts")).ok).toBe(true);
	});
});
