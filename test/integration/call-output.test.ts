// What a call hands the model besides its value, in both runners: modules by every import form, what it printed to the
// console (kept per call), and failures read for their causes and for whose fault they are.
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatForModel } from "../../src/contract/error-format.ts";
import type { ForgeError } from "../../src/contract/forge-error.ts";
import { outputText } from "../../src/run/result.ts";
import type { Toolbox } from "../../src/toolbox/toolbox.ts";
import { isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host, tempToolbox } from "../helpers/toolbox-fixture.ts";

const NO_PARAMS = { type: "object", properties: {} };
/** Short, for the calls that never finish. */
// Permissive: the fetch cases reach the network themselves (test/integration/network.test.ts covers the brokered fetch).
const LIMITS = { PI_FORGE_TIMEOUT_MS: "1500", PI_FORGE_POLICY: "permissive" };
const PATH_PARAMS = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const URL_PARAMS = { type: "object", properties: { url: { type: "string" } }, required: ["url"] };

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as { port: number };
	await new Promise((resolve) => server.close(resolve));
	return port;
}

interface Box {
	toolbox: Toolbox;
	cwd: string;
	close(): Promise<void>;
}

const runners: Array<[string, () => Promise<Box>]> = [
	[
		"inline",
		async () => {
			const { toolbox, cwd } = await tempToolbox(LIMITS);
			return {
				toolbox,
				cwd,
				close: async () => {
					await toolbox.close();
					rmSync(cwd, { recursive: true, force: true });
				},
			};
		},
	],
	[
		"isolated",
		async () => {
			const box = await isolatedToolbox(LIMITS);
			return {
				toolbox: box.toolbox,
				cwd: box.cwd,
				close: async () => {
					await box.toolbox.close();
					rmSync(box.cwd, { recursive: true, force: true });
					rmSync(dirname(dirname(box.grants.file)), { recursive: true, force: true });
				},
			};
		},
	],
];

describe.each(runners)("the %s runner", (_kind, open) => {
	let box: Box;
	beforeAll(async () => {
		box = await open();
	}, 60_000);
	afterAll(async () => box?.close());

	async function forge(
		name: string,
		logic: string,
		parametersSchema: Record<string, unknown> = NO_PARAMS,
	): Promise<void> {
		const forged = await box.toolbox.forge(
			{ name, description: `The ${name} tool.`, parametersSchema, logic },
			new Map(),
		);
		expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
	}

	async function text(
		name: string,
		args: Record<string, unknown> = {},
		redact?: (text: string) => string,
	): Promise<string> {
		const used = await box.toolbox.use(name, args, { host, redact });
		if (!used.ok) throw new Error(formatForModel(used.error));
		return outputText(used.value);
	}

	async function failure(name: string, args: Record<string, unknown> = {}): Promise<ForgeError> {
		const used = await box.toolbox.use(name, args, { host });
		if (used.ok) throw new Error(`expected '${name}' to fail, got ${outputText(used.value)}`);
		return used.error;
	}

	it("serves the core library to every import form, dynamic import() included", async () => {
		await forge(
			"import-forms",
			[
				'import fs from "node:fs";',
				'import * as path from "path";',
				'import { readFileSync } from "fs";',
				'import cp = require("node:child_process");',
				'import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";',
				'const { writeFile, readFile } = await import("node:fs/promises");',
				'const dynamicFs = await import("node:fs");',
				'const required = require("node:path");',
				'const file = path.join(ctx.cwd, "forms.txt");',
				'await writeFile(file, "written");',
				"const api: ExtensionAPI | undefined = undefined;",
				'return [fs.readFileSync(file, "utf8"), readFileSync(file, "utf8"), await readFile(file, "utf8"), dynamicFs.default === fs, typeof dynamicFs.readFileSync, required.sep === path.sep, typeof cp.spawn, api ?? "no api"];',
			].join("\n"),
		);
		expect(JSON.parse(await text("import-forms"))).toEqual([
			"written",
			"written",
			"written",
			true,
			"function",
			true,
			"function",
			"no api",
		]);
	});

	it("hands a call that printed instead of returning its console output, redacted, and nothing of another call's", async () => {
		await forge(
			"printer",
			'console.log("result for", params.text);\nconsole.error("note:", { n: params.text.length });\nawait new Promise((r) => setTimeout(r, 20));\nglobalThis.console.log("after a wait", params.text);',
			{ type: "object", properties: { text: { type: "string" } }, required: ["text"] },
		);
		const [a, b] = await Promise.all([
			text("printer", { text: "alpha" }),
			text("printer", { text: "beta" }, (t) => t.replace(/beta/g, "[redacted]")),
		]);
		const consoleOf = (output: string) => output.split("\n").slice(1).join("\n");
		expect(a).toMatch(/^\(the tool returned no value; below is what it printed to the console\. /);
		expect(consoleOf(a)).toBe(
			_kind === "inline"
				? "result for alpha\nnote: { n: 5 }"
				: "result for alpha\nnote: { n: 5 }\nafter a wait alpha",
		);
		expect(consoleOf(b)).toBe(
			_kind === "inline"
				? "result for [redacted]\nnote: { n: 4 }"
				: "result for [redacted]\nnote: { n: 4 }\nafter a wait [redacted]",
		);
		expect(await text("printer", { text: "gamma" })).not.toContain("alpha");
	});

	it("drops what a timer of an earlier call prints during a later one", async () => {
		await forge(
			"late-printer",
			'if (params.text === "first") { setTimeout(() => console.log("late from the first call"), 30); return "returned"; }\nconsole.log("second call starts");\nawait new Promise((r) => setTimeout(r, 120));\nconsole.log("second call ends");',
			{ type: "object", properties: { text: { type: "string" } }, required: ["text"] },
		);
		expect(await text("late-printer", { text: "first" })).toBe("returned");
		const second = await text("late-printer", { text: "second" });
		expect(second).toMatch(/\nsecond call starts\nsecond call ends$/);
		expect(second).not.toContain("late from the first call");
	});

	it("keeps what a call printed out of a returned value, and puts it in a failure", async () => {
		await forge(
			"chatty",
			'console.log("working on", params.text);\nif (params.text === "bad") throw new Error("cannot do bad");\nreturn params.text.toUpperCase();',
			{
				type: "object",
				properties: { text: { type: "string" } },
				required: ["text"],
			},
		);
		expect(await text("chatty", { text: "ok" })).toBe("OK");
		const error = await failure("chatty", { text: "bad" });
		expect(error.details.console).toBe("working on bad");
		expect(formatForModel(error)).toContain("Console output of the call:\nworking on bad");
	});

	it("keeps what a call printed before it was stopped at its deadline", async () => {
		await forge(
			"stuck",
			'console.log("step 1 of 3");\nconsole.log("waiting for the lock");\nawait new Promise(() => {});',
		);
		const error = await failure("stuck");
		expect(error.phase).toBe("timeout");
		expect(error.details.console).toBe("step 1 of 3\nwaiting for the lock");
		expect(formatForModel(error)).toContain("Console output of the call:\nstep 1 of 3\nwaiting for the lock");
	});

	it("tells a missing file named by the arguments from a bug: the argument to change, no source listing", async () => {
		await forge(
			"reader",
			'const { readFile } = await import("node:fs/promises");\nreturn await readFile(params.path, "utf8");',
			PATH_PARAMS,
		);
		const error = await failure("reader", { path: "data/missing.csv" });
		expect(error.phase).toBe("runtime");
		expect(error.details.origin).toBe("input");
		expect(error.message).toContain("ENOENT");
		expect(error.details.hint).toContain(
			'params.path ("data/missing.csv") names a file or folder that does not exist (ENOENT)',
		);
		const model = formatForModel(error);
		expect(model).not.toContain("Fix the logic");
		expect(model).not.toContain("Source of forge-reader.ts");
		expect(model).toMatch(/> 23 \| return await readFile\(params\.path, "utf8"\);/);
	});

	it("still blames the logic for a file the logic names itself", async () => {
		await forge(
			"config-reader",
			'const { readFileSync } = require("node:fs");\nreturn readFileSync("no-such-config.json", "utf8");',
			PATH_PARAMS,
		);
		const error = await failure("config-reader", { path: "unrelated.txt" });
		expect(error.details.origin).toBe("logic");
		expect(formatForModel(error)).toContain("Source of forge-config-reader.ts");
		expect(error.details.hint).toMatch(/^Fix the logic at forge-config-reader\.ts:23/);
	});

	it("shows why fetch failed (ECONNREFUSED on a closed port), as the argument's fault when the URL came in with it", async () => {
		const port = await closedPort();
		await forge("status", "const response = await fetch(params.url);\nreturn response.status;", URL_PARAMS);
		const error = await failure("status", { url: `http://127.0.0.1:${port}/health` });
		expect(error.message).toMatch(/^TypeError: fetch failed\nCaused by: .*ECONNREFUSED/);
		expect(error.details.origin).toBe("input");
		expect(error.details.hint).toContain(
			`points at 127.0.0.1:${port}, where nothing accepts connections (ECONNREFUSED)`,
		);
		expect(formatForModel(error)).not.toContain("Source of forge-status.ts");

		await forge(
			"fixed-status",
			`const response = await fetch("http://127.0.0.1:${port}/");\nreturn response.status;`,
		);
		const own = await failure("fixed-status");
		expect(own.details.origin).toBe("logic");
		expect(own.message).toContain("Caused by:");
		expect(own.details.hint).toContain(
			"nothing accepts connections (ECONNREFUSED). If that address in the logic is right",
		);
		expect(formatForModel(own)).toContain("Source of forge-fixed-status.ts");
	});
});

describe("the isolated runner, stopping a synchronous loop", () => {
	it("keeps what the call printed before the loop", async () => {
		const box = await runners[1][1]();
		try {
			const forged = await box.toolbox.forge(
				{
					name: "spinner",
					description: "Spins.",
					parametersSchema: NO_PARAMS,
					logic: 'console.log("entering the loop");\nwhile (true) {}',
				},
				new Map(),
			);
			expect(forged.ok).toBe(true);
			const used = await box.toolbox.use("spinner", {}, { host });
			expect(used.ok).toBe(false);
			if (used.ok) return;
			expect(used.error.phase).toBe("timeout");
			expect(used.error.details.console).toBe("entering the loop");
		} finally {
			await box.close();
		}
	}, 30_000);
});
