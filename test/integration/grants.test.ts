// Grants through the isolated runner: the dialog shows what runs (the whole shell line, the program's path, the
// environment changes, no terminal escapes); "Always" binds to that program, line, environment and version; a refusal
// names the exact command that grants it, and the grant holds from the next call without a restart; refusals never
// count towards quarantine.
import { chmodSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { formatForModel } from "../../src/contract/error-format.ts";
import type { ForgeError, Result } from "../../src/contract/forge-error.ts";
import { modelRedaction } from "../../src/pi/output.ts";
import type { RunHost } from "../../src/run/runner.ts";
import type { UseSuccess } from "../../src/toolbox/toolbox.ts";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host as noUI, toolRequest } from "../helpers/toolbox-fixture.ts";

const ENV = { PI_FORGE_TIMEOUT_MS: "5000", PI_FORGE_QUARANTINE_AFTER: "3" };
const RUN_SCHEMA = {
	type: "object",
	properties: {
		file: { type: "string" },
		args: { type: "array", items: { type: "string" } },
		env: { type: "object" },
		line: { type: "string" },
	},
};
/** Runs `params.line` through the shell, or `params.file` with `params.args` (and `params.env`). */
const RUNNER = [
	'import { execFileSync, execSync } from "node:child_process";',
	"const env = params.env;",
	'if (params.line) return execSync(params.line, { encoding: "utf8", env });',
	'return execFileSync(params.file, params.args ?? [], { encoding: "utf8", env });',
].join("\n");

let box: IsolatedBox;
let project: string;

/** A UI that answers with `answer` (or with each of `answers` in turn) and keeps every title it was shown. */
function ui(...answers: string[]) {
	const titles: string[] = [];
	const host: RunHost = {
		pi: {},
		hasUI: true,
		notify() {},
		select: async (title) => {
			titles.push(title);
			return answers.length > 1 ? answers.shift() : answers[0];
		},
	};
	return { host, titles };
}

async function forgeOk(name: string, logic: string, parametersSchema: unknown = RUN_SCHEMA): Promise<void> {
	const forged = await box.toolbox.forge(toolRequest(name, logic, { parametersSchema }), new Map());
	expect(forged.ok, forged.ok ? "" : `${forged.error.phase}: ${forged.error.message}`).toBe(true);
}

function text(result: Result<UseSuccess>): string {
	if (!result.ok) throw new Error(`expected success, got ${result.error.phase}: ${result.error.message}`);
	return result.value.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

function failure(result: Result<unknown>): ForgeError {
	if (result.ok) throw new Error("expected a failure");
	return result.error;
}

beforeAll(async () => {
	box = await isolatedToolbox(ENV);
	project = realpathSync(box.cwd);
});
afterAll(async () => {
	await box.toolbox.close();
	rmSync(box.cwd, { recursive: true, force: true });
	rmSync(dirname(dirname(box.grants.file)), { recursive: true, force: true });
});

describe("the dialog shows what runs", () => {
	it("a program: its resolved path, the command, the folder; Always is kept as exec:<that path>", async () => {
		await forgeOk("run-echo", RUNNER);
		const { host, titles } = ui("Always allow for this tool");
		expect(text(await box.toolbox.use("run-echo", { file: "echo", args: ["hello world"] }, { host }))).toBe(
			"hello world\n",
		);
		expect(titles[0]).toMatch(/^Forged tool 'run-echo' \(v1\) wants to run a command:\n/);
		expect(titles[0]).toContain("  command: echo 'hello world'");
		expect(titles[0]).toContain("  program: /usr/bin/echo");
		expect(titles[0]).toContain(`  in: ${project}`);
		expect(titles[0]).toContain(`"Always" allows /usr/bin/echo with any arguments for this version of 'run-echo'.`);
		expect(box.grants.entry(project, "run-echo").allow).toEqual(["exec:/usr/bin/echo"]);
		expect(text(await box.toolbox.use("run-echo", { file: "echo", args: ["again"] }, { host }))).toBe("again\n");
		expect(titles).toHaveLength(1);
	});

	it("a file of the same name the tool wrote is another program: asked again, and never run on the old grant", async () => {
		await forgeOk("run-echo", RUNNER);
		mkdirSync(join(box.cwd, "bin"), { recursive: true });
		writeFileSync(join(box.cwd, "bin", "echo"), "#!/bin/sh\necho impostor\n");
		chmodSync(join(box.cwd, "bin", "echo"), 0o755);
		const { host, titles } = ui("Deny");
		const error = failure(await box.toolbox.use("run-echo", { file: "./bin/echo", args: [] }, { host }));
		expect(error.phase).toBe("permission");
		// What a person just refused is not offered back to the model as a command to run.
		expect(error.details.grants).toBeUndefined();
		expect(error.details.hint).toContain("The user was asked and refused");
		expect(titles[0]).toContain(`  program: ${project}/bin/echo`);
		// The same name on a PATH that puts the project first: a changed environment and another program.
		const viaPath = failure(
			await box.toolbox.use(
				"run-echo",
				{ file: "echo", args: [], env: { PATH: `${project}/bin:/usr/bin:/bin` } },
				{ host },
			),
		);
		expect(viaPath.phase).toBe("permission");
		expect(titles[1]).toContain(`  program: ${project}/bin/echo`);
		expect(titles[1]).toContain(`    PATH=${project}/bin:/usr/bin:/bin (was `);
	});

	it("a shell line: the whole line; Always covers exactly that line, another line asks again", async () => {
		await forgeOk("run-line", RUNNER);
		const { host, titles } = ui("Always allow for this tool", "Deny");
		expect(text(await box.toolbox.use("run-line", { line: "echo one && echo two" }, { host }))).toBe("one\ntwo\n");
		expect(titles[0]).toContain("  shell line: echo one && echo two");
		expect(titles[0]).toContain("  program: /bin/sh -c <the line above>");
		expect(box.grants.entry(project, "run-line").allow).toEqual(["shell:echo one && echo two"]);
		expect(text(await box.toolbox.use("run-line", { line: "echo one && echo two" }, { host }))).toBe("one\ntwo\n");
		expect(titles).toHaveLength(1);
		expect(failure(await box.toolbox.use("run-line", { line: "echo one && touch pwned" }, { host })).phase).toBe(
			"permission",
		);
		expect(titles[1]).toContain("  shell line: echo one && touch pwned");
	});

	it("environment changes are shown, and a grant with one environment does not cover another", async () => {
		await forgeOk("run-env", RUNNER);
		const { host, titles } = ui("Always allow for this tool", "Deny");
		const env = {
			GIT_CONFIG_COUNT: "1",
			GIT_CONFIG_KEY_0: "core.pager",
			LD_PRELOAD: "",
			NODE_OPTIONS: "--require ./x.js",
		};
		expect(text(await box.toolbox.use("run-env", { file: "echo", args: ["x"], env }, { host }))).toBe("x\n");
		for (const line of [
			"    GIT_CONFIG_COUNT=1 (added)",
			"    GIT_CONFIG_KEY_0=core.pager (added)",
			"    LD_PRELOAD= (added)",
			"    NODE_OPTIONS=--require ./x.js (added)",
		])
			expect(titles[0]).toContain(line);
		expect(box.grants.entry(project, "run-env").allow[0]).toMatch(
			/^exec:\/usr\/bin\/echo env:GIT_CONFIG_COUNT,GIT_CONFIG_KEY_0,LD_PRELOAD,NODE_OPTIONS#[0-9a-f]{12}$/,
		);
		expect(
			failure(
				await box.toolbox.use(
					"run-env",
					{ file: "echo", args: ["x"], env: { ...env, NODE_OPTIONS: "--require ./y.js" } },
					{ host },
				),
			).phase,
		).toBe("permission");
		expect(titles).toHaveLength(2);
	});

	it("terminal escapes in a command never reach the dialog", async () => {
		await forgeOk("run-ansi", RUNNER);
		const { host, titles } = ui("Deny");
		await box.toolbox.use("run-ansi", { line: "echo \u001b]0;owned\u0007\u001b[2J" }, { host });
		await box.toolbox.use("run-ansi", { file: "echo", args: ["\u001b[31mred\u001b[0m"] }, { host });
		expect(titles).toHaveLength(2);
		for (const title of titles) expect(title).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
		expect(titles[0]).toContain("echo \\e]0;owned\\x07\\e[2J");
	});
});

describe("grants bind to the tool's version", () => {
	const READ_LOGIC =
		'import { readFileSync } from "node:fs";\nreturn readFileSync("/etc/hostname", "utf8").length > 0 ? "read" : "empty";';

	it("a re-forge with the same code keeps the grant; different code asks again", async () => {
		await forgeOk("read-host", READ_LOGIC, { type: "object", properties: {} });
		const { host, titles } = ui("Always allow for this tool", "Deny");
		expect(text(await box.toolbox.use("read-host", {}, { host }))).toBe("read");
		await forgeOk("read-host", READ_LOGIC, { type: "object", properties: {} });
		expect(text(await box.toolbox.use("read-host", {}, { host }))).toBe("read");
		expect(titles).toHaveLength(1);
		await forgeOk("read-host", `${READ_LOGIC}\n// changed`, { type: "object", properties: {} });
		expect(failure(await box.toolbox.use("read-host", {}, { host })).phase).toBe("permission");
		expect(titles).toHaveLength(2);
	});
});

describe("a refusal names the exact grant, and following it works from the next call", () => {
	it("the printed agent-forge grant command, run as printed, lets the next call through without a restart", async () => {
		await forgeOk(
			"host-name",
			'import { readFileSync } from "node:fs";\nreturn readFileSync("/etc/hostname", "utf8").trim().length > 0 ? "got it" : "empty";',
			{ type: "object", properties: {} },
		);
		const error = failure(await box.toolbox.use("host-name", {}, { host: noUI }));
		expect(error.phase).toBe("permission");
		expect(error.details.grants).toEqual([
			"agent-forge grant host-name read:/etc/hostname",
			`without agent-forge on the PATH: ${process.execPath} ${resolve(import.meta.dirname, "../../bin/agent-forge.mjs")} grant host-name read:/etc/hostname`,
			"in pi's TUI: /forge grant host-name read:/etc/hostname",
		]);
		// What the model reads: the capability exact (not shortened like the paths of the prose), no source listing.
		const shown = formatForModel(error, { redact: modelRedaction(box.toolbox.config) });
		expect(shown).toContain("\n  agent-forge grant host-name read:/etc/hostname\n");
		expect(shown).toContain("a permission to grant, not a fault in the code of 'host-name'");
		expect(shown).not.toContain("Source of");

		const command = error.details.grants![0].split(" ").slice(1);
		const out: string[] = [];
		const code = await main(
			[...command, "--cwd", box.cwd],
			{ out: (line) => out.push(line), err: (line) => out.push(line) },
			{ ...ENV, PI_CODING_AGENT_DIR: dirname(dirname(box.grants.file)) },
		);
		expect(code, out.join("\n")).toBe(0);
		expect(out.join("\n")).toContain("Granted read:/etc/hostname to 'host-name' v1");
		expect(text(await box.toolbox.use("host-name", {}, { host: noUI }))).toBe("got it");

		expect(
			await main(
				["revoke", "host-name", "read:/etc/hostname", "--cwd", box.cwd],
				{ out: () => undefined, err: () => undefined },
				{ ...ENV, PI_CODING_AGENT_DIR: dirname(dirname(box.grants.file)) },
			),
		).toBe(0);
		expect(failure(await box.toolbox.use("host-name", {}, { host: noUI })).phase).toBe("permission");
	});

	it("a shell line with quotes, granted by the printed command, runs", async () => {
		await forgeOk(
			"quoted",
			'import { execSync } from "node:child_process";\nreturn execSync("echo \'it works\' | tr a-z A-Z", { encoding: "utf8" });',
			{ type: "object", properties: {} },
		);
		const error = failure(await box.toolbox.use("quoted", {}, { host: noUI }));
		const printed = error.details.grants![0];
		expect(printed).toBe(String.raw`agent-forge grant quoted 'shell:echo '\''it works'\'' | tr a-z A-Z'`);
		// Through a real shell, as a model's bash tool would run it.
		const { execFileSync } = await import("node:child_process");
		const cli = join(import.meta.dirname, "../../bin/agent-forge.mjs");
		execFileSync("/bin/sh", ["-c", printed.replace(/^agent-forge/, `"${process.execPath}" "${cli}"`)], {
			cwd: box.cwd,
			env: { ...process.env, ...ENV, PI_CODING_AGENT_DIR: dirname(dirname(box.grants.file)) },
		});
		expect(text(await box.toolbox.use("quoted", {}, { host: noUI }))).toBe("IT WORKS\n");
	});

	it("no grant is offered where none can help (a protected location)", async () => {
		await forgeOk(
			"hooker",
			'import { writeFileSync } from "node:fs";\nwriteFileSync(".git/hooks/pre-commit", "x");\nreturn "done";',
			{ type: "object", properties: {} },
		);
		const error = failure(await box.toolbox.use("hooker", {}, { host: noUI }));
		expect(error.phase).toBe("permission");
		expect(error.details.grants).toBeUndefined();
	});
});

describe("agent-forge grants and /forge grants", () => {
	const cli = async (...argv: string[]) => {
		const out: string[] = [];
		const code = await main(
			[...argv, "--cwd", box.cwd],
			{ out: (line) => out.push(line), err: (line) => out.push(line) },
			{ ...ENV, PI_CODING_AGENT_DIR: dirname(dirname(box.grants.file)) },
		);
		return { code, text: out.join("\n") };
	};

	it("lists grants with the version they hold for, every key inert for the terminal", async () => {
		await forgeOk("listed", RUNNER);
		expect((await cli("grant", "listed", "shell:echo \u001b[2J\u001b]0;owned\u0007")).code).toBe(0);
		expect((await cli("grant", "listed", "exec:echo")).text).toContain(
			"Granted exec:/usr/bin/echo to 'listed' v1 ('echo' is /usr/bin/echo on PATH)",
		);
		const { code, text } = await cli("grants", "listed");
		expect(code).toBe(0);
		expect(text).toContain(
			"listed (allow holds for v1, the current version): allow shell:echo \\e[2J\\e]0;owned\\x07, exec:/usr/bin/echo; deny —",
		);
		expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
		// Keys written by hand that no capability will ever have are said to match nothing.
		const file = JSON.parse(readFileSync(box.grants.file, "utf8"));
		file.projects[project].listed.allow.push("exec:git", "read:relative/path");
		writeFileSync(box.grants.file, JSON.stringify(file));
		const listed = (await cli("grants", "listed")).text;
		expect(listed).toContain("exec:git (matches nothing: a program is kept by its path, e.g. exec:/usr/bin/git)");
		expect(listed).toContain("read:relative/path (matches nothing: not a capability)");
		await forgeOk("listed", `${RUNNER}\n// v2`);
		expect((await cli("grants", "listed")).text).toContain(
			"listed (allow holds for an earlier version (not the current one: it asks again))",
		);
	});

	it("refuses what is not a capability, or a tool that does not exist, saying why (exit 1)", async () => {
		expect(await cli("grant", "listed", "read:<outside the project>/hostname")).toEqual({
			code: 1,
			text: expect.stringContaining("needs an absolute path"),
		});
		expect(await cli("grant", "listed", "exec:no-such-program-here")).toEqual({
			code: 1,
			text: expect.stringContaining("is not found on PATH"),
		});
		expect(await cli("grant", "nope", "read:/etc/hostname")).toEqual({
			code: 1,
			text: expect.stringContaining("There is no forged tool named 'nope'"),
		});
		expect(await cli("revoke", "listed", "read:/never/granted")).toEqual({
			code: 1,
			text: expect.stringContaining("has no grant read:/never/granted"),
		});
	});
});

describe("refusals are not failures of the tool", () => {
	it("refused more times than quarantineAfter: still ok, no failure counted", async () => {
		await forgeOk(
			"refused",
			'import { readFileSync } from "node:fs";\nreturn readFileSync("/etc/hostname", "utf8");',
			{ type: "object", properties: {} },
		);
		for (let i = 0; i < 4; i++)
			expect(failure(await box.toolbox.use("refused", {}, { host: noUI })).phase).toBe("permission");
		expect(box.toolbox.view("refused")?.state).toBe("ok");
		expect(box.toolbox.healthOf("refused")).toMatchObject({ calls: 4, failures: 0, consecutiveFailures: 0 });
	});

	it("the control: a tool that throws is quarantined after quarantineAfter failures", async () => {
		await forgeOk("thrower", 'throw new Error("boom");', { type: "object", properties: {} });
		for (let i = 0; i < 3; i++) await box.toolbox.use("thrower", {}, { host: noUI });
		expect(box.toolbox.view("thrower")?.state).toBe("quarantined");
	});
});

describe("grants.json from before versions", () => {
	it("is migrated when the toolbox opens: exec:<name> bound to its path, exec:sh dropped, the version bound", async () => {
		const { openToolbox } = await import("../../src/toolbox/open-toolbox.ts");
		const { loadConfig } = await import("../../src/config.ts");
		const agentDir = dirname(dirname(box.grants.file));
		await forgeOk("legacy", RUNNER);
		const hash = box.toolbox.get("legacy")!.hash;
		writeFileSync(
			box.grants.file,
			JSON.stringify({ projects: { [project]: { legacy: { allow: ["exec:echo", "exec:sh"], deny: [] } } } }),
		);
		const opened = await openToolbox(loadConfig(box.cwd, { ...ENV, PI_CODING_AGENT_DIR: agentDir }));
		await opened.toolbox.close();
		expect(JSON.parse(readFileSync(box.grants.file, "utf8")).projects[project].legacy).toEqual({
			hash,
			allow: ["exec:/usr/bin/echo"],
			deny: [],
		});
	});
});
