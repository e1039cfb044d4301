// forge() against a real toolbox directory: files written, versions, .bak, and transactional failure.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatForModel } from "../../src/contract/error-format.ts";
import { forgeSuccessText } from "../../src/pi/forge-tool.ts";
import { parseRegistry } from "../../src/store/registry.ts";
import { snapshot, tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";

const upper = toolRequest("upper", "return params.text.toUpperCase();");

describe("forge", () => {
	it("writes forge-<name>.ts and .json, and the registry", async () => {
		const { toolbox, dir } = await tempToolbox();
		const result = await toolbox.forge(upper, new Map());
		expect(result.ok).toBe(true);

		const source = await readFile(join(dir, "forge-upper.ts"), "utf8");
		expect(source).toContain('name: "upper"');
		expect(source).toContain("return params.text.toUpperCase();");
		const meta = JSON.parse(await readFile(join(dir, "forge-upper.json"), "utf8"));
		expect(meta).toMatchObject({ name: "upper", description: "The upper tool.", version: 1 });
		expect(meta.hash).toMatch(/^sha256-[0-9a-f]{64}$/);
		await toolbox.flush();
		const registry = parseRegistry(await readFile(join(dir, "forge-registry.json"), "utf8"));
		expect(registry?.tools.upper).toMatchObject({ version: 1, status: "ok", hash: meta.hash });
	});

	it("re-forging bumps the version and keeps the previous pair as .bak", async () => {
		const { toolbox, dir } = await tempToolbox();
		await toolbox.forge(upper, new Map());
		await toolbox.flush(); // the commit's last steps (its staging folder removed) follow the forge's answer
		const v1 = await snapshot(dir);
		const result = await toolbox.forge({ ...upper, logic: "return params.text.toLowerCase();" }, new Map());
		expect(result.ok && result.value.meta.version).toBe(2);
		expect(result.ok && result.value.backedUp).toBe(true);
		expect(await readFile(join(dir, "forge-upper.ts.bak"), "utf8")).toBe(v1["forge-upper.ts"]);
		expect(await readFile(join(dir, "forge-upper.json.bak"), "utf8")).toBe(v1["forge-upper.json"]);
		const meta = JSON.parse(await readFile(join(dir, "forge-upper.json"), "utf8"));
		expect(meta.version).toBe(2);
		expect(meta.createdAt).toBe(JSON.parse(v1["forge-upper.json"]).createdAt);
	});

	const failures: Array<[string, Parameters<typeof toolRequest>[2] & { logic?: string; name?: string }, string]> = [
		["name", { name: "Upper Case" }, "name"],
		["description", { description: "" }, "description"],
		["schema", { parametersSchema: { type: "object", properties: { text: { type: "strng" } } } }, "schema"],
		["syntax", { logic: "return params.text.toUpperCase(;" }, "syntax"],
		["import", { logic: 'import { request } from "node:http";\nreturn request;' }, "import"],
		["load", { logic: 'return 1;\n}\nthrow new Error("top-level boom");\nfunction unused() {' }, "load"],
		["shape", { logic: 'return 1;\n}\nmetadata.name = "renamed";\nfunction unused() {' }, "shape"],
	];

	for (const [label, overrides, phase] of failures) {
		it(`a ${label} failure changes nothing on disk and the previous version stays live`, async () => {
			const { toolbox, dir } = await tempToolbox();
			await toolbox.forge(upper, new Map());
			await toolbox.flush();
			const before = await snapshot(dir);
			const result = await toolbox.forge({ ...upper, ...overrides }, new Map());
			expect(result.ok).toBe(false);
			if (result.ok) return;
			expect(result.error.phase).toBe(phase);
			expect(await snapshot(dir)).toEqual(before);
			const used = await toolbox.use("upper", { text: "still" }, { host: { pi: {}, hasUI: false, notify() {} } });
			expect(used.ok && used.value.content).toEqual([{ type: "text", text: "STILL" }]);
		});
	}

	it("refuses a name held by a tool that is not forged", async () => {
		const { toolbox } = await tempToolbox();
		const result = await toolbox.forge(
			toolRequest("grep", "return 1;"),
			new Map([["grep", "pi's built-in tool 'grep'"]]),
		);
		expect(!result.ok && result.error.message).toContain("pi's built-in tool 'grep'");
	});

	it("serialises parallel forges: all of them land in the registry", async () => {
		const { toolbox, dir, reopen } = await tempToolbox();
		const names = Array.from({ length: 16 }, (_, i) => `tool-${i}`);
		const results = await Promise.all(
			names.map((name) => toolbox.forge(toolRequest(name, `return "${name}";`), new Map())),
		);
		expect(results.every((r) => r.ok)).toBe(true);
		await toolbox.flush();
		const registry = parseRegistry(await readFile(join(dir, "forge-registry.json"), "utf8"));
		expect(Object.keys(registry?.tools ?? {}).sort()).toEqual([...names].sort());
		expect(
			(await reopen())
				.entries()
				.map((e) => e.name)
				.sort(),
		).toEqual([...names].sort());
	});

	it("a load error maps the throw to the line in forge-<name>.ts", async () => {
		const { toolbox } = await tempToolbox();
		const result = await toolbox.forge(
			{ ...upper, logic: 'return 1;\n}\nthrow new Error("top-level boom");\nfunction unused() {' },
			new Map(),
		);
		expect(!result.ok && result.error.message).toContain("top-level boom");
		expect(!result.ok && result.error.details.source).toContain("top-level boom");
	});
});

describe("a re-forge after a hand edit", () => {
	it("takes the edit in first: it becomes a version in the history, and the .bak label names it", async () => {
		const { toolbox, dir } = await tempToolbox();
		await toolbox.forge(upper, new Map());
		await toolbox.forge({ ...upper, logic: "return params.text.toUpperCase() + '!';" }, new Map());
		const edited = (await readFile(join(dir, "forge-upper.ts"), "utf8")).replace("'!'", "'!!!'");
		await writeFile(join(dir, "forge-upper.ts"), edited);
		const result = await toolbox.forge({ ...upper, logic: "return params.text.toLowerCase();" }, new Map());
		expect(result.ok && result.value.meta.version).toBe(4);
		if (!result.ok) return;
		expect(result.value.previous?.version).toBe(3);
		expect(forgeSuccessText(result.value)).toContain("The previous version v3 is kept as forge-upper.ts.bak.");
		expect(await readFile(join(dir, "forge-upper.ts.bak"), "utf8")).toBe(edited);
		expect(JSON.parse(await readFile(join(dir, "forge-upper.json.bak"), "utf8")).version).toBe(3);
		expect((await toolbox.versions("upper")).map((e) => `v${e.version} ${e.event}`)).toEqual([
			"v1 forged",
			"v2 forged",
			"v3 edited",
			"v4 forged",
		]);
	});

	it("a hand edit that does not pass the checks: the .bak is labelled as that version with hand edits", async () => {
		const { toolbox, dir } = await tempToolbox();
		await toolbox.forge(upper, new Map());
		const broken = (await readFile(join(dir, "forge-upper.ts"), "utf8")).replace("toUpperCase();", "toUpperCase(;");
		await writeFile(join(dir, "forge-upper.ts"), broken);
		const result = await toolbox.forge({ ...upper, logic: "return params.text.toLowerCase();" }, new Map());
		expect(result.ok && result.value.meta.version).toBe(2);
		if (!result.ok) return;
		expect(forgeSuccessText(result.value)).toContain(
			"The previous version v1 (with the hand edits made to it since, which did not pass the checks) is kept as forge-upper.ts.bak.",
		);
		expect(await readFile(join(dir, "forge-upper.ts.bak"), "utf8")).toBe(broken);
	});
});

describe("logic and schema that disagree", () => {
	it("a misnamed params.x is the logic's slip: the headline says so, not that the schema is invalid", async () => {
		const { toolbox } = await tempToolbox();
		const result = await toolbox.forge(toolRequest("shout", "return params.txt.toUpperCase();"), new Map());
		expect(!result.ok && result.error.phase).toBe("schema");
		if (result.ok) return;
		const headline = formatForModel(result.error).split("\n")[0];
		expect(headline).toBe(
			"Agent Forge: the logic reads a parameter the schema does not declare in tool 'shout' (phase: schema)",
		);
		expect(headline).not.toContain("invalid parameters schema");
		expect(result.error.details.hint).toMatch(/^Did you mean params\.text\?/);
	});

	it("a schema whose required names an undeclared property is refused before anything is written", async () => {
		const { toolbox, dir } = await tempToolbox();
		await toolbox.flush();
		const before = await snapshot(dir);
		const result = await toolbox.forge(
			toolRequest("shout", "return params.text.toUpperCase();", {
				parametersSchema: { type: "object", properties: { text: { type: "string" } }, required: ["txt"] },
			}),
			new Map(),
		);
		expect(!result.ok && result.error.phase).toBe("schema");
		expect(!result.ok && formatForModel(result.error).split("\n")[0]).toBe(
			"Agent Forge: invalid parameters schema in tool 'shout' (phase: schema)",
		);
		expect(!result.ok && result.error.details.hint).toMatch(/^Did you mean 'text'\?/);
		expect(await snapshot(dir)).toEqual(before);
	});
});

describe("credentials in the logic", () => {
	it("are refused at forge time, located, and nothing is written", async () => {
		const { toolbox, dir } = await tempToolbox();
		await toolbox.flush();
		const before = await snapshot(dir);
		const result = await toolbox.forge(
			toolRequest("leaky", 'const key = "sk-proj-4f8Kq2LxZ9mN3pR7tV1wY6bC5dE0gH8j";\nreturn key.length;'),
			new Map(),
		);
		expect(!result.ok && result.error.phase).toBe("secrets");
		expect(!result.ok && result.error.message).toContain("OpenAI API key");
		expect(!result.ok && result.error.message).not.toContain("4f8Kq2LxZ9mN3pR7tV1wY6bC5dE0gH8j");
		expect(!result.ok && result.error.details.location?.line).toBeGreaterThan(20);
		expect(await snapshot(dir)).toEqual(before);
	});
});

describe("logic that leaves the body of execute", () => {
	it("closing execute and adding a default export (a pi extension factory) is refused; nothing is written", async () => {
		const { toolbox, dir } = await tempToolbox();
		for (const logic of [
			'return "x";\n}\nexport default function (pi: any) {\n\tpi.registerTool({ name: "evil" });',
			'return "x";\n}\nfunction factory() {}\nexport { factory as default };\nfunction tail() {',
		]) {
			const before = await snapshot(dir);
			const result = await toolbox.forge(toolRequest("escaper", logic), new Map());
			expect(result.ok).toBe(false);
			expect(!result.ok && result.error.phase).toBe("import");
			expect(!result.ok && result.error.message).toContain("A default export is not allowed");
			expect(await snapshot(dir)).toEqual(before);
		}
	});
});
