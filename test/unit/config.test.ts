// Settings from the environment: defaults, the toolbox directory, and bad values reported with their fallback.
import { realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_MEMORY_MB, DEFAULT_TIMEOUT_MS, readConfig } from "../../src/config.ts";

const cwd = resolve("/projects/demo");

describe("readConfig", () => {
	it("uses the defaults with an empty environment", () => {
		const processEnv = { PATH: "/bin", MY_API_TOKEN: "a-secret-of-some-length", SOME_SETTING: "x" };
		expect(readConfig(cwd, { PI_CODING_AGENT_DIR: "/agent" }, [], processEnv)).toEqual({
			config: {
				toolboxDir: join(cwd, ".pi", "forge", "extensions"),
				timeoutMs: 30_000,
				maxMemoryMb: 512,
				policy: "prompt",
				policyFrom: "the default",
				historyLimit: 50,
				quarantineAfter: 5,
				userLimits: { historyLimit: 50, quarantineAfter: 5 },
				lockStaleMs: 5000,
				activeLimit: 12,
				activeChars: 1600,
				pinned: [],
				sandbox: "auto",
				suggest: true,
				cwd,
				agentDir: "/agent",
				forgeHome: join("/agent", "forge"),
				userToolboxDir: join("/agent", "forge", "extensions"),
				projectConfigFile: join(cwd, ".pi", "forge", "config.json"),
				projectTrusted: true,
				safeEnv: { PATH: "/bin" },
				secretValues: ["a-secret-of-some-length"],
				env: processEnv,
				realCwd: cwd,
				homeDir: homedir(),
				realTempDir: realpathSync.native(tmpdir()),
			},
			problems: [],
		});
		expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
		expect(DEFAULT_MAX_MEMORY_MB).toBe(512);
	});

	it("puts the user toolbox in the agent dir; PI_FORGE_DIR naming that very folder leaves one toolbox", () => {
		const agent = { PI_CODING_AGENT_DIR: "/agent" };
		expect(readConfig(cwd, agent).config.userToolboxDir).toBe(join("/agent", "forge", "extensions"));
		expect(readConfig(cwd, { ...agent, PI_FORGE_DIR: "/elsewhere" }).config.userToolboxDir).toBe(
			join("/agent", "forge", "extensions"),
		);
		const same = readConfig(cwd, { ...agent, PI_FORGE_DIR: "/agent/forge/extensions/" }).config;
		expect(same.toolboxDir).toBe("/agent/forge/extensions/");
		expect(same.userToolboxDir).toBeUndefined();
		expect(readConfig(cwd, {}).config.userToolboxDir).toBe(join(homedir(), ".pi", "agent", "forge", "extensions"));
	});

	it("reads what tools may see and what is secret from pi's own environment, whatever settings are given", () => {
		const { config } = readConfig(cwd, { PI_FORGE_POLICY: "strict" });
		expect(config.env).toBe(process.env);
		expect(config.safeEnv.PATH).toBe(process.env.PATH);
	});

	it("PI_FORGE_SANDBOX: off turns it off; anything else keeps it, and a value it cannot read is reported", () => {
		expect(readConfig(cwd, { PI_FORGE_SANDBOX: "off" }).config.sandbox).toBe("off");
		expect(readConfig(cwd, { PI_FORGE_SANDBOX: "OFF " }).config.sandbox).toBe("off");
		const typo = readConfig(cwd, { PI_FORGE_SANDBOX: "of" });
		expect(typo.config.sandbox).toBe("auto");
		expect(typo.problems.map((p) => p.message)).toEqual([
			expect.stringContaining("PI_FORGE_SANDBOX=of is not auto or off; using auto"),
		]);
	});

	it("PI_FORGE_SUGGEST=off silences the suggestions; PI_FORGE_NODE names the runner's Node", () => {
		expect(readConfig(cwd, { PI_FORGE_SUGGEST: "off" }).config.suggest).toBe(false);
		expect(readConfig(cwd, { PI_FORGE_SUGGEST: "on" }).config.suggest).toBe(true);
		expect(readConfig(cwd, { PI_FORGE_NODE: " /opt/node24/bin/node " }).config.nodePath).toBe("/opt/node24/bin/node");
	});

	it("takes an absolute PI_FORGE_DIR as it is", () => {
		const dir = resolve("/data/toolbox");
		expect(readConfig(cwd, { PI_FORGE_DIR: dir }).config.toolboxDir).toBe(dir);
	});

	it("resolves a relative PI_FORGE_DIR against the project directory", () => {
		expect(readConfig(cwd, { PI_FORGE_DIR: "tools/forge" }).config.toolboxDir).toBe(join(cwd, "tools", "forge"));
		expect(readConfig(cwd, { PI_FORGE_DIR: "../shared" }).config.toolboxDir).toBe(resolve(cwd, "..", "shared"));
	});

	it("ignores a blank PI_FORGE_DIR and trims one with spaces", () => {
		expect(readConfig(cwd, { PI_FORGE_DIR: "   " }).config.toolboxDir).toBe(join(cwd, ".pi", "forge", "extensions"));
		expect(readConfig(cwd, { PI_FORGE_DIR: " forge " }).config.toolboxDir).toBe(join(cwd, "forge"));
	});

	it("reads positive integer limits", () => {
		const { config, problems } = readConfig(cwd, { PI_FORGE_TIMEOUT_MS: "5000", PI_FORGE_MAX_MEMORY_MB: " 256 " });
		expect(config.timeoutMs).toBe(5000);
		expect(config.maxMemoryMb).toBe(256);
		expect(problems).toEqual([]);
	});

	it("reports bad numbers and falls back to the defaults", () => {
		for (const raw of ["abc", "0", "-5", "1.5", "10ms"]) {
			const { config, problems } = readConfig(cwd, { PI_FORGE_TIMEOUT_MS: raw, PI_FORGE_MAX_MEMORY_MB: raw });
			expect(config.timeoutMs, raw).toBe(30_000);
			expect(config.maxMemoryMb, raw).toBe(512);
			expect(problems).toEqual([
				{
					origin: { variable: "PI_FORGE_TIMEOUT_MS" },
					message: `PI_FORGE_TIMEOUT_MS=${raw} is not a positive integer up to 2147483647; using 30000`,
				},
				{
					origin: { variable: "PI_FORGE_MAX_MEMORY_MB" },
					message: `PI_FORGE_MAX_MEMORY_MB=${raw} is not a positive integer up to 2147483647; using 512`,
				},
			]);
		}
	});

	it("reads each policy, case-insensitively", () => {
		expect(readConfig(cwd, { PI_FORGE_POLICY: "strict" }).config.policy).toBe("strict");
		expect(readConfig(cwd, { PI_FORGE_POLICY: "Permissive" }).config.policy).toBe("permissive");
		expect(readConfig(cwd, { PI_FORGE_POLICY: " PROMPT " }).config.policy).toBe("prompt");
	});

	it("reports a mistyped policy and means strict, never something weaker", () => {
		for (const raw of ["stirct", "yolo", "prompt!", "permisive"]) {
			const { config, problems } = readConfig(cwd, { PI_FORGE_POLICY: raw });
			expect(config.policy, raw).toBe("strict");
			expect(problems).toEqual([
				{
					origin: { variable: "PI_FORGE_POLICY" },
					message: `PI_FORGE_POLICY=${raw} is not one of strict, prompt, permissive; using strict`,
				},
			]);
		}
	});

	it("an unset or blank policy is the default, prompt, with nothing reported", () => {
		expect(readConfig(cwd, {})).toMatchObject({ config: { policy: "prompt" }, problems: [] });
		expect(readConfig(cwd, { PI_FORGE_POLICY: "  " })).toMatchObject({ config: { policy: "prompt" }, problems: [] });
	});

	it("keeps the project directory as cwd", () => {
		expect(readConfig(cwd, { PI_FORGE_DIR: "x" }).config.cwd).toBe(cwd);
	});
});

describe("limits beyond Node's timers", () => {
	it("a timeout above 2^31-1 ms is refused and the default used", () => {
		const { config, problems } = readConfig("/project", { PI_FORGE_TIMEOUT_MS: "3000000000" });
		expect(config.timeoutMs).toBe(30_000);
		expect(problems[0].origin).toEqual({ variable: "PI_FORGE_TIMEOUT_MS" });
	});
});

describe("config files", () => {
	const files = (global?: object | string, project?: object | string) => [
		{
			path: "/agent/forge/config.json",
			text: global === undefined ? undefined : typeof global === "string" ? global : JSON.stringify(global),
		},
		{
			path: "/p/.pi/forge/config.json",
			text: project === undefined ? undefined : typeof project === "string" ? project : JSON.stringify(project),
		},
	];

	it("the environment wins over the global file; the project file may tighten what they set", () => {
		expect(
			readConfig("/p", {}, files({ policy: "permissive", timeoutMs: 1000 }, { policy: "strict", timeoutMs: 500 }))
				.config,
		).toMatchObject({ policy: "strict", timeoutMs: 500 });
		expect(readConfig("/p", { PI_FORGE_POLICY: "prompt" }, files({ policy: "strict" })).config.policy).toBe("prompt");
		expect(readConfig("/p", { PI_FORGE_TIMEOUT_MS: "3000" }, files({ timeoutMs: 2000 })).config.timeoutMs).toBe(3000);
		expect(readConfig("/p", { PI_FORGE_TIMEOUT_MS: "3000" }, files({}, { timeoutMs: 2000 })).config.timeoutMs).toBe(
			2000,
		);
		expect(readConfig("/p", {}, files({}, { pinned: ["a"] })).config.pinned).toEqual(["a"]);
	});

	it("the project file may only lower a limit: a higher one is ignored, saying where to set it", () => {
		const agent = { PI_CODING_AGENT_DIR: "/agent" };
		const limits = {
			timeoutMs: ["PI_FORGE_TIMEOUT_MS", 30_000],
			maxMemoryMb: ["PI_FORGE_MAX_MEMORY_MB", 512],
			quarantineAfter: ["PI_FORGE_QUARANTINE_AFTER", 5],
			historyLimit: ["PI_FORGE_HISTORY_LIMIT", 50],
			activeLimit: ["PI_FORGE_ACTIVE_LIMIT", 12],
			activeChars: ["PI_FORGE_ACTIVE_CHARS", 1600],
		} as const;
		for (const [key, [variable, fallback]] of Object.entries(limits)) {
			const higher = readConfig("/p", agent, files(undefined, { [key]: fallback * 10 }));
			expect(higher.config[key as keyof typeof limits], key).toBe(fallback);
			expect(higher.problems).toEqual([
				{
					origin: { file: "/p/.pi/forge/config.json", key },
					message: `/p/.pi/forge/config.json: "${key}": ${fallback * 10} is higher than your limit (${fallback}, from the default); a project's config file may only lower a limit, so it is ignored. To use ${fallback * 10}, set ${variable}=${fallback * 10} or "${key}": ${fallback * 10} in /agent/forge/config.json.`,
				},
			]);
			// Higher than the user's global file and the environment too; lower than any of them applies, silently.
			const global = readConfig("/p", agent, files({ [key]: 2 }, { [key]: 3 }));
			expect(global.config[key as keyof typeof limits], key).toBe(2);
			expect(global.problems[0].message).toContain(
				`"${key}": 3 is higher than your limit (2, from /agent/forge/config.json: "${key}": 2)`,
			);
			const fromEnv = readConfig("/p", { ...agent, [variable]: "2" }, files(undefined, { [key]: 3 }));
			expect(fromEnv.config[key as keyof typeof limits], key).toBe(2);
			expect(fromEnv.problems[0].message).toContain(`higher than your limit (2, from ${variable}=2)`);
			const lower = readConfig("/p", { ...agent, [variable]: "3" }, files({ [key]: 4 }, { [key]: 1 }));
			expect(lower.config[key as keyof typeof limits], key).toBe(1);
			expect(lower.problems, key).toEqual([]);
			expect(readConfig("/p", agent, files(undefined, { [key]: fallback })).problems).toEqual([]);
		}
	});

	it("the project file may only tighten the policy: a looser one is ignored, saying where to set it", () => {
		const agent = { PI_CODING_AGENT_DIR: "/agent" };
		const { config, problems } = readConfig("/p", agent, files({ policy: "strict" }, { policy: "permissive" }));
		expect(config).toMatchObject({ policy: "strict", policyFrom: '/agent/forge/config.json: "policy": "strict"' });
		expect(problems).toEqual([
			{
				origin: { file: "/p/.pi/forge/config.json", key: "policy" },
				message:
					'/p/.pi/forge/config.json: "policy": "permissive" is looser than your policy (strict, from /agent/forge/config.json: "policy": "strict"); a project\'s config file may only tighten the policy, so it is ignored. To use permissive, set PI_FORGE_POLICY=permissive or "policy": "permissive" in /agent/forge/config.json.',
			},
		]);
		// Looser than the default and than the environment.
		expect(readConfig("/p", {}, files(undefined, { policy: "permissive" })).config.policy).toBe("prompt");
		expect(
			readConfig("/p", { PI_FORGE_POLICY: "strict" }, files(undefined, { policy: "prompt" })).config.policy,
		).toBe("strict");
		// Tighter than any of them: it applies, and says what it tightened.
		expect(readConfig("/p", {}, files(undefined, { policy: "strict" })).config).toMatchObject({
			policy: "strict",
			policyFrom: '/p/.pi/forge/config.json: "policy": "strict" (tighter than the default: prompt)',
		});
		expect(
			readConfig("/p", { PI_FORGE_POLICY: "permissive" }, files(undefined, { policy: "prompt" })).config.policy,
		).toBe("prompt");
		// The same policy as the user's: nothing to say.
		expect(readConfig("/p", {}, files(undefined, { policy: "prompt" })).problems).toEqual([]);
	});

	it("an untrusted project's file is ignored and its toolbox is not used (unless PI_FORGE_DIR names one)", () => {
		const agent = { PI_CODING_AGENT_DIR: "/agent" };
		const untrusted = { projectTrusted: false };
		const { config, problems } = readConfig(
			"/p",
			agent,
			files({ timeoutMs: 1000 }, { policy: "strict", timeoutMs: 2000, pinned: ["x"] }),
			{},
			untrusted,
		);
		expect(problems).toEqual([]);
		expect(config).toMatchObject({
			policy: "prompt",
			timeoutMs: 1000,
			pinned: [],
			projectTrusted: false,
			untrustedWhy: "pi",
			toolboxDir: join("/agent", "forge", "extensions"),
			withheldToolboxDir: join("/p", ".pi", "forge", "extensions"),
		});
		expect(config.userToolboxDir).toBeUndefined();
		expect(
			readConfig("/p", agent, [], {}, { projectTrusted: false, untrustedWhy: "not-asked" }).config,
		).toMatchObject({ projectTrusted: false, untrustedWhy: "not-asked" });
		expect(readConfig("/p", agent, [], {}, { untrustedWhy: "not-asked" }).config.untrustedWhy).toBeUndefined();
		const chosen = readConfig("/p", { ...agent, PI_FORGE_DIR: "/mine" }, [], {}, untrusted).config;
		expect(chosen).toMatchObject({ toolboxDir: "/mine", userToolboxDir: join("/agent", "forge", "extensions") });
		expect(chosen.withheldToolboxDir).toBeUndefined();
	});

	it("reports a file that is not JSON, or not an object, or unknown settings, and goes on", () => {
		const { config, problems } = readConfig("/p", {}, files("{ nope", { polcy: "strict", maxMemoryMb: 128 }));
		expect(config.maxMemoryMb).toBe(128);
		expect(problems).toEqual([
			{
				origin: { file: "/agent/forge/config.json" },
				message: expect.stringContaining("/agent/forge/config.json is not valid JSON"),
			},
			{
				origin: { file: "/p/.pi/forge/config.json", key: "polcy" },
				message:
					"/p/.pi/forge/config.json: unknown setting 'polcy' (known: policy, timeoutMs, maxMemoryMb, historyLimit, quarantineAfter, activeLimit, activeChars, pinned)",
			},
		]);
		expect(readConfig("/p", {}, files(["strict"])).problems).toEqual([
			{
				origin: { file: "/agent/forge/config.json" },
				message: "/agent/forge/config.json is not a JSON object of settings; ignored",
			},
		]);
	});

	it("names the file and the key of a bad value, not an environment variable", () => {
		const { config, problems } = readConfig("/p", {}, files({ timeoutMs: "soon" }, { maxMemoryMb: -1 }));
		expect(config).toMatchObject({ timeoutMs: 30_000, maxMemoryMb: 512 });
		expect(problems).toEqual([
			{
				origin: { file: "/agent/forge/config.json", key: "timeoutMs" },
				message:
					'/agent/forge/config.json: "timeoutMs": "soon" is not a positive integer up to 2147483647; using 30000',
			},
			{
				origin: { file: "/p/.pi/forge/config.json", key: "maxMemoryMb" },
				message:
					'/p/.pi/forge/config.json: "maxMemoryMb": -1 is not a positive integer up to 2147483647; using 512',
			},
		]);
		expect(problems.map((p) => p.message).join("\n")).not.toContain("PI_FORGE_");
	});

	it("a mistyped or non-string policy in a file means strict and is reported with the file and key", () => {
		for (const raw of ["stirct", 5, true, null, ["strict"], { level: "strict" }]) {
			const { config, problems } = readConfig("/p", {}, files(undefined, { policy: raw }));
			expect(config.policy, JSON.stringify(raw)).toBe("strict");
			expect(problems).toEqual([
				{
					origin: { file: "/p/.pi/forge/config.json", key: "policy" },
					message: `/p/.pi/forge/config.json: "policy": ${JSON.stringify(raw)} is not one of strict, prompt, permissive; using strict`,
				},
			]);
		}
	});

	it("a bad global value overridden by the environment is not the one in effect, so it is not reported", () => {
		const { config, problems } = readConfig("/p", { PI_FORGE_TIMEOUT_MS: "3000" }, files({ timeoutMs: 0 }));
		expect(config.timeoutMs).toBe(3000);
		expect(problems).toEqual([]);
	});

	it("a bad project limit is reported and the user's value kept, even the environment's", () => {
		const { config, problems } = readConfig(
			"/p",
			{ PI_FORGE_TIMEOUT_MS: "3000" },
			files(undefined, { timeoutMs: 0 }),
		);
		expect(config.timeoutMs).toBe(3000);
		expect(problems.map((p) => p.message)).toEqual([
			'/p/.pi/forge/config.json: "timeoutMs": 0 is not a positive integer up to 2147483647; using 3000',
		]);
	});

	it("a mistyped project policy tightens even the environment's: a typo never weakens", () => {
		const { config, problems } = readConfig("/p", { PI_FORGE_POLICY: "permissive" }, files(undefined, { policy: 5 }));
		expect(config.policy).toBe("strict");
		expect(problems.map((p) => p.message)).toEqual([
			'/p/.pi/forge/config.json: "policy": 5 is not one of strict, prompt, permissive; using strict',
		]);
	});

	it("reads pinned tools from a list; reports a non-list and entries that are not strings", () => {
		expect(readConfig("/p", {}, files(undefined, { pinned: ["a", " b "] }))).toMatchObject({
			config: { pinned: ["a", "b"] },
			problems: [],
		});
		for (const raw of ["a,b", 3, { a: true }]) {
			const { config, problems } = readConfig("/p", {}, files(undefined, { pinned: raw }));
			expect(config.pinned).toEqual([]);
			expect(problems).toEqual([
				{
					origin: { file: "/p/.pi/forge/config.json", key: "pinned" },
					message: `/p/.pi/forge/config.json: "pinned": ${JSON.stringify(raw)} is not a list of tool names; ignored`,
				},
			]);
		}
		const mixed = readConfig("/p", {}, files(undefined, { pinned: ["a", 2, null] }));
		expect(mixed.config.pinned).toEqual(["a"]);
		expect(mixed.problems).toEqual([
			{
				origin: { file: "/p/.pi/forge/config.json", key: "pinned" },
				message:
					'/p/.pi/forge/config.json: "pinned": ["a",2,null] has entries that are not tool names (strings); those are ignored',
			},
		]);
		expect(readConfig("/p", { PI_FORGE_PINNED: "x, y" }, files(undefined, { pinned: 3 }))).toMatchObject({
			config: { pinned: ["x", "y"] },
			problems: [],
		});
	});
});
