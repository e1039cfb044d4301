// use(): resolution, argument validation, runtime errors mapped to the file, deadlines, cancellation, output shapes.
import { describe, expect, it } from "vitest";
import { host, tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";

async function boxWith(logic: string, env: Record<string, string> = {}, overrides = {}) {
	const box = await tempToolbox(env);
	const result = await box.toolbox.forge(toolRequest("subject", logic, overrides), new Map());
	if (!result.ok) throw result.error;
	return box.toolbox;
}

describe("use", () => {
	it("an unknown tool names similar tools", async () => {
		const toolbox = await boxWith("return 1;");
		const result = await toolbox.use("subjekt", {}, { host });
		expect(!result.ok && result.error.phase).toBe("not-found");
		expect(!result.ok && result.error.details.notes?.join()).toContain("subject");
	});

	it("wrong arguments are refused before the tool runs, naming the field and showing the schema", async () => {
		const toolbox = await boxWith("throw new Error('must not run');");
		const missing = await toolbox.use("subject", {}, { host });
		expect(!missing.ok && missing.error.phase).toBe("arguments");
		expect(!missing.ok && missing.error.details.notes).toEqual(["params.text: must have required property 'text'"]);
		expect(!missing.ok && missing.error.details.schema).toMatchObject({ required: ["text"] });
		const wrongShape = await toolbox.use("subject", { text: { nested: true } }, { host });
		expect(!wrongShape.ok && wrongShape.error.details.notes).toEqual(["params.text: must be string"]);
		const notObject = await toolbox.use("subject", ["text"], { host });
		expect(!notObject.ok && notObject.error.message).toContain("args must be an object");
	});

	it("a throw comes back with the message, the mapped line, the arguments and the source", async () => {
		const toolbox = await boxWith(
			"const parts = params.text.split(',');\nif (parts.length > 1) throw new RangeError('too many parts');\nreturn parts[0];",
		);
		const result = await toolbox.use("subject", { text: "a,b" }, { host });
		expect(result.ok).toBe(false);
		if (result.ok) return;
		const { error } = result;
		expect(error.phase).toBe("runtime");
		expect(error.message).toBe("RangeError: too many parts");
		const source = error.details.source ?? "";
		const throwLine = source.split("\n").findIndex((l) => l.includes("throw new RangeError")) + 1;
		expect(error.details.location).toEqual({ file: "forge-subject.ts", line: throwLine, column: expect.any(Number) });
		expect(error.details.args).toEqual({ text: "a,b" });
		expect(error.details.stack?.[0]).toMatch(/^at execute \(forge-subject\.ts:\d+:\d+\)$/);
	});

	it("a thrown non-Error value is reported", async () => {
		const toolbox = await boxWith("throw 'plain string';");
		const result = await toolbox.use("subject", { text: "" }, { host });
		expect(!result.ok && result.error.message).toBe("Thrown value: plain string");
	});

	it("a promise that never settles is stopped at the deadline", async () => {
		const toolbox = await boxWith("await new Promise(() => {});", { PI_FORGE_TIMEOUT_MS: "150" });
		const started = Date.now();
		const result = await toolbox.use("subject", { text: "" }, { host });
		expect(!result.ok && result.error.phase).toBe("timeout");
		expect(Date.now() - started).toBeLessThan(2000);
	});

	it("the tool sees its signal aborted at the deadline", async () => {
		const toolbox = await boxWith(
			"globalThis.__forgeSeenAbort = false;\nctx.signal.addEventListener('abort', () => { globalThis.__forgeSeenAbort = true; });\nawait new Promise(() => {});",
			{ PI_FORGE_TIMEOUT_MS: "50" },
		);
		await toolbox.use("subject", { text: "" }, { host });
		expect((globalThis as { __forgeSeenAbort?: boolean }).__forgeSeenAbort).toBe(true);
	});

	it("cancellation by pi's signal ends the call as aborted", async () => {
		const toolbox = await boxWith("await new Promise(() => {});");
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 30);
		const result = await toolbox.use("subject", { text: "" }, { host, signal: controller.signal });
		expect(!result.ok && result.error.phase).toBe("aborted");
	});

	it("normalises strings, JSON values, undefined and pi tool results", async () => {
		const toolbox = await boxWith(
			"switch (params.text) {\n case 'string': return 'hello';\n case 'json': return { a: [1, 2] };\n case 'none': return;\n default: return { content: [{ type: 'text', text: 'raw' }], details: { d: 1 } };\n}",
		);
		const text = async (input: string) => {
			const result = await toolbox.use("subject", { text: input }, { host });
			if (!result.ok) throw result.error;
			return result.value;
		};
		expect((await text("string")).content).toEqual([{ type: "text", text: "hello" }]);
		expect(
			JSON.parse(
				(await text("json")).content[0].type === "text"
					? ((await text("json")).content[0] as { text: string }).text
					: "",
			),
		).toEqual({ a: [1, 2] });
		expect((await text("none")).content).toEqual([{ type: "text", text: "(the tool returned no value)" }]);
		expect(await text("result")).toMatchObject({ content: [{ type: "text", text: "raw" }], details: { d: 1 } });
	});

	it("runs with pi's cwd as ctx.cwd and can use the core library", async () => {
		const box = await tempToolbox();
		await box.toolbox.forge(
			toolRequest("where", 'import { join } from "node:path";\nreturn join(ctx.cwd, params.text);'),
			new Map(),
		);
		const result = await box.toolbox.use("where", { text: "a.txt" }, { host });
		expect(result.ok && result.value.content[0]).toEqual({ type: "text", text: `${box.cwd}/a.txt` });
	});

	it("records calls, failures and last use", async () => {
		const toolbox = await boxWith("if (params.text === 'bad') throw new Error('bad'); return 'ok';");
		await toolbox.use("subject", { text: "good" }, { host });
		await toolbox.use("subject", { text: "bad" }, { host });
		expect(toolbox.healthOf("subject")).toMatchObject({
			calls: 2,
			failures: 1,
			consecutiveFailures: 1,
			lastError: { phase: "runtime" },
		});
		expect(toolbox.list().tools[0].health?.lastUsedAt).toBeTypeOf("string");
	});
});

describe("the compile cache", () => {
	// A warm cache this user's key signed is used (compile-cache-trust.test.ts); one changed by hand is not.
	it("a restart does not run a cache entry changed by hand: the source is compiled again", async () => {
		const { readdir, readFile, writeFile } = await import("node:fs/promises");
		const { join } = await import("node:path");
		const box = await tempToolbox();
		await box.toolbox.forge(toolRequest("cached", "return 'compiled';"), new Map());
		await box.toolbox.flush();
		await new Promise((resolve) => setTimeout(resolve, 50));
		const dir = join(box.dir, ".state", "compiled");
		const [file] = await readdir(dir);
		// Mark the cached output: the call must not return the mark (the entry's MAC no longer fits it).
		// An entry is `<mac>\n<json>`: the mark changes the JSON and keeps the MAC.
		const text = await readFile(join(dir, file), "utf8");
		const [mac, json] = [text.slice(0, text.indexOf("\n")), text.slice(text.indexOf("\n") + 1)];
		const cached = JSON.parse(json);
		await writeFile(
			join(dir, file),
			`${mac}\n${JSON.stringify({ ...cached, code: cached.code.replace("compiled", "from the cache") })}`,
		);
		const restarted = await box.reopen();
		const used = await restarted.use("cached", { text: "" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "compiled" });
	});

	it("a cache entry for other source is never used", async () => {
		const box = await tempToolbox();
		await box.toolbox.forge(toolRequest("cached", "return 'v1';"), new Map());
		await box.toolbox.forge(toolRequest("cached", "return 'v2';"), new Map());
		const used = await (await box.reopen()).use("cached", { text: "" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "v2" });
	});
});
