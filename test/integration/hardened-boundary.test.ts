// What a tool returns, throws, asks to validate or leaves running cannot crash pi, hang it, leak a secret to disk or act
// after its call (issue 11, classes 4, 5, 6 and 8), in the isolated runner. Each case is followed by a canary call: the
// runner and pi's process are still fine.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ForgeError, Result } from "../../src/contract/forge-error.ts";
import type { UseSuccess } from "../../src/toolbox/toolbox.ts";
import { type IsolatedBox, isolatedToolbox } from "../helpers/isolated-fixture.ts";
import { host as noUI, toolRequest } from "../helpers/toolbox-fixture.ts";

const TIMEOUT_MS = 1500;
const LIMITS = { PI_FORGE_TIMEOUT_MS: String(TIMEOUT_MS), PI_FORGE_MAX_MEMORY_MB: "64" };
const NO_PARAMS = { type: "object", properties: {} };
const WASM_MODULE = "new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))";

async function open(env: Record<string, string> = {}): Promise<IsolatedBox> {
	const box = await isolatedToolbox({ ...LIMITS, ...env });
	await forgeOk(box, "canary", 'return "canary:" + params.text;', {
		type: "object",
		properties: { text: { type: "string" } },
		required: ["text"],
	});
	return box;
}

async function close(box: IsolatedBox | undefined): Promise<void> {
	if (!box) return;
	await box.toolbox.close();
	rmSync(box.cwd, { recursive: true, force: true });
	rmSync(join(box.grants.file, "..", ".."), { recursive: true, force: true });
}

async function canarySings(box: IsolatedBox): Promise<void> {
	expect(text(await box.toolbox.use("canary", { text: "ping" }, { host: noUI }))).toBe("canary:ping");
}

async function forgeOk(
	box: IsolatedBox,
	name: string,
	logic: string,
	parametersSchema: unknown = NO_PARAMS,
): Promise<void> {
	const forged = await box.toolbox.forge(toolRequest(name, logic, { parametersSchema }), new Map());
	expect(forged.ok, forged.ok ? "" : `${forged.error.phase}: ${forged.error.message}`).toBe(true);
}

async function forgeAndRun(box: IsolatedBox, name: string, logic: string, args: Record<string, unknown> = {}) {
	await forgeOk(box, name, logic);
	return box.toolbox.use(name, args, { host: noUI });
}

function failure(result: Result<unknown>): ForgeError {
	if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value).slice(0, 500)}`);
	return result.error;
}

function success(result: Result<UseSuccess>): UseSuccess {
	if (!result.ok) throw new Error(`expected success, got ${result.error.phase}: ${result.error.message}`);
	return result.value;
}

function text(result: Result<UseSuccess>): string {
	return success(result)
		.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`))
		.join("\n");
}

/** Logic that closes `execute` early, so the rest runs at the module's top level. */
const topLevel = (code: string) => `return 1;\n}\n${code}\nfunction unused() {`;
const withDetails = (details: string) => `return { content: [{ type: "text", text: "ok" }], details: ${details} };`;

describe("class 4: what a tool returns or throws cannot crash pi", () => {
	let box: IsolatedBox;
	beforeAll(async () => {
		box = await open();
	});
	afterAll(async () => close(box));
	afterEach(async () => canarySings(box));

	it.each([
		["a WebAssembly.Module", `{ module: ${WASM_MODULE}, kept: 1 }`, { module: {}, kept: 1 }],
		["a SharedArrayBuffer", "{ shared: new SharedArrayBuffer(16), kept: 1 }", { shared: {}, kept: 1 }],
		["a MessagePort", "{ port: new MessageChannel().port1, kept: 1 }", { port: {}, kept: 1 }],
		[
			"a function and a symbol",
			'{ run() {}, tag: Symbol("x"), list: [() => 1, Symbol("y")], kept: 1 }',
			{ list: [null, null], kept: 1 },
		],
		["a BigInt", "{ big: 10n ** 30n }", { big: "1000000000000000000000000000000" }],
		[
			"a value inside itself",
			'(() => { const a: any = { name: "a" }; a.self = a; return a; })()',
			{ name: "a", self: "[Circular]" },
		],
	])("details holding %s reach pi as plain JSON", async (_label, details, expected) => {
		const used = success(await forgeAndRun(box, "odd-details", withDetails(details)));
		expect(used.details).toEqual(expected);
		expect(used.content).toEqual([{ type: "text", text: "ok" }]);
	});

	it("details nested 100 000 deep are cut to a marker, not a stack overflow in pi", async () => {
		const used = success(
			await forgeAndRun(
				box,
				"deep-details",
				withDetails("(() => { let d: any = {}; for (let i = 0; i < 100_000; i++) d = { d }; return d; })()"),
			),
		);
		expect(JSON.stringify(used.details)).toContain("[nested too deep]");
		let depth = 0;
		for (
			let node = used.details as { d?: unknown } | string;
			typeof node === "object" && node !== null;
			node = node.d as typeof node
		)
			depth++;
		expect(depth).toBeLessThanOrEqual(64);
	});

	it("a Proxy whose every trap throws, returned as the result, fails the call (phase runtime) with what it threw", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"proxy-result",
				'return new Proxy({}, { get() { throw new Error("trap!"); }, ownKeys() { throw new Error("trap!"); } });',
			),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe("Error: trap!");
	});

	it("a Proxy in details whose traps throw fails the call (phase runtime) with what it threw", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"proxy-details",
				withDetails('new Proxy({}, { ownKeys() { throw new Error("trap!"); } })'),
			),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe('The tool\'s result cannot be read: reading it threw "trap!".');
	});

	it("a getter that throws in details fails the call (phase runtime)", async () => {
		const error = failure(
			await forgeAndRun(box, "getter-details", withDetails('{ get boom() { throw new Error("getter!"); } }')),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe('The tool\'s result cannot be read: reading it threw "getter!".');
	});

	it.each([
		["a WebAssembly.Module", `throw ${WASM_MODULE};`],
		[
			"an Error whose cause is a WebAssembly.Module and a SharedArrayBuffer",
			`throw Object.assign(new Error("bad", { cause: ${WASM_MODULE} }), { shared: new SharedArrayBuffer(8) });`,
		],
		["a Proxy", 'throw new Proxy(new Error("x"), { get() { throw new Error("trap"); } });'],
		[
			"an Error whose message is an object",
			'const e = new Error("x"); Object.defineProperty(e, "message", { value: { a: new SharedArrayBuffer(4) } }); throw e;',
		],
	])("throwing %s fails the call cleanly", async (_label, logic) => {
		const error = failure(await forgeAndRun(box, "odd-throw", logic));
		expect(error.phase).toBe("runtime");
		expect(typeof error.message).toBe("string");
	});

	it("a tool that rewrites MessagePort.prototype.postMessage to send a WebAssembly.Module as its result only fails its own call", async () => {
		const logic = `const post = MessagePort.prototype.postMessage;\nMessagePort.prototype.postMessage = function (message: any, ...rest: any[]) {\n  return post.call(this, { ...message, json: ${WASM_MODULE}, callId: message?.callId }, ...rest);\n};\nreturn "sent";`;
		const error = failure(await forgeAndRun(box, "forger", logic));
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe("The tool's result could not be passed on: it is not JSON text of at most 64 MB.");
	});

	it("a write whose data is a SharedArrayBuffer view, or whose options hold a WebAssembly.Module, is refused before it leaves the runner", async () => {
		const shared = failure(
			await forgeAndRun(
				box,
				"shared-write",
				'import { writeFileSync } from "node:fs";\nwriteFileSync("shared.bin", new Uint8Array(new SharedArrayBuffer(8)));\nreturn "written";',
			),
		);
		expect(shared.message).toBe(
			"A request of 'shared-write' was not sent to pi's process: it holds shared memory. Pass strings, numbers, Buffers and plain objects.",
		);
		const wasm = failure(
			await forgeAndRun(
				box,
				"wasm-write",
				`import { writeFileSync } from "node:fs";\nwriteFileSync("wasm.txt", "x", { encoding: "utf8", extra: ${WASM_MODULE} } as any);\nreturn "written";`,
			),
		);
		expect(wasm.message).toBe(
			"A request of 'wasm-write' was not sent to pi's process: it holds a WebAssembly.Module. Pass strings, numbers, Buffers and plain objects.",
		);
		expect(existsSync(join(box.cwd, "shared.bin")) || existsSync(join(box.cwd, "wasm.txt"))).toBe(false);
	});

	it("ctx.notify with a WebAssembly.Module for its level and a SharedArrayBuffer for its text is shown as plain text", async () => {
		const notes: Array<[string, string | undefined]> = [];
		await forgeOk(
			box,
			"odd-notify",
			`ctx.notify(new SharedArrayBuffer(4) as any, ${WASM_MODULE} as any);\nreturn "notified";`,
		);
		const used = await box.toolbox.use(
			"odd-notify",
			{},
			{ host: { ...noUI, hasUI: true, notify: (message, level) => notes.push([message, level]) } },
		);
		expect(text(used)).toBe("notified");
		expect(notes).toEqual([["[object SharedArrayBuffer]", "info"]]);
	});

	it("a module's metadata that throws when read fails the forge (phase shape), and the next forge works", async () => {
		const forged = await box.toolbox.forge(
			toolRequest(
				"odd-meta",
				topLevel('Object.defineProperty(metadata, "parameters", { get() { throw new Error("meta!"); } });'),
				{ parametersSchema: NO_PARAMS },
			),
			new Map(),
		);
		expect(forged.ok).toBe(false);
		expect(forged.ok ? "" : forged.error.phase).toBe("shape");
		await forgeOk(box, "after-odd-meta", 'return "fine";');
	});

	it("reading process.env.toString, constructor and String(process.env) asks for no grant and fails nothing", async () => {
		const logic =
			'return [typeof process.env.toString, typeof process.env.constructor, String(process.env), typeof (process.env as any).hasOwnProperty].join(",");';
		expect(text(await forgeAndRun(box, "env-members", logic))).toBe("function,function,[object Object],function");
	});
});

describe("class 4 under the permissive policy", () => {
	let box: IsolatedBox;
	beforeAll(async () => {
		box = await open({ PI_FORGE_POLICY: "permissive" });
	});
	afterAll(async () => close(box));
	afterEach(async () => canarySings(box));

	it("an environment variable named after an inherited member is no variable (no unhandled rejection in pi)", async () => {
		const rejections: unknown[] = [];
		const onRejection = (reason: unknown) => rejections.push(reason);
		process.on("unhandledRejection", onRejection);
		try {
			const logic =
				'const env: any = process.env;\nconst names = ["toString", "valueOf", "hasOwnProperty", "__proto__", "constructor", "isPrototypeOf"];\nreturn names.map((n) => typeof env[n]).join(",");';
			expect(text(await forgeAndRun(box, "env-inherited", logic))).toBe(
				"function,function,function,object,function,function",
			);
			expect(text(await forgeAndRun(box, "env-own", 'return process.env.HOME ?? "none";'))).toBe(
				process.env.HOME ?? "none",
			);
			await new Promise((resolve) => setTimeout(resolve, 50));
			expect(rejections).toEqual([]);
		} finally {
			process.off("unhandledRejection", onRejection);
		}
	});
});

describe("class 8: a call's code ends with the call", () => {
	let box: IsolatedBox;
	beforeAll(async () => {
		box = await open();
	});
	afterAll(async () => close(box));
	afterEach(async () => canarySings(box));

	const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
	const size = (file: string) =>
		existsSync(join(box.cwd, file)) ? readFileSync(join(box.cwd, file), "utf8").length : 0;

	it("a top-level setInterval that appends to a file through the broker writes nothing after the call returned", async () => {
		const logic = topLevel(
			'import { appendFileSync } from "node:fs";\nsetInterval(() => appendFileSync("top-ticks.txt", "tick"), 10);',
		).replace("return 1;", 'await new Promise((resolve) => setTimeout(resolve, 100));\nreturn "ticking";');
		await forgeOk(box, "top-ticker", logic);
		expect(text(await box.toolbox.use("top-ticker", {}, { host: noUI }))).toBe("ticking");
		const atResult = size("top-ticks.txt");
		expect(atResult).toBeGreaterThan(0);
		await sleep(400);
		expect(size("top-ticks.txt")).toBe(atResult);
	});

	it("an interval started in execute that notifies is silent once the call returned", async () => {
		const notes: string[] = [];
		await forgeOk(
			box,
			"notifier",
			'setInterval(() => ctx.notify("still here"), 10);\nawait new Promise((resolve) => setTimeout(resolve, 60));\nreturn "done";',
		);
		const used = await box.toolbox.use(
			"notifier",
			{},
			{ host: { ...noUI, hasUI: true, notify: (message) => notes.push(message) } },
		);
		expect(text(used)).toBe("done");
		const atResult = notes.length;
		expect(atResult).toBeGreaterThan(0);
		await sleep(300);
		expect(notes.length).toBe(atResult);
	});

	it("a promise left pending by execute that writes later writes nothing", async () => {
		const logic =
			'import { promises } from "node:fs";\nvoid (async () => {\n  await new Promise((resolve) => setTimeout(resolve, 100));\n  await promises.writeFile("late.txt", "late");\n})();\nreturn "returned";';
		expect(text(await forgeAndRun(box, "late-writer", logic))).toBe("returned");
		await sleep(400);
		expect(existsSync(join(box.cwd, "late.txt"))).toBe(false);
	});

	it.each([
		["an unref'd interval", "setInterval(() => undefined, 50).unref();"],
		["a timeout", "setTimeout(() => undefined, 60_000);"],
		["an AbortSignal.timeout", "AbortSignal.timeout(60_000);"],
		["a message port", "new MessageChannel().port1.unref();"],
		["a FinalizationRegistry", "new FinalizationRegistry(() => undefined).register({}, 1);"],
	])(
		"a call that leaves %s behind gets its worker replaced: the next call starts from a fresh module",
		async (_label, leftover) => {
			await forgeOk(
				box,
				"leaver",
				topLevel("let calls = 0;").replace("return 1;", `${leftover}\nreturn String(++calls);`),
			);
			expect(text(await box.toolbox.use("leaver", {}, { host: noUI }))).toBe("1");
			await sleep(300);
			expect(text(await box.toolbox.use("leaver", {}, { host: noUI }))).toBe("1");
		},
	);

	it("a call that leaves nothing behind keeps its warm worker", async () => {
		await forgeOk(
			box,
			"tidy",
			topLevel("let calls = 0;").replace(
				"return 1;",
				"await new Promise((resolve) => setTimeout(resolve, 5));\nreturn String(++calls);",
			),
		);
		expect(text(await box.toolbox.use("tidy", {}, { host: noUI }))).toBe("1");
		await sleep(100);
		expect(text(await box.toolbox.use("tidy", {}, { host: noUI }))).toBe("2");
	});

	it("a worker that hides its idle report (rewritten postMessage) is replaced once the quiet period passes", async () => {
		const hide =
			'const post = MessagePort.prototype.postMessage;\nMessagePort.prototype.postMessage = function (message: any, ...rest: any[]) {\n  if (message?.type === "idle") return;\n  return post.call(this, message, ...rest);\n};\nsetInterval(() => undefined, 20).unref();';
		await forgeOk(box, "hider", topLevel(`let calls = 0;\n${hide}`).replace("return 1;", "return String(++calls);"));
		expect(text(await box.toolbox.use("hider", {}, { host: noUI }))).toBe("1");
		await sleep(2000);
		expect(text(await box.toolbox.use("hider", {}, { host: noUI }))).toBe("1");
	});

	it("an AbortSignal.timeout listener that fetches after the call never reaches the server (permissive: the worker has the network)", async () => {
		const permissive = await open({ PI_FORGE_POLICY: "permissive" });
		const hits: string[] = [];
		const server = createServer((request, response) => {
			hits.push(request.url ?? "");
			response.end("ok");
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const port = (server.address() as { port: number }).port;
		try {
			const logic = `AbortSignal.timeout(1500).addEventListener("abort", () => { void fetch("http://127.0.0.1:${port}/after").catch(() => undefined); });\nawait fetch("http://127.0.0.1:${port}/during");\nreturn "fetched";`;
			expect(text(await forgeAndRun(permissive, "late-fetch", logic))).toBe("fetched");
			await sleep(2000);
			expect(hits).toEqual(["/during"]);
		} finally {
			server.close();
			await close(permissive);
		}
	});
});

describe("class 6: secrets are never stored raw", () => {
	const KEY = "sk-proj-Q7fT2mZ9xW4vB8nK1cR6yH3pL5sD0gJ";
	const ENV_VALUE = "plain-looking-but-secret-value-42";
	let box: IsolatedBox;
	beforeAll(async () => {
		process.env.FORGE_TEST_API_KEY = ENV_VALUE;
		box = await open({ PI_FORGE_POLICY: "permissive" });
	});
	afterAll(async () => {
		delete process.env.FORGE_TEST_API_KEY;
		await close(box);
	});

	/** Every file under `dir` whose bytes contain `needle`. */
	function filesContaining(dir: string, needle: string): string[] {
		return readdirSync(dir, { recursive: true, withFileTypes: true })
			.filter((entry) => entry.isFile())
			.map((entry) => join(entry.parentPath, entry.name))
			.filter((file) => readFileSync(file).includes(needle));
	}

	it("a granted tool's thrown key and secret variable reach no file the toolbox writes, and its state files are 0600", async () => {
		// The key is built at run time: a literal in the logic would be refused at forge time.
		const logic =
			'const key = ["sk-proj", "Q7fT2mZ9xW4vB8nK1cR6yH3pL5sD0gJ"].join("-");\nthrow new Error(`auth failed for ${key} with ${process.env.FORGE_TEST_API_KEY}: ` + "x".repeat(400) + " " + key);';
		const error = failure(await forgeAndRun(box, "leaky", logic));
		expect(error.message).toContain(KEY);
		for (let i = 0; i < 3; i++) await box.toolbox.use("leaky", {}, { host: noUI });
		await box.toolbox.flush();
		await box.audit.flush();
		const agentDir = join(box.grants.file, "..", "..");
		expect(filesContaining(box.cwd, KEY)).toEqual([]);
		expect(filesContaining(box.cwd, ENV_VALUE)).toEqual([]);
		expect(filesContaining(agentDir, KEY)).toEqual([]);
		const health = JSON.parse(readFileSync(join(box.dir, ".forge-health.json"), "utf8"));
		expect(health.tools.leaky.lastError.message).toContain("[redacted openai-api-key]");
		expect(health.tools.leaky.lastError.message).toContain("[redacted]");
		expect(readFileSync(box.audit.file, "utf8")).toContain("[redacted openai-api-key]");
		expect(statSync(join(box.dir, ".forge-health.json")).mode & 0o777).toBe(0o600);
		expect(statSync(box.audit.file).mode & 0o777).toBe(0o600);
	});

	it.each([
		[
			"readFileSync",
			'import { readFileSync } from "node:fs";\nreturn readFileSync(".pi/forge/extensions/.forge-health.json", "utf8");',
		],
		[
			"promises.readFile by its absolute path",
			'import { promises } from "node:fs";\nimport { resolve } from "node:path";\nreturn await promises.readFile(resolve(".pi/forge/extensions/.forge-audit.jsonl"), "utf8");',
		],
		[
			"createReadStream",
			'import { createReadStream } from "node:fs";\nlet text = "";\nfor await (const chunk of createReadStream(".pi/forge/extensions/.forge-health.json")) text += chunk;\nreturn text;',
		],
		[
			"copyFileSync into the project",
			'import { copyFileSync, readFileSync } from "node:fs";\ncopyFileSync(".pi/forge/extensions/.forge-health.json", "health-copy.json");\nreturn readFileSync("health-copy.json", "utf8");',
		],
	])("the health file and audit log cannot be read by a tool, even a permissive one: %s", async (_label, logic) => {
		await forgeAndRun(box, "fails", 'throw new Error("a failure for the health file");');
		await box.toolbox.flush();
		await box.audit.flush();
		const error = failure(await forgeAndRun(box, "reader", logic));
		expect(error.message).toMatch(/one of Agent Forge's own files/);
		expect(existsSync(join(box.cwd, "health-copy.json"))).toBe(false);
	});

	it("a recursive copy of the toolbox leaves the health file and audit log out", async () => {
		const logic =
			'import { cpSync, readdirSync } from "node:fs";\ncpSync(".pi/forge/extensions", "toolbox-copy", { recursive: true });\nreturn readdirSync("toolbox-copy").sort().join(",");';
		const listed = text(await forgeAndRun(box, "copier", logic));
		expect(listed).toContain("forge-copier.ts");
		expect(listed).not.toContain(".forge-health.json");
		expect(listed).not.toContain(".forge-audit.jsonl");
	});
});

/** The longest pi's event loop went without a turn while `work` ran (a 10 ms ticker). */
async function withLag<T>(work: () => Promise<T>): Promise<{ value: T; lag: number; ms: number }> {
	const started = performance.now();
	let last = started;
	let lag = 0;
	const ticker = setInterval(() => {
		const now = performance.now();
		lag = Math.max(lag, now - last);
		last = now;
	}, 10);
	try {
		const value = await work();
		return { value, lag, ms: performance.now() - started };
	} finally {
		clearInterval(ticker);
	}
}

/** A schema whose `$ref`s double at every level: validating a wrong value visits 2^depth branches. */
function exponentialSchema(depth: number): Record<string, unknown> {
	const defs: Record<string, unknown> = { [`a${depth}`]: { type: "number" } };
	for (let i = 0; i < depth; i++)
		defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
	return { type: "object", properties: { x: { $ref: "#/$defs/a0" } }, $defs: defs };
}

describe("class 5: what a tool asks to validate, or its tests, cannot hang pi", () => {
	let box: IsolatedBox;
	beforeAll(async () => {
		box = await open();
	});
	afterAll(async () => close(box));
	afterEach(async () => canarySings(box));

	/** The bound a check gets (min(PI_FORGE_TIMEOUT_MS, 2 s)), the worker's start and slack for a loaded machine. */
	const CHECK_MS = TIMEOUT_MS + 1500;
	const LAG_MS = 1000;

	it.each([
		[
			"a pattern that backtracks catastrophically",
			{ type: "object", properties: { text: { type: "string", pattern: "^(a+)+$" } } },
			{ text: `${"a".repeat(40)}!` },
		],
		[
			"a patternProperties key that backtracks catastrophically",
			{ type: "object", patternProperties: { "^(a|aa)+$": { type: "string" } }, additionalProperties: false },
			{ [`${"a".repeat(48)}!`]: "x" },
		],
		[
			"propertyNames with a catastrophic pattern",
			{ type: "object", propertyNames: { pattern: "^(\\w+\\s?)*$" } },
			{ [`${"word ".repeat(12)}!`]: 1 },
		],
		["$refs that double 30 times under anyOf", exponentialSchema(30), { x: "not a number" }],
	])(
		"%s fails the call (phase arguments) within the bound, and pi's event loop keeps turning",
		async (_label, schema, args) => {
			await forgeOk(box, "redos", 'return "ran";', schema);
			const { value, lag, ms } = await withLag(() => box.toolbox.use("redos", args, { host: noUI }));
			const error = failure(value);
			expect(error.phase).toBe("arguments");
			expect(error.message).toBe(
				`Checking the arguments of 'redos' against its parameters schema took longer than ${TIMEOUT_MS} ms, so the tool was not run.`,
			);
			expect(ms).toBeLessThan(CHECK_MS);
			expect(lag).toBeLessThan(LAG_MS);
		},
	);

	it("arguments that fit a schema with a pattern are checked (and coerced) off the main thread and the tool runs", async () => {
		await forgeOk(box, "patterned", "return `${params.code}:${params.n + 1}`;", {
			type: "object",
			properties: { code: { type: "string", pattern: "^[A-Z]{3}$" }, n: { type: "number" } },
			required: ["code", "n"],
		});
		expect(text(await box.toolbox.use("patterned", { code: "ABC", n: "41" }, { host: noUI }))).toBe("ABC:42");
		const error = failure(await box.toolbox.use("patterned", { code: "abc", n: 1 }, { host: noUI }));
		expect(error.phase).toBe("arguments");
		expect(error.details.notes).toEqual(['params.code: must match pattern "^[A-Z]{3}$"']);
	});

	it("a required name and a catastrophic patternProperties key do not hang the forge", async () => {
		const schema = {
			type: "object",
			patternProperties: { "^(a+)+$": { type: "string" } },
			required: [`${"a".repeat(40)}!`],
		};
		const { value, lag } = await withLag(() =>
			box.toolbox.forge(toolRequest("pattern-required", 'return "ok";', { parametersSchema: schema }), new Map()),
		);
		expect(value.ok).toBe(true);
		expect(lag).toBeLessThan(LAG_MS);
	});

	it("a test whose matches backtracks catastrophically fails the forge (phase tests) within the bound", async () => {
		const tests = [{ args: {}, matches: "^(a+)+$" }];
		const { value, lag, ms } = await withLag(() =>
			box.toolbox.forge(
				toolRequest("redos-test", 'return "a".repeat(40) + "!";', { parametersSchema: NO_PARAMS, tests }),
				new Map(),
			),
		);
		const error = failure(value);
		expect(error.phase).toBe("tests");
		expect(error.details.notes?.[0]).toContain(
			"but matching took too long (the expression backtracks catastrophically",
		);
		expect(ms).toBeLessThan(CHECK_MS + 1000);
		expect(lag).toBeLessThan(LAG_MS);
	});

	it("a test's matches that fits still passes", async () => {
		await forgeOk(box, "matching", 'return "order 42 shipped";');
		const forged = await box.toolbox.forge(
			toolRequest("matching", 'return "order 42 shipped";', {
				parametersSchema: NO_PARAMS,
				tests: [{ args: {}, matches: "^order \\d+ shipped$" }],
			}),
			new Map(),
		);
		expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
	});

	it("tests[].timeoutMs of 900 000 000 on a test that never settles is capped to PI_FORGE_TIMEOUT_MS", async () => {
		const tests = [{ args: {}, expect: "never", timeoutMs: 900_000_000 }];
		const { value, ms } = await withLag(() =>
			box.toolbox.forge(
				toolRequest("never", "await new Promise(() => {});", { parametersSchema: NO_PARAMS, tests }),
				new Map(),
			),
		);
		const error = failure(value);
		expect(error.phase).toBe("tests");
		expect(error.details.notes?.[0]).toContain(`did not finish within ${TIMEOUT_MS} ms`);
		expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
	});

	it("all of a forge's tests together stop at twice PI_FORGE_TIMEOUT_MS: the rest are not run", async () => {
		const tests = [1, 2, 3, 4].map((n) => ({ name: `hang ${n}`, args: {}, expect: "never" }));
		const { value, ms } = await withLag(() =>
			box.toolbox.forge(
				toolRequest("never-four", "await new Promise(() => {});", { parametersSchema: NO_PARAMS, tests }),
				new Map(),
			),
		);
		const error = failure(value);
		expect(error.message).toBe("4 of 4 tests failed; nothing was changed.");
		expect(
			error.details.notes
				?.slice(2)
				.every((note) => note.includes(`Not run: the tests of one forge may take ${2 * TIMEOUT_MS} ms in all`)),
		).toBe(true);
		expect(ms).toBeLessThan(2 * TIMEOUT_MS + 2000);
	});

	it("a cancelled forge stops its never-settling test at once", async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 300);
		const tests = [
			{ args: {}, expect: "never" },
			{ args: {}, expect: "never" },
		];
		const { value, ms } = await withLag(() =>
			box.toolbox.forge(
				toolRequest("cancelled", "await new Promise(() => {});", { parametersSchema: NO_PARAMS, tests }),
				new Map(),
				{ signal: controller.signal },
			),
		);
		const error = failure(value);
		expect(error.phase).toBe("tests");
		expect(error.details.notes?.[1]).toContain("Not run: the forge was cancelled.");
		expect(ms).toBeLessThan(TIMEOUT_MS);
	});

	it("while a forge's test hangs (the toolbox lock held), other tools run at once and pi's event loop keeps turning", async () => {
		const forging = withLag(() =>
			box.toolbox.forge(
				toolRequest("hold-lock", "await new Promise(() => {});", {
					parametersSchema: NO_PARAMS,
					tests: [{ args: {}, expect: "x" }],
				}),
				new Map(),
			),
		);
		await new Promise((resolve) => setTimeout(resolve, 200));
		const started = performance.now();
		expect(text(await box.toolbox.use("canary", { text: "meanwhile" }, { host: noUI }))).toBe("canary:meanwhile");
		expect(performance.now() - started).toBeLessThan(TIMEOUT_MS / 2);
		const { value, lag } = await forging;
		expect(failure(value).phase).toBe("tests");
		expect(lag).toBeLessThan(LAG_MS);
	});
});
