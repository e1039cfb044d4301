// Adversarial suite for the isolated runner: every case forges something hostile or broken and checks that it failed
// cleanly — the right phase, a message that says what happened, nothing lost (a canary tool forged first keeps its
// files byte for byte) and the toolbox still working (the canary runs after every attack).
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ForgeError, Result } from "../../src/contract/forge-error.ts";
import { readAudit } from "../../src/policy/audit-log.ts";
import type { RunHost } from "../../src/run/runner.ts";
import type { UseSuccess } from "../../src/toolbox/toolbox.ts";
import { type IsolatedBox, isolatedToolbox, RUNTIME_DIR } from "../helpers/isolated-fixture.ts";
import { host as noUI, snapshot, toolRequest } from "../helpers/toolbox-fixture.ts";

const TIMEOUT_MS = 1500;
const LIMITS = { PI_FORGE_TIMEOUT_MS: String(TIMEOUT_MS), PI_FORGE_MAX_MEMORY_MB: "64" };
const NO_PARAMS = { type: "object", properties: {} };
/** How late a stopped call may come back: the deadline, the 250 ms grace, and slack for a loaded machine. */
const STOP_BOUND_MS = TIMEOUT_MS + 1500;

interface Arena {
	box: IsolatedBox;
	/** The canary's files as forged. */
	canary: Record<string, string>;
}

async function openArena(env: Record<string, string> = {}): Promise<Arena> {
	const box = await isolatedToolbox({ ...LIMITS, ...env });
	const forged = await box.toolbox.forge(toolRequest("canary", 'return "canary:" + params.text;'), new Map());
	expect(forged.ok, forged.ok ? "" : forged.error.message).toBe(true);
	return { box, canary: canaryFiles(box) };
}

/** Closes the toolbox (its runner host goes) and removes the arena's project and agent folders. */
async function closeArena(arena: Arena | undefined): Promise<void> {
	if (!arena) return;
	await arena.box.toolbox.close();
	rmSync(arena.box.cwd, { recursive: true, force: true });
	rmSync(dirname(dirname(arena.box.grants.file)), { recursive: true, force: true });
}

function canaryFiles(box: IsolatedBox): Record<string, string> {
	return Object.fromEntries(
		["forge-canary.ts", "forge-canary.json"].map((file) => [file, readFileSync(join(box.dir, file), "utf8")]),
	);
}

/** Nothing lost, nothing broken: the canary's files are unchanged and it still runs. */
async function expectCanaryIntact(arena: Arena): Promise<void> {
	expect(canaryFiles(arena.box)).toEqual(arena.canary);
	const used = await arena.box.toolbox.use("canary", { text: "ping" }, { host: noUI });
	expect(used.ok ? used.value.content : used.error.message).toEqual([{ type: "text", text: "canary:ping" }]);
}

async function forge(box: IsolatedBox, name: string, logic: string, parametersSchema: unknown = NO_PARAMS) {
	return box.toolbox.forge(toolRequest(name, logic, { parametersSchema }), new Map());
}

async function forgeOk(
	box: IsolatedBox,
	name: string,
	logic: string,
	parametersSchema: unknown = NO_PARAMS,
): Promise<void> {
	const forged = await forge(box, name, logic, parametersSchema);
	expect(forged.ok, forged.ok ? "" : `${forged.error.phase}: ${forged.error.message}`).toBe(true);
}

async function forgeAndRun(
	box: IsolatedBox,
	name: string,
	logic: string,
	args: Record<string, unknown> = {},
	host: RunHost = noUI,
) {
	await forgeOk(box, name, logic);
	return box.toolbox.use(name, args, { host });
}

function failure(result: Result<unknown>): ForgeError {
	if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value).slice(0, 500)}`);
	return result.error;
}

function text(result: Result<UseSuccess>): string {
	if (!result.ok) throw new Error(`expected success, got ${result.error.phase}: ${result.error.message}`);
	return result.value.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
	const started = performance.now();
	const value = await work();
	return { value, ms: performance.now() - started };
}

/** The toolbox's files once background writes (registry, health, audit) have landed. */
async function settled(box: IsolatedBox): Promise<Record<string, string>> {
	await box.toolbox.flush();
	await box.audit.flush();
	return snapshot(box.dir);
}

/** Logic that closes `execute` early, so the rest runs at the module's top level (at forge time, in the preflight). */
const topLevel = (code: string) => `return 1;\n}\n${code}\nfunction unused() {`;

describe("path tricks in names", () => {
	let arena: Arena;
	beforeAll(async () => {
		arena = await openArena();
	});
	afterAll(async () => closeArena(arena));
	afterEach(async () => expectCanaryIntact(arena));

	it.each([
		["a leading parent-directory escape", "../escape", /must start with a lowercase letter/],
		["a parent-directory escape inside", "x/../../escape", /characters that are not allowed: "\/", "\."/],
		["a nested path", "a/b", /characters that are not allowed: "\/"/],
		["an absolute path", "/tmp/evil", /must start with a lowercase letter/],
		["a NUL byte", "evil\u0000x", /characters that are not allowed: "\\u0000"/],
		["10 000 characters", `a${"b".repeat(9_999)}`, /is 10000 characters long \(at most 48\)/],
	])("a name with %s is refused (phase name) and nothing is written", async (_label, name, message) => {
		const before = await settled(arena.box);
		const forged = await arena.box.toolbox.forge(toolRequest(name, "return 1;"), new Map());
		const error = failure(forged);
		expect(error.phase).toBe("name");
		expect(error.message).toMatch(message);
		expect(await settled(arena.box)).toEqual(before);
	});
});

describe("path tricks in file arguments", () => {
	let arena: Arena;
	let box: IsolatedBox;
	const PATH_SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
	beforeAll(async () => {
		arena = await openArena();
		box = arena.box;
		// Planted by "someone else": the tools cannot make links themselves.
		symlinkSync("/etc", join(box.cwd, "etc-link"));
		symlinkSync(box.dir, join(box.cwd, "toolbox-link"));
		mkdirSync(join(box.cwd, "stuff"));
		symlinkSync("/etc/hostname", join(box.cwd, "stuff", "hostname"));
		await forgeOk(
			box,
			"reader",
			'import { readFileSync } from "node:fs";\nreturn readFileSync(params.path, "utf8");',
			PATH_SCHEMA,
		);
		await forgeOk(
			box,
			"writer",
			'import { writeFileSync } from "node:fs";\nwriteFileSync(params.path, "pwned");\nreturn "written";',
			PATH_SCHEMA,
		);
	});
	afterAll(async () => closeArena(arena));
	afterEach(async () => expectCanaryIntact(arena));

	it("reading ../../etc/passwd asks for a grant; without a UI it is refused with the command that grants it", async () => {
		const error = failure(await box.toolbox.use("reader", { path: "../../../../../../etc/passwd" }, { host: noUI }));
		expect(error.phase).toBe("permission");
		expect(error.message).toBe("'reader' may not read /etc/passwd: no UI to ask.");
		expect(error.details.hint).toContain(box.grants.file);
		expect(error.details.grants?.[0]).toBe("agent-forge grant reader read:/etc/passwd");
	});

	it("reading an absolute path outside the project is refused", async () => {
		const error = failure(await box.toolbox.use("reader", { path: "/etc/hostname" }, { host: noUI }));
		expect(error.phase).toBe("permission");
		expect(error.message).toContain("may not read /etc/hostname");
	});

	it.each([
		["reading", "reader"],
		["writing", "writer"],
	])("a NUL byte in a path fails %s as a plain runtime error", async (_label, tool) => {
		const error = failure(await box.toolbox.use(tool, { path: "notes\u0000.txt" }, { host: noUI }));
		expect(error.phase).toBe("runtime");
		expect(error.message).toMatch(/null bytes/);
		expect(existsSync(join(box.cwd, "notes"))).toBe(false);
	});

	it("reading through a symlink in the project that points outside it is refused", async () => {
		const error = failure(await box.toolbox.use("reader", { path: "etc-link/hostname" }, { host: noUI }));
		expect(error.phase).toBe("permission");
		expect(error.message).toContain("may not read /etc/hostname");
	});

	it("writing through a symlink in the project that points outside it is refused", async () => {
		const error = failure(await box.toolbox.use("writer", { path: "etc-link/forge-pwned" }, { host: noUI }));
		expect(error.phase).toBe("permission");
		expect(error.message).toContain("may not write /etc/forge-pwned");
		expect(existsSync("/etc/forge-pwned")).toBe(false);
	});

	it("writing through a symlink that points into the toolbox is refused for good", async () => {
		const error = failure(await box.toolbox.use("writer", { path: "toolbox-link/forge-canary.ts" }, { host: noUI }));
		expect(error.phase).toBe("permission");
		expect(error.message).toContain("the toolbox is never writable by a forged tool");
		expect(error.details.hint).toContain("No policy or grant lets a forged tool write there");
	});

	it.each([
		[
			"fs.openAsBlob",
			'const blob = await fs.openAsBlob("etc-link/hostname");\nreturn await blob.text();',
			/fs\.openAsBlob outside the project is not available/,
		],
		[
			"fs.opendirSync",
			'return fs.opendirSync("etc-link").readSync()?.name;',
			/fs\.opendirSync outside the project is not available/,
		],
		[
			"fs.createReadStream",
			'return String(fs.createReadStream("etc-link/hostname"));',
			/fs\.createReadStream outside the project is not available/,
		],
		["fs.openSync", 'return fs.openSync("etc-link/hostname");', /fs\.openSync outside the project is not available/],
	])("%s through the symlink cannot read past the policy either", async (label, body, message) => {
		const error = failure(
			await forgeAndRun(
				box,
				`via-${label.replace(/\W/g, "-").toLowerCase()}`,
				`import * as fs from "node:fs";\n${body}`,
			),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toMatch(message);
	});

	it("a recursive copy that dereferences links does not bring outside files into the project: links are not copied at all", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"copy-deref",
				'import { cpSync, readFileSync } from "node:fs";\ncpSync("stuff", "copy", { recursive: true, dereference: true });\nreturn readFileSync("copy/hostname", "utf8");',
			),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toMatch(/fs\.cp: .* is a link; forged tools may not copy or make links/);
		expect(existsSync(join(box.cwd, "copy", "hostname"))).toBe(false);
	});

	it("removing a folder above the toolbox (.pi) is refused, and the toolbox stays", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"rm-dot-pi",
				'import { rmSync } from "node:fs";\nrmSync(".pi", { recursive: true, force: true });\nreturn "gone";',
			),
		);
		expect(error.phase).toBe("permission");
		expect(error.message).toMatch(
			/may not write .*\/\.pi: a folder that holds the toolbox is never writable by a forged tool/,
		);
		expect(existsSync(join(box.dir, "forge-canary.ts"))).toBe(true);
	});

	it("renaming the project folder that holds the toolbox is refused", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"mv-dot-pi",
				'import { renameSync } from "node:fs";\nrenameSync(".pi", "elsewhere");\nreturn "moved";',
			),
		);
		expect(error.phase).toBe("permission");
		expect(existsSync(join(box.cwd, "elsewhere"))).toBe(false);
	});
});

describe("escapes from the language and the process", () => {
	let arena: Arena;
	let box: IsolatedBox;
	beforeAll(async () => {
		arena = await openArena();
		box = arena.box;
	});
	afterAll(async () => closeArena(arena));
	afterEach(async () => expectCanaryIntact(arena));

	it.each([
		["a computed import()", 'const m = ["node:", "os"].join("");\nreturn await import(m);', "A computed import()"],
		[
			"require of a non-literal",
			'const m = ["node:", "os"].join("");\nreturn require(m);',
			"require() with a module name that is not a string literal",
		],
		["new Function", 'return new Function("return process")();', "`new Function(…)`"],
		["eval", 'return eval("process");', "`eval` is not allowed"],
		[
			"module.constructor",
			'return (module as any).constructor._load("node:net");',
			"`module.constructor` is not allowed",
		],
	])("%s is refused at forge time (phase import) and nothing is written", async (_label, logic, message) => {
		const before = await settled(box);
		const error = failure(await forge(box, "escape", logic));
		expect(error.phase).toBe("import");
		expect(error.message).toContain(message);
		expect(await settled(box)).toEqual(before);
	});

	it("require aliased past the import check still serves only the core library (phase import at run time)", async () => {
		// `arguments` of the module wrapper holds require without naming it, so only the run-time check can stop it.
		const error = failure(
			await forgeAndRun(
				box,
				"alias-require",
				'return load(["node:", "net"].join("")).createServer;\n}\nconst load = arguments[1];\nfunction unused() {',
			),
		);
		expect(error.phase).toBe("import");
		expect(error.message).toContain('require("node:net") was refused at run time');
	});

	it.each([
		["eval reached at run time", 'return (globalThis as any)[["ev", "al"].join("")]("1 + 1");'],
		[
			"the Function constructor reached by computed access",
			'const c = ["constr", "uctor"].join("");\nreturn ({} as any)[c][c]("return process")();',
		],
	])("%s throws EvalError: code generation from strings is disabled", async (_label, logic) => {
		const error = failure(await forgeAndRun(box, "codegen", logic));
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe("EvalError: Code generation from strings disallowed for this context");
	});

	it.each([
		[
			"process.binding",
			'return (process as any)[["bind", "ing"].join("")]("fs");',
			"process.binding is not available",
		],
		[
			"process.getBuiltinModule",
			'return (process as any)[["getBuiltin", "Module"].join("")]("node:child_process");',
			"process.getBuiltinModule is not available",
		],
		// SIGCONT: were the refusal ever lost, the test fails instead of killing the test runner (pi's process here).
		[
			"process.kill(process.ppid)",
			'(process as any)[["ki", "ll"].join("")](process.ppid, "SIGCONT");\nreturn "signalled";',
			"process.kill is not available",
		],
		[
			"process._kill (what kill calls)",
			'(process as any)[["_ki", "ll"].join("")](process.ppid, 18);\nreturn "signalled";',
			"process._kill is not available",
		],
		["process.exit", "process.exit(1);", "process.exit is not available"],
		["process.chdir", 'process.chdir("/");\nreturn process.cwd();', "process.chdir is not available"],
	])("%s at run time is refused (phase runtime)", async (_label, logic, message) => {
		const error = failure(await forgeAndRun(box, "proc", logic));
		expect(error.phase).toBe("runtime");
		expect(error.message).toContain(message);
	});

	it("module.constructor reached by computed access is a plain Object, not the module loader", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"module-ctor",
				'const c = ["constr", "uctor"].join("");\nreturn (module as any)[c]._load("node:net");',
			),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toMatch(/TypeError: .*_load is not a function/);
	});

	it("a refused process member cannot be put back", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"restore-kill",
				'const k = ["ki", "ll"].join("");\n(process as any)[k] = () => "mine";\nreturn (process as any)[k](process.ppid, 0);',
			),
		);
		expect(error.phase).toBe("runtime");
		// Strict code throws on the assignment, sloppy code ignores it: either way the refusal stays.
		expect(error.message).toMatch(/Cannot assign to read only property 'kill'|process\.kill is not available/);
	});

	it("a thrown value that cannot be read (a hostile Proxy) still fails the call at once (phase runtime)", async () => {
		const logic =
			'const trap = () => { throw new Error("trapped"); };\nthrow new Proxy({}, { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap });';
		const { value, ms } = await timed(() => forgeAndRun(box, "hostile-throw", logic));
		const error = failure(value);
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe("The tool threw a value that cannot be read (reading it throws).");
		expect(ms).toBeLessThan(TIMEOUT_MS);
	});

	it("writing raw bytes to a file descriptor (the runner's channel to pi) is refused, and pi keeps its runner", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"fd-write",
				'import { writeSync } from "node:fs";\nwriteSync(3, "garbage for the IPC parser");\nreturn "sent";',
			),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toContain("fs.writeSync is not available to forged tools");
		const stolen = failure(
			await forgeAndRun(box, "fd-read", 'import { readFileSync } from "node:fs";\nreturn readFileSync(3, "utf8");'),
		);
		expect(stolen.message).toContain("works only on a file descriptor the tool opened itself");
	});

	it("prototype pollution in one tool is not seen by another tool or by the canary", async () => {
		// What the polluter itself returns is its own business (its worker's arrays are broken): it only has to run.
		expect(
			(
				await forgeAndRun(
					box,
					"polluter",
					'(Object.prototype as any).polluted = 1;\n(Array.prototype as any).map = () => ["hijacked"];\nreturn "done";',
				)
			).ok,
		).toBe(true);
		expect(
			text(
				await forgeAndRun(
					box,
					"observer",
					"return JSON.stringify({ polluted: ({} as any).polluted ?? null, map: [1, 2].map((x) => x * 2) });",
				),
			),
		).toBe('{"polluted":null,"map":[2,4]}');
	});

	it("prototype pollution by one module's top-level code at forge time does not reach the next forge", async () => {
		await forgeOk(box, "polluter-at-load", topLevel('(Object.prototype as any).execute = () => "hijacked";'));
		// Its top-level code throws if the pollution is visible, so the forge itself says whether the preflight was clean.
		await forgeOk(
			box,
			"checker-at-load",
			topLevel('if ((({}) as any).execute) throw new Error("polluted by an earlier forge");'),
		);
	});
});

describe("attacks at forge time (top-level code runs in the preflight)", () => {
	let arena: Arena;
	let box: IsolatedBox;
	beforeAll(async () => {
		arena = await openArena();
		box = arena.box;
	});
	afterAll(async () => closeArena(arena));
	afterEach(async () => expectCanaryIntact(arena));

	it("a top-level while (true) fails the forge (phase load) within the deadline, and nothing changes on disk", async () => {
		const before = await settled(box);
		const { value, ms } = await timed(() => forge(box, "hang-at-load", topLevel("while (true) {}")));
		const error = failure(value);
		expect(error.phase).toBe("load");
		expect(error.message).toBe(
			`Loading forge-hang-at-load.ts did not finish within ${TIMEOUT_MS} ms: its top-level code never ends.`,
		);
		expect(ms).toBeLessThan(STOP_BOUND_MS);
		expect(await settled(box)).toEqual(before);
		expect(box.toolbox.get("hang-at-load")).toBeUndefined();
	});

	it.each([
		[
			"signal pi's process",
			'(process as any)[["ki", "ll"].join("")](process.ppid, 0);',
			"process.kill is not available",
		],
		[
			"write to the runner's channel to pi",
			'require("node:fs").writeSync(3, "garbage");',
			"fs.writeSync is not available",
		],
		[
			"write a file",
			'require("node:fs").writeFileSync("at-load.txt", "x");',
			"A forged module may not call fs.writeFile",
		],
		[
			"run a command",
			'require("node:child_process").execSync("id");',
			"A forged module may not run `id` while it loads.",
		],
		[
			"read a secret variable",
			"process.env.SOME_SECRET;",
			"A forged module may not see the environment variable SOME_SECRET while it loads.",
		],
	])("top-level code that tries to %s fails the forge (phase load)", async (_label, code, message) => {
		const before = await settled(box);
		const error = failure(await forge(box, "bad-at-load", topLevel(code)));
		expect(error.phase).toBe("load");
		expect(error.message).toContain(message);
		expect(await settled(box)).toEqual(before);
		expect(existsSync(join(box.cwd, "at-load.txt"))).toBe(false);
	});

	it("a top-level heap bomb fails the forge (phase load) and the next forge works", async () => {
		const error = failure(
			await forge(
				box,
				"heap-at-load",
				topLevel("const hoard: number[][] = [];\nfor (;;) hoard.push(new Array(100_000).fill(1));"),
			),
		);
		expect(error.phase).toBe("load");
		expect(error.message).toMatch(/heap|memory/);
		await forgeOk(box, "after-heap-at-load", 'return "fine";');
	});
});

describe("resource attacks", () => {
	let arena: Arena;
	let box: IsolatedBox;
	beforeAll(async () => {
		arena = await openArena();
		box = arena.box;
	});
	afterAll(async () => closeArena(arena));
	afterEach(async () => expectCanaryIntact(arena));

	it.each([
		["a synchronous infinite loop", "while (true) {}"],
		[
			"endless microtasks that never yield",
			"const spin = (): void => queueMicrotask(spin);\nspin();\nawait new Promise(() => {});",
		],
		["a promise that never settles", "await new Promise(() => {});"],
		["Atomics.wait forever", "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\nreturn 1;"],
	])("%s is stopped at the deadline (phase timeout)", async (_label, logic) => {
		await forgeOk(box, "hang", logic);
		const { value, ms } = await timed(() => box.toolbox.use("hang", {}, { host: noUI }));
		const error = failure(value);
		expect(error.phase).toBe("timeout");
		expect(error.message).toBe(`'hang' did not finish within ${TIMEOUT_MS} ms and was stopped.`);
		// A loop that never ends is the model's to fix, not a setting to raise.
		expect(error.details.hint).toMatch(
			/^If the logic can loop forever .* fix that and call forge_tool again\. If it is only slow, .*the user can also raise PI_FORGE_TIMEOUT_MS\.$/,
		);
		expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
		expect(ms).toBeLessThan(STOP_BOUND_MS);
	});

	it("a looping tool does not hold up another tool running at the same time", async () => {
		await forgeOk(box, "spin", "while (true) {}");
		const spinning = box.toolbox.use("spin", {}, { host: noUI });
		const { value, ms } = await timed(() => box.toolbox.use("canary", { text: "meanwhile" }, { host: noUI }));
		expect(text(value)).toBe("canary:meanwhile");
		expect(ms).toBeLessThan(TIMEOUT_MS / 2);
		expect(failure(await spinning).phase).toBe("timeout");
	});

	it("heap growth is stopped at the heap cap (phase memory)", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"hoarder",
				"const hoard: number[][] = [];\nfor (;;) hoard.push(new Array(100_000).fill(1));",
			),
		);
		expect(error.phase).toBe("memory");
		expect(error.message).toBe("'hoarder' used more than 64 MB of heap and was stopped.");
		expect(error.details.hint).toContain("PI_FORGE_MAX_MEMORY_MB");
	});

	it("a promise chain that grows without end is stopped at the heap cap (phase memory), and the runner stays up for the next call", async () => {
		// On Node 24 a host-wide --max-old-space-size overrode the workers' heap caps, and this chain aborted the whole host.
		const error = failure(
			await forgeAndRun(
				box,
				"chain",
				"const spin = (): Promise<void> => Promise.resolve().then(spin);\nspin();\nawait new Promise(() => {});",
			),
		);
		expect(error.phase).toBe("memory");
		// The worker is stopped at its cap, or V8 ends the host when the cap is hit inside a garbage collection: either way
		// the call fails for memory and the next call gets a runner.
		expect(error.message).toMatch(
			/^'chain' (used more than 64 MB of heap and was stopped|ran out of memory \(PI_FORGE_MAX_MEMORY_MB=64\))/,
		);
		expect(text(await forgeAndRun(box, "after-chain", 'return "still here";'))).toBe("still here");
	});

	it("gigabyte Buffers (outside the heap cap) are stopped by the runner's memory watch (phase memory)", async () => {
		const { value, ms } = await timed(() =>
			forgeAndRun(
				box,
				"buffers",
				"const kept: Buffer[] = [];\nfor (let i = 0; i < 6; i++) kept.push(Buffer.alloc(2 ** 30, 1));\nreturn kept.length;",
			),
		);
		const error = failure(value);
		expect(error.phase).toBe("memory");
		expect(error.message).toMatch(/'buffers' used more memory than allowed/);
		expect(ms).toBeLessThan(STOP_BOUND_MS);
		// The runner came back clean: a call right after is not refused for memory the stopped tool held.
		expect(text(await forgeAndRun(box, "small-after-buffers", 'return "small";'))).toBe("small");
	});

	it("deep recursion is a RangeError (phase runtime), located in the tool", async () => {
		const error = failure(
			await forgeAndRun(box, "recurse", "const down = (n: number): number => down(n + 1) + 1;\nreturn down(0);"),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe("RangeError: Maximum call stack size exceeded");
		expect(error.details.location?.file).toBe("forge-recurse.ts");
	});

	it("a 100 MB string output is cut to the output cap or fails for memory, and pi's memory stays put", async () => {
		const rssBefore = process.memoryUsage.rss();
		const used = await forgeAndRun(box, "huge-output", 'return "x".repeat(100 * 1024 * 1024);');
		// V8 may hold the string as a rope small enough for the heap cap, or not: either outcome is clean.
		if (used.ok) expect(text(used).endsWith("[output cut at 10240 KB of 102400 KB]")).toBe(true);
		else expect(used.error.phase).toBe("memory");
		expect(used.ok ? text(used).length : 0).toBeLessThan(10 * 1024 * 1024 + 200);
		expect(process.memoryUsage.rss() - rssBefore).toBeLessThan(64 * 1024 * 1024);
	});

	it("a 16 MB string output is cut to the output cap before it reaches pi", async () => {
		const out = text(await forgeAndRun(box, "big-output", 'return "y".repeat(16 * 1024 * 1024);'));
		expect(out.length).toBeLessThan(10 * 1024 * 1024 + 200);
		expect(out.endsWith("[output cut at 10240 KB of 16384 KB]")).toBe(true);
	});

	it("a 12 MB image and 12 MB of details are left out with a note, not carried to pi", async () => {
		const used = await forgeAndRun(
			box,
			"big-blocks",
			'const blob = "A".repeat(12 * 1024 * 1024);\nreturn { content: [{ type: "text", text: "head" }, { type: "image", mimeType: "image/png", data: blob }], details: { blob } };',
		);
		expect(used.ok && used.value.details).toBeUndefined();
		expect(text(used)).toBe(
			"head\n[an image of 12288 KB was left out: the output is capped at 10240 KB]\n[details of 12288 KB were left out: the output is capped at 10240 KB]",
		);
	});

	it("details holding a function reach pi as JSON sees them (the function left out), not as a cloned object", async () => {
		const used = await forgeAndRun(
			box,
			"fn-details",
			'return { content: [{ type: "text", text: "ok" }], details: { run() {}, kept: 1 } };',
		);
		expect(used.ok && used.value.details).toEqual({ kept: 1 });
	});

	it("a write too large to hand to pi's process at once is refused before it leaves the worker", async () => {
		const rssBefore = process.memoryUsage.rss();
		const error = failure(
			await forgeAndRun(
				box,
				"big-write",
				'import { writeFileSync } from "node:fs";\nwriteFileSync("big.bin", Buffer.alloc(256 * 1024 * 1024));\nreturn "written";',
			),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe(
			"fs.writeFile carries 256 MB: more than a forged tool may hand to pi's process at once (64 MB).",
		);
		expect(existsSync(join(box.cwd, "big.bin"))).toBe(false);
		expect(process.memoryUsage.rss() - rssBefore).toBeLessThan(64 * 1024 * 1024);
	});

	it("a tool that removes the safety net and throws from a timer takes down only its own worker (phase runtime)", async () => {
		const logic =
			'process.removeAllListeners("uncaughtException");\nsetTimeout(() => { throw new Error("from a timer"); }, 0);\nawait new Promise((resolve) => setTimeout(resolve, 100));\nreturn "after";';
		const error = failure(await forgeAndRun(box, "crasher", logic));
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe("The tool's worker crashed: from a timer");
	});

	it("a timer left running after the call returned cannot write any more", async () => {
		const logic =
			'import { appendFile } from "node:fs";\nsetInterval(() => appendFile("ticks.txt", "tick", () => {}), 20);\nreturn "started";';
		expect(text(await forgeAndRun(box, "ticker", logic))).toBe("started");
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(existsSync(join(box.cwd, "ticks.txt"))).toBe(false);
	});

	it("an unhandled rejection does not fail the call nor the calls after it", async () => {
		expect(
			text(await forgeAndRun(box, "reject", 'Promise.reject(new Error("nobody listens"));\nreturn "returned";')),
		).toBe("returned");
		expect(text(await box.toolbox.use("reject", {}, { host: noUI }))).toBe("returned");
	});

	it("a throw from a setTimeout callback does not take the worker down", async () => {
		const logic =
			'setTimeout(() => { throw new Error("from a timer"); }, 0);\nawait new Promise((resolve) => setTimeout(resolve, 50));\nreturn "after the timer";';
		expect(text(await forgeAndRun(box, "timer-throw", logic))).toBe("after the timer");
		expect(text(await box.toolbox.use("timer-throw", {}, { host: noUI }))).toBe("after the timer");
	});
});

describe("commands and environment without grants (prompt policy, no UI)", () => {
	let arena: Arena;
	let box: IsolatedBox;
	beforeAll(async () => {
		process.env.SOME_SECRET = "hunter2-but-longer";
		arena = await openArena();
		box = arena.box;
	});
	afterAll(async () => {
		delete process.env.SOME_SECRET;
		await closeArena(arena);
	});
	afterEach(async () => expectCanaryIntact(arena));

	it("execSync is refused with a hint naming the grants file and the command that grants that shell line", async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"run-id",
				'import { execSync } from "node:child_process";\nreturn execSync("id", { encoding: "utf8" });',
			),
		);
		expect(error.phase).toBe("permission");
		expect(error.message).toBe("'run-id' may not run `id`: no UI to ask.");
		expect(error.details.hint).toContain(box.grants.file);
		expect(error.details.grants?.[0]).toBe("agent-forge grant run-id shell:id");
	});

	it("pi.exec is refused the same way", async () => {
		const error = failure(
			await forgeAndRun(box, "pi-exec", 'const { stdout } = await pi.exec("id");\nreturn stdout;'),
		);
		expect(error.phase).toBe("permission");
		expect(error.message).toBe("'pi-exec' may not run `id`: no UI to ask.");
	});

	it("a variable outside the safe set is refused", async () => {
		const error = failure(await forgeAndRun(box, "secret-env", "return process.env.SOME_SECRET;"));
		expect(error.phase).toBe("permission");
		expect(error.message).toBe("'secret-env' may not see the environment variable SOME_SECRET: no UI to ask.");
		expect(error.message).not.toContain("hunter2");
	});

	it("top-level code cannot hide from the preflight by its file's path: the forge's load is from the live path", async () => {
		// The candidate's preflight runs before anything is staged, from the path the tool will live at, so a module
		// that reaches for the secret only "once it is live" (not from .staging) does so in the preflight and is refused.
		const forged = await forge(
			box,
			"sneaky-path",
			topLevel('if (!__filename.includes(".staging")) (globalThis as any).leak = process.env.SOME_SECRET;'),
		);
		expect(forged.ok).toBe(false);
		expect(!forged.ok && forged.error.message).toBe(
			"Loading forge-sneaky-path.ts failed: A forged module may not see the environment variable SOME_SECRET while it loads.",
		);
		expect(box.toolbox.get("sneaky-path")).toBeUndefined();
	});

	it("top-level code that hides from the preflight meets the same wall at run time, in its own name", async () => {
		// The preflight's refusal says "while it loads": this module swallows that one, so it passes the preflight and
		// only reaches for the secret for real in a tool's worker.
		const error = failure(
			await forgeAndRun(
				box,
				"sneaky",
				topLevel(
					'try { (globalThis as any).leak = process.env.SOME_SECRET; } catch (error) { if (!String((error as Error).message).includes("while it loads")) throw error; }',
				),
			),
		);
		expect(error.phase).toBe("permission");
		expect(error.message).toBe(
			"Loading forge-sneaky.ts failed: 'sneaky' may not see the environment variable SOME_SECRET: no UI to ask.",
		);
		await box.audit.flush();
		expect(
			(await readAudit(box.audit.file)).some(
				(r) => r.tool === "sneaky" && r.capability === "env:SOME_SECRET" && r.decision === "deny",
			),
		).toBe(true);
	});

	it("PATH is in the safe set", async () => {
		expect(text(await forgeAndRun(box, "path-env", "return process.env.PATH;"))).toBe(process.env.PATH);
	});
});

describe("writes into the toolbox and the forge's own files", () => {
	let arena: Arena;
	let box: IsolatedBox;
	const TARGET_SCHEMA = { type: "object", properties: { target: { type: "string" } }, required: ["target"] };
	beforeAll(async () => {
		arena = await openArena();
		box = arena.box;
		mkdirSync(join(box.cwd, ".pi", "forge"), { recursive: true });
		writeFileSync(join(box.cwd, ".pi", "forge", "config.json"), '{ "policy": "prompt" }\n');
		await box.toolbox.use("canary", { text: "audited" }, { host: noUI });
		await box.toolbox.flush();
		await box.audit.flush();
	});
	afterAll(async () => closeArena(arena));
	afterEach(async () => expectCanaryIntact(arena));

	it.each([
		[
			"forge-canary.ts",
			".pi/forge/extensions/forge-canary.ts",
			'fs.writeFileSync(params.target, "export const pwned = 1;");',
		],
		["forge-canary.json", ".pi/forge/extensions/forge-canary.json", 'fs.renameSync(params.target, "stolen.json");'],
		["forge-registry.json", ".pi/forge/extensions/forge-registry.json", "fs.unlinkSync(params.target);"],
		[
			"the audit log",
			".pi/forge/extensions/.forge-audit.jsonl",
			'fs.appendFileSync(params.target, "{\\"forged\\":true}\\n");',
		],
		[
			"the project's forge config",
			".pi/forge/config.json",
			'fs.writeFileSync(params.target, "{ \\"policy\\": \\"permissive\\" }");',
		],
		[
			"a new file in the toolbox",
			".pi/forge/extensions/forge-planted.ts",
			'fs.copyFileSync("seed.txt", params.target);',
		],
	])("%s cannot be written (phase permission) and stays as it was", async (_label, target, write) => {
		writeFileSync(join(box.cwd, "seed.txt"), "seed");
		await forgeOk(
			box,
			"toolbox-writer",
			`import * as fs from "node:fs";\n${write}\nreturn "written";`,
			TARGET_SCHEMA,
		);
		await box.toolbox.flush();
		await box.audit.flush();
		const file = join(box.cwd, target);
		const before = existsSync(file) ? readFileSync(file, "utf8") : undefined;
		const error = failure(await box.toolbox.use("toolbox-writer", { target }, { host: noUI }));
		expect(error.phase).toBe("permission");
		expect(error.message).toContain("is never writable by a forged tool");
		await box.audit.flush();
		const after = existsSync(file) ? readFileSync(file, "utf8") : undefined;
		// The audit log grows with every call; only the forge itself may add to it.
		if (target.endsWith(".jsonl")) expect(after?.startsWith(before!) && !after.includes('"forged":true')).toBe(true);
		else expect(after).toBe(before);
	});

	it('a read that opens for writing (readFile with flag "w" truncates) is refused, and the file keeps its content', async () => {
		const error = failure(
			await forgeAndRun(
				box,
				"read-truncate",
				'import { readFileSync } from "node:fs";\nreturn String(readFileSync(".pi/forge/extensions/forge-canary.ts", { flag: "w" }));',
			),
		);
		expect(error.phase).toBe("runtime");
		expect(error.message).toContain('fs.readFile opens files for reading only (flag "w" refused)');
	});

	it("the grants file and the runner's code cannot be written either", async () => {
		await forgeOk(
			box,
			"forge-home-writer",
			'import { writeFileSync } from "node:fs";\nwriteFileSync(params.target, "{}");\nreturn "written";',
			TARGET_SCHEMA,
		);
		for (const target of [box.grants.file, join(RUNTIME_DIR, "pwned.mjs")]) {
			const error = failure(await box.toolbox.use("forge-home-writer", { target }, { host: noUI }));
			expect(error.phase).toBe("permission");
			expect(existsSync(target)).toBe(false);
		}
	});

	it("writes inside the project and the tool's private temp dir are allowed, and land as written", async () => {
		// "$TMPDIR/…": the tool's own temp dir (the shared OS temp dir is outside its roots).
		const logic =
			'import { mkdirSync, writeFileSync } from "node:fs";\nimport { dirname, join } from "node:path";\nconst target = params.target.startsWith("$TMPDIR/") ? join(process.env.TMPDIR, params.target.slice(8)) : params.target;\nmkdirSync(dirname(target), { recursive: true });\nwriteFileSync(target, "written by a tool");\nreturn target;';
		await forgeOk(box, "plain-writer", logic, TARGET_SCHEMA);
		for (const target of [join(box.cwd, "out", "report.txt"), "$TMPDIR/out/report.txt"]) {
			const written = text(await box.toolbox.use("plain-writer", { target }, { host: noUI }));
			expect(written.endsWith("/out/report.txt")).toBe(true);
			expect(readFileSync(written, "utf8")).toBe("written by a tool");
		}
	});
});

describe("policies", () => {
	it("strict: commands are refused, and so is every host fetch asks for (WebSocket does not exist)", async () => {
		const arena = await openArena({ PI_FORGE_POLICY: "strict" });
		try {
			const error = failure(
				await forgeAndRun(
					arena.box,
					"strict-exec",
					'import { execSync } from "node:child_process";\nreturn execSync("echo hi", { encoding: "utf8" });',
				),
			);
			expect(error.phase).toBe("permission");
			expect(error.message).toBe("'strict-exec' may not run `echo hi`: strict policy never grants.");
			expect(error.details.hint).toContain("PI_FORGE_POLICY=strict never grants");
			expect(
				text(
					await forgeAndRun(
						arena.box,
						"strict-fetch",
						'return [typeof WebSocket, await fetch("http://127.0.0.1:9/").then(() => "fetched", (e) => e.message)].join(" ");',
					),
				),
			).toBe("undefined 'strict-fetch' may not connect to 127.0.0.1:9: strict policy never grants.");
			await expectCanaryIntact(arena);
		} finally {
			await closeArena(arena);
		}
	});

	it("permissive: commands run", async () => {
		const arena = await openArena({ PI_FORGE_POLICY: "permissive" });
		try {
			expect(
				text(
					await forgeAndRun(
						arena.box,
						"permissive-exec",
						'import { execSync } from "node:child_process";\nreturn execSync("echo hi", { encoding: "utf8" });',
					),
				),
			).toBe("hi\n");
			await expectCanaryIntact(arena);
		} finally {
			await closeArena(arena);
		}
	});
});

describe("asking a person (prompt policy with a UI)", () => {
	let arena: Arena;
	let box: IsolatedBox;
	let project: string;
	const EXEC =
		'import { execSync } from "node:child_process";\nreturn execSync("echo allowed", { encoding: "utf8" });';

	/** A UI that answers every question with `answer` and records the questions. */
	const ui = (answer: string) => {
		const asked: Array<{ title: string; options: string[] }> = [];
		const host: RunHost = {
			pi: {},
			hasUI: true,
			notify() {},
			select: async (title, options) => {
				asked.push({ title, options });
				return answer;
			},
		};
		return { host, asked };
	};

	beforeAll(async () => {
		arena = await openArena();
		box = arena.box;
		project = realpathSync(box.cwd);
	});
	afterAll(async () => closeArena(arena));
	afterEach(async () => expectCanaryIntact(arena));

	it("Allow once: the command runs, and the next call asks again", async () => {
		const { host, asked } = ui("Allow once");
		await forgeOk(box, "ask-once", EXEC);
		expect(text(await box.toolbox.use("ask-once", {}, { host }))).toBe("allowed\n");
		expect(text(await box.toolbox.use("ask-once", {}, { host }))).toBe("allowed\n");
		const title = [
			"Forged tool 'ask-once' (v1) wants to run a shell command:",
			"  shell line: echo allowed",
			"  program: /bin/sh -c <the line above>",
			`  in: ${project}`,
			"  environment: pi's own (no changes)",
			`"Always" allows exactly this shell line for this version of 'ask-once'.`,
		].join("\n");
		expect(asked).toEqual([
			{ title, options: ["Allow once", "Always allow for this tool", "Deny"] },
			{ title, options: ["Allow once", "Always allow for this tool", "Deny"] },
		]);
		expect(box.grants.get(project, "ask-once")).toEqual({ allow: [], deny: [] });
	});

	it("Always allow: the command runs, the grant is written to the grants file, and nobody is asked again", async () => {
		const { host, asked } = ui("Always allow for this tool");
		await forgeOk(box, "ask-always", EXEC);
		expect(text(await box.toolbox.use("ask-always", {}, { host }))).toBe("allowed\n");
		expect(text(await box.toolbox.use("ask-always", {}, { host }))).toBe("allowed\n");
		expect(asked).toHaveLength(1);
		const file = JSON.parse(readFileSync(box.grants.file, "utf8"));
		expect(file.projects[project]["ask-always"]).toEqual({
			hash: box.toolbox.get("ask-always")?.hash,
			allow: ["shell:echo allowed"],
			deny: [],
		});
	});

	it("Deny: the call fails (phase permission), saying the user denied it", async () => {
		const { host, asked } = ui("Deny");
		await forgeOk(box, "ask-deny", EXEC);
		const error = failure(await box.toolbox.use("ask-deny", {}, { host }));
		expect(error.phase).toBe("permission");
		expect(error.message).toBe("'ask-deny' may not run `echo allowed`: denied by the user.");
		expect(asked).toHaveLength(1);
	});

	it("an answer that comes after the call was cancelled does not run the command", async () => {
		const cancel = new AbortController();
		const host: RunHost = {
			pi: {},
			hasUI: true,
			notify() {},
			select: async () => {
				cancel.abort();
				await new Promise((resolve) => setTimeout(resolve, 50));
				return "Allow once";
			},
		};
		await forgeOk(
			box,
			"ask-late",
			'import { execSync } from "node:child_process";\nexecSync("touch late.txt");\nreturn "touched";',
		);
		const error = failure(await box.toolbox.use("ask-late", {}, { host, signal: cancel.signal }));
		expect(error.phase).toBe("aborted");
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(existsSync(join(box.cwd, "late.txt"))).toBe(false);
	});

	it("a person thinking does not count against the deadline", async () => {
		const host: RunHost = {
			pi: {},
			hasUI: true,
			notify() {},
			select: async () => new Promise((resolve) => setTimeout(() => resolve("Allow once"), TIMEOUT_MS + 300)),
		};
		await forgeOk(box, "ask-slow", EXEC);
		expect(text(await box.toolbox.use("ask-slow", {}, { host }))).toBe("allowed\n");
	});

	it("the audit log records every decision", async () => {
		await box.audit.flush();
		const decisions = (await readAudit(box.audit.file))
			.filter((r) => r.capability?.startsWith("shell:"))
			.map((r) => [r.tool, r.decision]);
		expect(decisions).toEqual([
			["ask-once", "ask-allow-once"],
			["ask-once", "ask-allow-once"],
			["ask-always", "ask-allow-always"],
			["ask-always", "allow"],
			["ask-deny", "ask-deny"],
			// Answered after the call was cancelled: not used, not an answer (issue 11, F19).
			["ask-late", "deny"],
			["ask-slow", "ask-allow-once"],
		]);
	});
});
