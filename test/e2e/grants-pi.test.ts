// Permission refusals through the real pi, without a UI: the refusal names the exact command that grants it; a model
// that runs that command with pi's own bash tool, as printed, gets the next call through in the same session; the
// refusal is no failure of the tool; /forge grant and /forge revoke do the same from pi's command line.
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PiHarness, startPi, type ToolEvent } from "../helpers/pi-harness.ts";

const INDEX = resolve(import.meta.dirname, "../../index.ts");
const CLI = resolve(import.meta.dirname, "../../bin/agent-forge.mjs");
const NO_PARAMS = { type: "object", properties: {} };
const SECRET = "sk-grants-e2e-0123456789abcdef";

let pi: PiHarness;

async function call(toolName: string, args: Record<string, unknown>): Promise<ToolEvent> {
	const run = await pi.run(`call ${toolName}`, [[{ name: toolName, args }], { text: "ok" }]);
	return run.toolEvents[0];
}

async function forge(name: string, logic: string, parametersSchema: unknown = NO_PARAMS): Promise<void> {
	const forged = await call("forge_tool", { name, description: `The ${name} tool.`, parametersSchema, logic });
	expect(forged.isError, forged.text).toBe(false);
}

/** The command a refusal prints, as the model reads it: the line after "To grant it". */
function printedGrant(text: string): string {
	const lines = text.split("\n");
	const at = lines.findIndex((line) => line.startsWith("To grant it"));
	expect(at, text).toBeGreaterThan(0);
	return lines[at + 1].trim();
}

beforeAll(async () => {
	pi = await startPi({
		extensionPaths: [INDEX],
		env: { PI_FORGE_POLICY: "prompt", PI_FORGE_QUARANTINE_AFTER: "2", GRANTS_E2E_API_KEY: SECRET },
	});
});
afterAll(async () => pi?.dispose());

describe("a refusal a model can follow", () => {
	it("names the exact grant; running it with pi's bash tool lets the next call through, in the same session", async () => {
		await forge(
			"host-name",
			'import { readFileSync } from "node:fs";\nreturn "host: " + (readFileSync("/etc/hostname", "utf8").trim().length > 0);',
		);
		let printed = "";
		const run = await pi.run("read the host name", [
			[{ name: "use_forge_tool", args: { name: "host-name", args: {} } }],
			({ lastToolResults }) => {
				printed = printedGrant(lastToolResults[0].text);
				// Followed literally: the printed command, with agent-forge run from this repository.
				return [
					{ name: "bash", args: { command: printed.replace(/^agent-forge /, `"${process.execPath}" "${CLI}" `) } },
				];
			},
			[{ name: "use_forge_tool", args: { name: "host-name", args: {} } }],
			{ text: "done" },
		]);
		const [refused, granted, again] = run.toolEvents;
		expect(refused.isError).toBe(true);
		expect(refused.text).toContain("(phase: permission)");
		expect(refused.text).toContain("a permission to grant, not a fault in the code of 'host-name'");
		expect(refused.text).not.toContain("Source of");
		expect(refused.text).not.toContain('projects["');
		expect(printed).toBe("agent-forge grant host-name read:/etc/hostname");
		expect(refused.text).toContain("  in pi's TUI: /forge grant host-name read:/etc/hostname");
		expect(granted.isError, granted.text).toBe(false);
		expect(granted.text).toContain("Granted read:/etc/hostname to 'host-name' v1");
		expect(again.isError, again.text).toBe(false);
		expect(again.text).toBe("host: true");
	});

	it("a shell line is granted exactly as printed, quotes included", async () => {
		await forge(
			"shout",
			'import { execSync } from "node:child_process";\nreturn execSync("echo \'quiet words\' | tr a-z A-Z", { encoding: "utf8" }).trim();',
		);
		const run = await pi.run("shout", [
			[{ name: "use_forge_tool", args: { name: "shout", args: {} } }],
			({ lastToolResults }) => [
				{
					name: "bash",
					args: {
						command: printedGrant(lastToolResults[0].text).replace(
							/^agent-forge /,
							`"${process.execPath}" "${CLI}" `,
						),
					},
				},
			],
			[{ name: "use_forge_tool", args: { name: "shout", args: {} } }],
			{ text: "done" },
		]);
		expect(run.toolEvents[0].isError).toBe(true);
		expect(run.toolEvents[0].text).toContain(
			String.raw`agent-forge grant shout 'shell:echo '\''quiet words'\'' | tr a-z A-Z'`,
		);
		expect(run.toolEvents[1].isError, run.toolEvents[1].text).toBe(false);
		expect(run.toolEvents[2].text).toBe("QUIET WORDS");
	});

	it("a secret in what was refused stays redacted, and the printed grant still works", async () => {
		await forge(
			"leaky",
			'import { execSync } from "node:child_process";\nreturn execSync("echo " + params.token, { encoding: "utf8" });',
			{ type: "object", properties: { token: { type: "string" } }, required: ["token"] },
		);
		const event = await call("use_forge_tool", { name: "leaky", args: { token: SECRET } });
		expect(event.isError).toBe(true);
		expect(event.text).toContain("(phase: permission)");
		expect(event.text).not.toContain(SECRET);
		// The capability holds the secret: it is granted by its digest, which the printed command carries whole.
		const printed = printedGrant(event.text);
		expect(printed).toMatch(/^agent-forge grant leaky sha256:[0-9a-f]{64}$/);
		const run = await pi.run("grant and call again", [
			[{ name: "bash", args: { command: printed.replace(/^agent-forge /, `"${process.execPath}" "${CLI}" `) } }],
			[{ name: "use_forge_tool", args: { name: "leaky", args: { token: SECRET } } }],
			{ text: "done" },
		]);
		expect(run.toolEvents[0].isError, run.toolEvents[0].text).toBe(false);
		expect(run.toolEvents[1].isError, run.toolEvents[1].text).toBe(false);
		expect(
			JSON.stringify(JSON.parse(await readFile(join(pi.agentDir, "forge", "grants.json"), "utf8"))),
		).not.toContain(SECRET);
	});

	it("refusals are not failures: refused more often than quarantineAfter, the tool stays ok; a grant then holds, and a revocation", async () => {
		await forge("env-peek", 'return process.env.GRANTS_E2E_API_KEY ? "seen" : "unset";');
		for (let i = 0; i < 3; i++) {
			const event = await call("use_forge_tool", { name: "env-peek", args: {} });
			expect(event.isError, event.text).toBe(true);
			expect(event.text).toContain("agent-forge grant env-peek env:GRANTS_E2E_API_KEY");
		}
		const listed = await call("list_forge", { name: "env-peek" });
		expect(listed.text).not.toMatch(/quarantined/);
		// The same worker, refused three times, sees the variable from the call after the grant.
		await pi.session.prompt("/forge grant env-peek env:GRANTS_E2E_API_KEY");
		const seen = await call("use_forge_tool", { name: "env-peek", args: {} });
		expect(seen.isError, seen.text).toBe(false);
		expect(seen.text).toBe("seen");
		// And a revocation holds from the next call of that same worker.
		await pi.session.prompt("/forge revoke env-peek");
		const revoked = await call("use_forge_tool", { name: "env-peek", args: {} });
		expect(revoked.isError, revoked.text).toBe(true);
		expect(revoked.text).toContain("agent-forge grant env-peek env:GRANTS_E2E_API_KEY");
	});
});

describe("/forge grant and /forge revoke in pi", () => {
	it("grant lets the next call through; revoke takes it back; both from the next call", async () => {
		await forge(
			"host-name-2",
			'import { readFileSync } from "node:fs";\nreturn readFileSync("/etc/hostname", "utf8").trim().length > 0 ? "yes" : "no";',
		);
		expect((await call("use_forge_tool", { name: "host-name-2", args: {} })).isError).toBe(true);
		await pi.session.prompt("/forge grant host-name-2 read:/etc/hostname");
		const allowed = await call("use_forge_tool", { name: "host-name-2", args: {} });
		expect(allowed.isError, allowed.text).toBe(false);
		expect(allowed.text).toBe("yes");
		await pi.session.prompt("/forge revoke host-name-2 read:/etc/hostname");
		expect((await call("use_forge_tool", { name: "host-name-2", args: {} })).isError).toBe(true);
	});
});
