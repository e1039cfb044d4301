// Scale: thousands of forged tools without context bloat or a slow start.
//
// 1. pi start-up: the real `pi` CLI (node_modules/.bin/pi) in a project whose .pi/forge/extensions holds 0 … 10,000
//    generated tools, Agent Forge loaded with `-e <repo>`, a scripted model answering "ok" to `--mode json "hi"`;
//    wall time from spawn to exit (several runs per size after a warm-up, one agent dir per size), and pi alone as a
//    baseline. Two probe extensions (bench/fixtures/probe-*.ts, loaded first and last in every row) mark where the
//    time goes inside the process.
// 2. What the model is sent per turn: tool schemas (name, description, parameters of every tool offered) and the
//    system prompt, at 1 … 10,000 tools, recorded from the Context that pi hands to the provider (in-process, through
//    test/helpers/pi-harness.ts, with the harness's faux provider wrapped), on the second run after a warm run that
//    used one tool (the active set follows use).
// 3. list_forge at 10,000 tools: Toolbox.list(query) latency over many different queries (the first query, which
//    builds the search index, reported apart) and recall@1/@5 of 20 planted tools queried by paraphrase.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Context } from "@earendil-works/pi-ai";
import { loadConfig, readConfig } from "../src/config.ts";
import { REGISTRY_FILE } from "../src/contract/tool-files.ts";
import { formatListing, LIST_LIMIT } from "../src/pi/list-forge.ts";
import { GrantsStore } from "../src/policy/grants-store.ts";
import { InlineRunner } from "../src/run/inline-runner.ts";
import { HealthStore } from "../src/store/health.ts";
import { parseRegistry } from "../src/store/registry.ts";
import { ToolboxStore } from "../src/store/toolbox-store.ts";
import { ToolboxWatcher } from "../src/store/watcher.ts";
import { selectActive } from "../src/toolbox/active-set.ts";
import { createToolbox, openToolbox } from "../src/toolbox/open-toolbox.ts";
import type { Toolbox } from "../src/toolbox/toolbox.ts";
import { generatedTools, generateToolbox, type PlantedTool } from "../test/helpers/big-toolbox.ts";
import { systemPromptOf, toolsOf } from "../test/helpers/model-context.ts";
import { startPi } from "../test/helpers/pi-harness.ts";
import { PI_CLI } from "../test/helpers/pi-line.ts";
import { BENCH_DIR, benchEnv, type Metric, mark, stats, table, tempDir, time, writeResult } from "./lib.ts";

const REPO = resolve(BENCH_DIR, "..");
const PROVIDER = join(REPO, "test", "fixtures", "scripted-provider.ts");
const PROBE_FIRST = join(BENCH_DIR, "fixtures", "probe-first.ts");
const PROBE_LAST = join(BENCH_DIR, "fixtures", "probe-last.ts");

const sizes = (name: string, fallback: number[]) =>
	process.env[name] ? process.env[name]!.split(",").map(Number) : fallback;
const START_SIZES = sizes("BENCH_START_SIZES", [0, 10, 100, 1_000, 10_000]);
const CONTEXT_SIZES = sizes("BENCH_CONTEXT_SIZES", [1, 10, 100, 1_000, 10_000]);
const LIST_SIZE = Number(process.env.BENCH_LIST_SIZE ?? 10_000);
const REPS = Number(process.env.BENCH_REPS ?? 9);
const SEED = 42;
const RUN_TIMEOUT_MS = 120_000;
const GOAL = { startRatio: 1.2, contextRatio: 1.2, listP50Ms: 5, at: 1_000 };

// ---- planted tools and their paraphrased queries -----------------------------------------------------------------

interface Planted extends PlantedTool {
	/** How a model might ask for it without knowing its name. */
	query: string;
}

const obj = (properties: Record<string, unknown>, required: string[]) => ({ type: "object", properties, required });
const str = (description: string) => ({ type: "string", description });
const num = (description: string) => ({ type: "number", description });
const strs = (description: string) => ({ type: "array", items: { type: "string" }, description });
const nums = (description: string) => ({ type: "array", items: { type: "number" }, description });

const PLANTED: Planted[] = [
	{
		name: "invoice-vat-gross",
		description: "Adds value-added tax to net invoice amounts at a country's rate and returns the gross totals.",
		parametersSchema: obj({ amounts: nums("Net amounts."), ratePercent: num("VAT rate in percent.") }, [
			"amounts",
			"ratePercent",
		]),
		logic: "return params.amounts.map((a: number) => Math.round(a * (100 + params.ratePercent)) / 100);",
		query: "work out the gross price including VAT for these net amounts",
	},
	{
		name: "tz-meeting-slots",
		description:
			"Suggests meeting times inside everyone's working hours for attendees spread over several time zones.",
		parametersSchema: obj(
			{ zones: strs("IANA time zone names."), minutes: { type: "integer", description: "Length of the meeting." } },
			["zones"],
		),
		logic: "return { zones: params.zones, minutes: params.minutes ?? 30, slots: ['14:00Z'] };",
		query: "schedule a call across time zones during working hours",
	},
	{
		name: "celsius-fahrenheit",
		description: "Converts temperatures from Celsius to Fahrenheit, or back with reverse.",
		parametersSchema: obj(
			{ degrees: num("The temperature."), reverse: { type: "boolean", description: "Fahrenheit to Celsius." } },
			["degrees"],
		),
		logic: "return params.reverse ? (params.degrees - 32) * 5 / 9 : params.degrees * 9 / 5 + 32;",
		query: "turn a temperature in degrees C into F",
	},
	{
		name: "iban-check-digits",
		description: "Verifies the check digits of an International Bank Account Number (IBAN).",
		parametersSchema: obj({ iban: str("The IBAN, spaces allowed.") }, ["iban"]),
		logic: "const s = String(params.iban).replace(/\\s+/g, '').toUpperCase();\nreturn { valid: /^[A-Z]{2}\\d{2}[A-Z0-9]{10,30}$/.test(s) };",
		query: "is this bank account number valid",
	},
	{
		name: "luhn-card-check",
		description: "Runs the Luhn checksum on credit card numbers to catch typing mistakes.",
		parametersSchema: obj({ cards: strs("Card numbers.") }, ["cards"]),
		logic: "return params.cards.map((c: string) => [...c.replace(/\\D/g, '')].reverse().reduce((s, d, i) => s + (i % 2 ? ((+d * 2) % 9 || (+d ? 9 : 0)) : +d), 0) % 10 === 0);",
		query: "detect a mistyped credit card",
	},
	{
		name: "roman-numerals",
		description: "Translates Roman numerals like XIV into integers, and integers into Roman numerals.",
		parametersSchema: obj({ value: str("A Roman numeral or an integer.") }, ["value"]),
		logic: "const map: Record<string, number> = { M: 1000, D: 500, C: 100, L: 50, X: 10, V: 5, I: 1 };\nconst s = String(params.value).toUpperCase();\nlet total = 0;\nfor (let i = 0; i < s.length; i++) total += (map[s[i]] ?? 0) < (map[s[i + 1]] ?? 0) ? -(map[s[i]] ?? 0) : (map[s[i]] ?? 0);\nreturn total;",
		query: "what number is the roman numeral MCMXCIV",
	},
	{
		name: "haversine-km",
		description: "Computes the great-circle distance in kilometres between two latitude/longitude points.",
		parametersSchema: obj({ from: nums("[lat, lon] in degrees."), to: nums("[lat, lon] in degrees.") }, [
			"from",
			"to",
		]),
		logic: "const r = (x: number) => (x * Math.PI) / 180;\nconst [a, b] = [params.from, params.to];\nconst h = Math.sin(r(b[0] - a[0]) / 2) ** 2 + Math.cos(r(a[0])) * Math.cos(r(b[0])) * Math.sin(r(b[1] - a[1]) / 2) ** 2;\nreturn 12742 * Math.asin(Math.sqrt(h));",
		query: "distance between two latitude longitude coordinates in km",
	},
	{
		name: "cron-next-runs",
		description: "Lists the next run times of a cron expression.",
		parametersSchema: obj(
			{ expression: str("Five-field cron expression."), count: { type: "integer", description: "How many runs." } },
			["expression"],
		),
		logic: "return { expression: params.expression, next: Array.from({ length: params.count ?? 3 }, (_, i) => i) };",
		query: "when does this cron schedule run next",
	},
	{
		name: "slugify-title",
		description: "Makes a URL slug from an article title: lowercase ASCII words joined by hyphens.",
		parametersSchema: obj({ title: str("The title.") }, ["title"]),
		logic: "return String(params.title).normalize('NFKD').replace(/[^\\w\\s-]/g, '').trim().toLowerCase().replace(/[\\s_-]+/g, '-');",
		query: "turn a blog post heading into a url-friendly slug",
	},
	{
		name: "english-plural",
		description: "Gives the plural form of English nouns (mouse → mice, city → cities).",
		parametersSchema: obj({ noun: str("A singular noun.") }, ["noun"]),
		logic: "const n = String(params.noun);\nreturn /y$/.test(n) ? n.slice(0, -1) + 'ies' : n + 's';",
		query: "plural of an english word",
	},
	{
		name: "bmi-calculator",
		description: "Calculates the body-mass index (BMI) from height in centimetres and weight in kilograms.",
		parametersSchema: obj({ heightCm: num("Height."), weightKg: num("Weight.") }, ["heightCm", "weightKg"]),
		logic: "return params.weightKg / (params.heightCm / 100) ** 2;",
		query: "compute BMI from someone's weight and height",
	},
	{
		name: "loan-amortization",
		description:
			"Builds a monthly repayment schedule for a loan from the principal, annual interest rate and term in years.",
		parametersSchema: obj(
			{ principal: num("Amount borrowed."), ratePercent: num("Annual interest rate."), years: num("Term.") },
			["principal", "ratePercent", "years"],
		),
		logic: "const r = params.ratePercent / 1200;\nconst n = params.years * 12;\nreturn { monthly: (params.principal * r) / (1 - (1 + r) ** -n), months: n };",
		query: "monthly payments for a mortgage at 4% interest over 25 years",
	},
	{
		name: "flesch-reading-ease",
		description: "Scores how easy English prose is to read (Flesch reading ease).",
		parametersSchema: obj({ text: str("The prose.") }, ["text"]),
		logic: "const words = String(params.text).split(/\\s+/).filter(Boolean).length;\nconst sentences = String(params.text).split(/[.!?]+/).filter((s) => s.trim()).length || 1;\nreturn 206.835 - 1.015 * (words / sentences);",
		query: "measure the reading ease of this paragraph",
	},
	{
		name: "wcag-contrast",
		description: "Checks whether two colours meet the WCAG contrast ratio for accessible text.",
		parametersSchema: obj({ foreground: str("Hex colour."), background: str("Hex colour.") }, [
			"foreground",
			"background",
		]),
		logic: "return { foreground: params.foreground, background: params.background, ratio: 4.5 };",
		query: "is my text color readable on this background per WCAG",
	},
	{
		name: "http-status-meaning",
		description: "Explains what an HTTP status code such as 404 or 503 means.",
		parametersSchema: obj({ code: { type: "integer", description: "The status code." } }, ["code"]),
		logic: "return ({ 404: 'Not Found', 503: 'Service Unavailable' } as Record<number, string>)[params.code] ?? 'unknown';",
		query: "what does error 503 mean",
	},
	{
		name: "mime-from-extension",
		description: "Guesses the MIME content type from a file name's extension.",
		parametersSchema: obj({ file: str("A file name.") }, ["file"]),
		logic: "const ext = String(params.file).split('.').pop();\nreturn ({ png: 'image/png', webp: 'image/webp', html: 'text/html' } as Record<string, string>)[ext ?? ''] ?? 'application/octet-stream';",
		query: "content type for a .webp file",
	},
	{
		name: "password-strength",
		description: "Rates how strong a password is and says why.",
		parametersSchema: obj({ password: str("The password.") }, ["password"]),
		logic: "const p = String(params.password);\nreturn { score: Math.min(4, Math.floor(p.length / 4)), length: p.length };",
		query: "is this password secure enough",
	},
	{
		name: "anagram-groups",
		description: "Finds which words in a list are anagrams of each other.",
		parametersSchema: obj({ words: strs("The words.") }, ["words"]),
		logic: "const groups: Record<string, string[]> = {};\nfor (const w of params.words as string[]) (groups[[...w].sort().join('')] ??= []).push(w);\nreturn Object.values(groups).filter((g) => g.length > 1);",
		query: "group words made of the same letters",
	},
	{
		name: "bytes-human",
		description: "Formats a byte count as a human-readable size like 1.5 MB.",
		parametersSchema: obj({ bytes: num("Number of bytes.") }, ["bytes"]),
		logic: "const u = ['B', 'KB', 'MB', 'GB'];\nlet n = params.bytes, i = 0;\nwhile (n >= 1024 && i < 3) { n /= 1024; i++; }\nreturn `${n.toFixed(1)} ${u[i]}`;",
		query: "show 1536000 bytes as megabytes",
	},
	{
		name: "working-days-between",
		description: "Counts business days between two dates, skipping weekends and the given holidays.",
		parametersSchema: obj({ from: str("Start date."), to: str("End date."), holidays: strs("Dates to skip.") }, [
			"from",
			"to",
		]),
		logic: "let n = 0;\nfor (let d = new Date(params.from); d <= new Date(params.to); d.setDate(d.getDate() + 1)) if (d.getDay() % 6 && !(params.holidays ?? []).includes(d.toISOString().slice(0, 10))) n++;\nreturn n;",
		query: "how many working days until the deadline excluding holidays",
	},
];

/** Many different queries: intents × subjects, as a model would phrase a need (deterministic order). */
function latencyQueries(): string[] {
	const intents = [
		"count",
		"how many",
		"validate",
		"check",
		"parse",
		"convert to json",
		"find",
		"search",
		"sort",
		"remove duplicates from",
		"summarize",
		"pretty print",
		"extract",
		"compare two",
		"encode",
		"decode",
		"hash",
		"list",
		"group",
		"redact secrets in",
	];
	const subjects = [
		"csv file",
		"json config",
		"yaml manifest",
		"log lines",
		"stack trace",
		"email addresses",
		"urls",
		"dates",
		"semver versions",
		"ip addresses",
		"sql query",
		"markdown headings",
		"git log",
		"package.json",
		"dockerfile",
		"latency numbers",
		"prices",
		"http headers",
		"jwt token",
		"todo comments",
	];
	const queries = intents.flatMap((i) => subjects.map((s) => `${i} ${s}`));
	queries.push("csv", "jsn", "latncy", "tz", "xml", "rows", "fast", "table", ...PLANTED.map((p) => p.query));
	let state = 7;
	const rand = () => {
		state = (state * 1103515245 + 12345) >>> 0;
		return state / 4294967296;
	};
	for (let i = queries.length - 1; i > 0; i--) {
		const j = Math.floor(rand() * (i + 1));
		[queries[i], queries[j]] = [queries[j], queries[i]];
	}
	return queries;
}

// ---- toolboxes -----------------------------------------------------------------------------------------------------

/** The project for a size: `<root>/proj-<n>` with `n` tools (at LIST_SIZE: the planted ones among them). */
async function project(root: string, n: number): Promise<{ cwd: string; buildMs: number }> {
	const cwd = join(root, `proj-${n}`);
	const dir = readConfig(cwd, benchEnv()).config.toolboxDir;
	const plant = n === LIST_SIZE ? PLANTED.map(({ query: _q, ...tool }) => tool) : [];
	const started = performance.now();
	mkdirSync(dir, { recursive: true });
	if (n > 0) await generateToolbox(dir, n - plant.length, { seed: SEED, plant });
	return { cwd, buildMs: performance.now() - started };
}

// ---- 1. pi start-up through the CLI --------------------------------------------------------------------------------

interface StartConfig {
	label: string;
	size: number;
	forge: boolean;
	cwd: string;
	agentDir: string;
}

interface StartRun {
	exitMs: number;
	agentEndMs: number;
	/** ms since the pi process started, from the probes. */
	marks: Record<string, number>;
}

const cleanEnv = (env: Record<string, string | undefined>) =>
	Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));

async function runPiOnce(config: StartConfig, scriptPath: string, probePath: string): Promise<StartRun> {
	const args = [
		"-e",
		PROBE_FIRST,
		"-e",
		PROVIDER,
		...(config.forge ? ["-e", REPO] : []),
		"-e",
		PROBE_LAST,
		"--provider",
		"scripted",
		"--model",
		"s",
		"--no-session",
		"--mode",
		"json",
		"hi",
	];
	const env = cleanEnv({
		...benchEnv(),
		PI_CODING_AGENT_DIR: config.agentDir,
		PI_OFFLINE: "1",
		FORGE_SCRIPT: scriptPath,
		FORGE_BENCH_PROBE: probePath,
	});
	writeFileSync(probePath, "[]");
	const started = performance.now();
	const child = spawn(process.execPath, [PI_CLI, ...args], {
		cwd: config.cwd,
		env,
		stdio: ["ignore", "pipe", "pipe"],
		detached: true,
	});
	let agentEndMs = Number.NaN;
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk: Buffer) => {
		const text = chunk.toString();
		if (Number.isNaN(agentEndMs) && text.includes('"type":"agent_end"')) agentEndMs = performance.now() - started;
		stdout += text;
	});
	child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
	const killer = setTimeout(() => {
		try {
			process.kill(-child.pid!, "SIGKILL");
		} catch {
			child.kill("SIGKILL");
		}
	}, RUN_TIMEOUT_MS);
	const code = await new Promise<number | null>((done) => child.once("exit", (c) => done(c)));
	const exitMs = performance.now() - started;
	clearTimeout(killer);
	if (code !== 0 || Number.isNaN(agentEndMs) || !stdout.includes('"text":"ok"')) {
		throw new Error(
			`pi (${config.label}) exited with ${code} after ${exitMs.toFixed(0)} ms${Number.isNaN(agentEndMs) ? " without agent_end" : ""}:\n${stderr.slice(-2000)}`,
		);
	}
	const marks = Object.fromEntries(JSON.parse(readFileSync(probePath, "utf8")) as Array<[string, number]>);
	return { exitMs, agentEndMs, marks };
}

const PHASES: Array<[string, (m: Record<string, number>, run: StartRun) => number]> = [
	["node + pi boot (to 1st extension)", (m) => m["first:factory"]],
	["extensions load (provider, forge)", (m) => m["last:factory"] - m["first:factory"]],
	["pi session setup", (m) => m["first:session_start"] - m["last:factory"]],
	["Agent Forge session_start", (m) => m["last:session_start"] - m["first:session_start"]],
	["the turn (to agent_end)", (m) => m["last:agent_end"] - m["last:session_start"]],
	["Agent Forge session_shutdown", (m) => m["last:session_shutdown"] - m["first:session_shutdown"]],
	["after shutdown, to exit", (m) => m.exit - m["last:session_shutdown"]],
	["outside the process (exec, teardown)", (m, run) => run.exitMs - m.exit],
];

async function measureStart(
	root: string,
	projects: Map<number, string>,
): Promise<{ configs: StartConfig[]; runs: Map<string, StartRun[]>; warmups: Map<string, StartRun> }> {
	const scriptPath = join(root, "script.json");
	const probePath = join(root, "probe.json");
	writeFileSync(scriptPath, JSON.stringify([{ text: "ok" }]));
	const agent = (label: string) => {
		const dir = join(root, `agent-${label}`);
		mkdirSync(dir, { recursive: true });
		return dir;
	};
	const configs: StartConfig[] = [
		{ label: "pi alone", size: 0, forge: false, cwd: projects.get(0)!, agentDir: agent("alone") },
		...START_SIZES.map((size) => ({
			label: size.toLocaleString("en-US"),
			size,
			forge: true,
			cwd: projects.get(size)!,
			agentDir: agent(String(size)),
		})),
	];
	const warmups = new Map<string, StartRun>();
	for (const config of configs) {
		const run = await runPiOnce(config, scriptPath, probePath);
		warmups.set(config.label, run);
		console.log(`  warm-up ${config.label.padEnd(8)} ${run.exitMs.toFixed(0)} ms`);
	}
	const runs = new Map<string, StartRun[]>(configs.map((c) => [c.label, []]));
	for (let rep = 0; rep < REPS; rep++) {
		// Rotate the order each repetition so a drift in the machine's speed does not favour one size.
		for (let k = 0; k < configs.length; k++) {
			const config = configs[(k + rep) % configs.length];
			runs.get(config.label)!.push(await runPiOnce(config, scriptPath, probePath));
		}
		process.stdout.write(`  repetition ${rep + 1}/${REPS} done\n`);
	}
	return { configs, runs, warmups };
}

/** Agent Forge's session_start, piece by piece, in this process (what ForgeSession.toolbox() does). */
async function openBreakdown(cwd: string, agentDir: string): Promise<Record<string, number>> {
	const parts: Record<string, number> = {};
	type AnyFn = (...args: unknown[]) => Promise<unknown>;
	const restore: Array<() => void> = [];
	const wrap = (proto: object, method: string, label: string) => {
		const target = proto as Record<string, AnyFn>;
		const original = target[method];
		target[method] = async function (this: unknown, ...args: unknown[]) {
			const start = performance.now();
			try {
				return await original.apply(this, args);
			} finally {
				parts[label] = (parts[label] ?? 0) + performance.now() - start;
			}
		};
		restore.push(() => (target[method] = original));
	};
	wrap(GrantsStore.prototype, "load", "grants.load");
	wrap(HealthStore.prototype, "load", "health.load");
	wrap(ToolboxStore.prototype, "recover", "store.recover");
	wrap(ToolboxStore.prototype, "readRegistry", "store.readRegistry");
	wrap(ToolboxStore.prototype, "listStamps", "store.listStamps (in the comparison)");
	try {
		let opened!: Awaited<ReturnType<typeof openToolbox>>;
		// As pi opens it: the registry at once, the files compared after (timed apart: pi does not wait for it).
		parts["openToolbox (total, as pi)"] = await time(
			async () =>
				(opened = await openToolbox(loadConfig(cwd, { ...benchEnv(), PI_CODING_AGENT_DIR: agentDir }), {
					verify: "background",
				})),
		);
		parts["comparison after the open (background in pi)"] = await time(() => opened.toolbox.verified());
		const text = readFileSync(join(opened.config.toolboxDir, REGISTRY_FILE), "utf8");
		parts["parseRegistry (standalone)"] = await time(() => parseRegistry(text));
		const box = opened.toolbox;
		parts["selectActive over all tools"] = await time(() => {
			const candidates = box
				.entries()
				.map((entry) => ({ entry, health: box.healthOf(entry.name), healthy: box.state(entry) === "ok" }));
			selectActive(candidates, box.config.pinned, box.config.activeLimit, new Date());
		});
		const watcher = new ToolboxWatcher(box);
		parts["watcher ready (background in pi)"] = await time(() => watcher.start());
		parts["watcher stop"] = await time(() => watcher.stop());
		parts["toolbox close"] = await time(() => box.close());
	} finally {
		for (const undo of restore) undo();
	}
	return parts;
}

// ---- 2. what the model is sent per turn ----------------------------------------------------------------------------

interface ContextSize {
	size: number;
	tools: number;
	forgedTools: number;
	toolChars: number;
	builtinToolChars: number;
	forgeOwnToolChars: number;
	forgedToolChars: number;
	systemPromptChars: number;
	totalChars: number;
	/** Total on the warm run's first call (before any use), for comparison. */
	firstRunTotalChars: number;
	usedToolOffered: boolean;
	/** Whether the used tool was offered on the warm run, before it was used. */
	usedToolOfferedBefore: boolean;
	/** Characters of each tool offered on the second run. */
	perTool: Record<string, number>;
}

const FORGE_OWN = ["forge_tool", "use_forge_tool", "list_forge"];
const toolJson = (t: { name: string; description: string; parameters: unknown }) =>
	JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters });

async function measureContext(cwd: string, size: number, agentDir: string): Promise<ContextSize> {
	// Record the Context pi hands to the provider: exactly the tools and system prompt of that model call.
	const seen: Context[] = [];
	const pi = await startPi({
		extensionPaths: [join(REPO, "index.ts")],
		cwd,
		agentDir,
		onContext: (context) => seen.push(context as Context),
	});
	try {
		const toolbox = JSON.parse(
			readFileSync(join(readConfig(cwd, benchEnv()).config.toolboxDir, REGISTRY_FILE), "utf8"),
		) as { tools: Record<string, unknown> };
		const forgedNames = new Set(Object.keys(toolbox.tools));
		// The warm run lists, then uses the oldest generated tool (in a big toolbox it is not in the active set yet).
		const target = generatedTools(1, SEED)[0];
		const warm = await pi.run("find and use a tool", [
			[{ name: "list_forge", args: { query: target.description } }],
			[{ name: "use_forge_tool", args: { name: target.name, args: target.sampleArgs } }],
			{ text: "ok" },
		]);
		const failed = warm.toolEvents.filter((e) => e.isError);
		if (failed.length || warm.toolEvents.length !== 2)
			throw new Error(`warm run at ${size}: ${JSON.stringify(warm.toolEvents).slice(0, 800)}`);
		const firstRun = seen[0];
		seen.length = 0;
		await pi.run("hi", [{ text: "ok" }]);
		const context = seen[0];
		if (!context) throw new Error("the provider was not called");
		const tools = toolsOf(context);
		const charsOf = (filter: (name: string) => boolean) =>
			tools.filter((t) => filter(t.name)).reduce((sum, t) => sum + toolJson(t).length, 0);
		const isForged = (name: string) => forgedNames.has(name);
		const toolChars = JSON.stringify(
			tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
		).length;
		const systemPromptChars = systemPromptOf(context).length;
		const firstTools = toolsOf(firstRun);
		return {
			size,
			tools: tools.length,
			forgedTools: tools.filter((t) => isForged(t.name)).length,
			toolChars,
			builtinToolChars: charsOf((n) => !isForged(n) && !FORGE_OWN.includes(n)),
			forgeOwnToolChars: charsOf((n) => FORGE_OWN.includes(n)),
			forgedToolChars: charsOf(isForged),
			systemPromptChars,
			totalChars: toolChars + systemPromptChars,
			firstRunTotalChars:
				JSON.stringify(
					firstTools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
				).length + systemPromptOf(firstRun).length,
			usedToolOffered: tools.some((t) => t.name === target.name),
			usedToolOfferedBefore: firstTools.some((t) => t.name === target.name),
			perTool: Object.fromEntries(tools.map((t) => [t.name, toolJson(t).length])),
		};
	} finally {
		await pi.dispose();
	}
}

// ---- 3. list_forge at 10,000 tools ---------------------------------------------------------------------------------

interface ListFigures {
	openMs: number;
	firstQueryMs: number;
	queries: number;
	list: ReturnType<typeof stats>;
	listAndFormat: ReturnType<typeof stats>;
	matchedMean: number;
	/** p50 ms of the pieces of one Toolbox.list(query), and of the search with other MiniSearch options. */
	parts: Record<string, number>;
	recall: Array<{ name: string; query: string; rank: number; top3: string[] }>;
}

async function measureList(cwd: string): Promise<ListFigures> {
	const toolbox = createToolbox(readConfig(cwd, benchEnv()).config, new InlineRunner());
	let report!: Awaited<ReturnType<Toolbox["open"]>>;
	const openMs = await time(async () => (report = await toolbox.open()));
	if (report.tools !== LIST_SIZE || report.rebuilt || report.rederived.length)
		throw new Error(
			`the generated toolbox was not found fresh: ${JSON.stringify({ tools: report.tools, rebuilt: report.rebuilt, rederived: report.rederived.length })}`,
		);
	const queries = latencyQueries();
	const firstQueryMs = await time(() => toolbox.list(queries[0], LIST_LIMIT)); // builds the index
	const listSamples: number[] = [];
	const formatSamples: number[] = [];
	let matched = 0;
	const now = new Date();
	for (const query of queries) {
		let listing!: ReturnType<Toolbox["list"]>;
		listSamples.push(await time(() => (listing = toolbox.list(query, LIST_LIMIT))));
		matched += listing.matched;
		formatSamples.push(await time(() => formatListing(toolbox.list(query, LIST_LIMIT), query, now)));
	}
	// Where a query's time goes: list() = entries() (a sorted copy of every entry, for the total) + the index search
	// + views of the hits. The search itself, with the configured options and with cheaper ones (same index).
	const index = (
		toolbox as unknown as { searchIndex: { index: { search(q: string, o?: Record<string, unknown>): unknown[] } } }
	).searchIndex.index;
	const search = (
		toolbox as unknown as { search: { search(q: string, limit: number): { hits: Array<{ name: string }> } } }
	).search;
	const p50 = async (fn: (q: string) => unknown) => {
		const samples: number[] = [];
		for (const query of queries) samples.push(await time(() => fn(query)));
		return stats(samples).p50;
	};
	const parts: Record<string, number> = {
		"Toolbox.list(query)": await p50((q) => toolbox.list(q, LIST_LIMIT)),
		"  entries() (sorted copy of all, for the total)": await p50(() => toolbox.entries()),
		"  index search (prefix + fuzzy 0.2, OR)": await p50((q) => index.search(q)),
		"list without entries(): search + 20 views": await p50((q) =>
			search.search(q, LIST_LIMIT).hits.map((h) => toolbox.view(h.name)),
		),
		"index search, fuzzy off": await p50((q) => index.search(q, { fuzzy: false })),
		"index search, prefix off": await p50((q) => index.search(q, { prefix: false })),
		"index search, fuzzy and prefix off": await p50((q) => index.search(q, { fuzzy: false, prefix: false })),
		"index search, AND (fewer matches)": await p50((q) => index.search(q, { combineWith: "AND" })),
	};
	const recall = PLANTED.map((p) => {
		const names = toolbox.list(p.query, LIST_LIMIT).tools.map((t) => t.entry.name);
		const index = names.indexOf(p.name);
		return {
			name: p.name,
			query: p.query,
			rank: index < 0 ? Number.POSITIVE_INFINITY : index + 1,
			top3: names.slice(0, 3),
		};
	});
	await toolbox.close();
	return {
		openMs,
		firstQueryMs,
		queries: queries.length,
		list: stats(listSamples),
		listAndFormat: stats(formatSamples),
		matchedMean: matched / queries.length,
		parts,
		recall,
	};
}

// ---- main ----------------------------------------------------------------------------------------------------------

const fmtMs = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;
const fmtX = (x: number) => `${x.toFixed(2)}×`;
const n = (x: number) => x.toLocaleString("en-US");
const median = (xs: number[]) => stats(xs).p50;

async function main(): Promise<void> {
	const benchStart = performance.now();
	const tmp = tempDir("scale");
	try {
		// Toolboxes: one project per size, shared by the three parts (start-up and list only read them; the context
		// part, which uses a tool, runs last).
		const allSizes = [...new Set([0, ...START_SIZES, ...CONTEXT_SIZES, LIST_SIZE])].sort((a, b) => a - b);
		const projects = new Map<number, string>();
		const buildMs: Record<number, number> = {};
		for (const size of allSizes) {
			const built = await project(tmp.path, size);
			projects.set(size, built.cwd);
			buildMs[size] = built.buildMs;
		}
		console.log(`\ngenerated toolboxes: ${allSizes.map((s) => `${n(s)} in ${buildMs[s].toFixed(0)} ms`).join(", ")}`);

		// 1. start-up
		console.log(`\n1. pi start-up (real CLI, ${REPS} runs per size after a warm-up; pi alone = without Agent Forge)`);
		const start = await measureStart(tmp.path, projects);
		const breakdowns = new Map<number, Record<string, number>>();
		const breakdownAgent = join(tmp.path, "agent-breakdown");
		await openBreakdown(projects.get(0)!, breakdownAgent); // warm the modules
		for (const size of START_SIZES) breakdowns.set(size, await openBreakdown(projects.get(size)!, breakdownAgent));

		// 3. list_forge (before the context part, which uses a tool of the big toolbox)
		console.log(`\n3. list_forge at ${n(LIST_SIZE)} tools`);
		const list = await measureList(projects.get(LIST_SIZE)!);

		// 2. context
		console.log(`\n2. what the model is sent per turn`);
		const contextAgent = join(tmp.path, "agent-context");
		mkdirSync(contextAgent, { recursive: true });
		const contexts: ContextSize[] = [];
		for (const size of CONTEXT_SIZES) {
			contexts.push(await measureContext(projects.get(size)!, size, contextAgent));
			console.log(`  ${n(size)} tools measured`);
		}

		// ---- report ----
		const metrics: Metric[] = [];
		const startRows: string[][] = [];
		const zeroLabel = n(START_SIZES[0]);
		const p50Of = (label: string) => stats(start.runs.get(label)!.map((r) => r.exitMs)).p50;
		const base = p50Of(zeroLabel);
		const alone = p50Of("pi alone");
		const baseMin = stats(start.runs.get(zeroLabel)!.map((r) => r.exitMs)).min;
		for (const config of start.configs) {
			const runs = start.runs.get(config.label)!;
			const exit = stats(runs.map((r) => r.exitMs));
			const end = stats(runs.map((r) => r.agentEndMs));
			const r50 = exit.p50 / base;
			const goal =
				config.forge && config.size === GOAL.at
					? `  goal ≤ ${GOAL.startRatio}× ${mark(r50 <= GOAL.startRatio)}`
					: "";
			const rMin = exit.min / baseMin;
			startRows.push([
				config.label,
				String(runs.length),
				fmtMs(exit.p50),
				fmtMs(exit.min),
				fmtMs(exit.max),
				config.forge ? fmtX(r50) + goal : `${fmtX(r50)} (forge adds ${fmtMs(base - alone)} at 0)`,
				fmtX(rMin),
				fmtMs(end.p50),
			]);
			if (config.forge) {
				metrics.push({ metric: `pi start p50 at ${config.size}`, value: exit.p50, unit: "ms" });
				metrics.push({
					metric: `Agent Forge session_start p50 at ${config.size}`,
					value: median(runs.map((r) => r.marks["last:session_start"] - r.marks["first:session_start"])),
					unit: "ms",
				});
				if (config.size !== START_SIZES[0]) {
					metrics.push({
						metric: `pi start ratio ${config.size}/${START_SIZES[0]}`,
						value: r50,
						unit: "×",
						...(config.size === GOAL.at
							? { goal: `≤ ${GOAL.startRatio}× at ${n(GOAL.at)}`, met: r50 <= GOAL.startRatio }
							: {}),
					});
					metrics.push({
						metric: `pi start ratio of min ${config.size}/${START_SIZES[0]}`,
						value: exit.min / baseMin,
						unit: "×",
					});
				}
			} else {
				metrics.push({ metric: "pi start p50, pi alone", value: exit.p50, unit: "ms" });
			}
		}
		console.log(`\npi start-up, spawn to exit (wall; ratio = p50 / p50 at ${zeroLabel} tools with Agent Forge)\n`);
		console.log(
			table(
				["tools", "runs", "p50", "min", "max", `p50 ratio to ${zeroLabel}`, "min ratio", "spawn→agent_end p50"],
				startRows,
			),
		);

		const phaseRows = PHASES.map(([label, of]) => [
			label,
			...start.configs.map((c) => fmtMs(median(start.runs.get(c.label)!.map((r) => of(r.marks, r))))),
		]);
		console.log(`\nwhere the time goes (p50 of each phase, from the probes)\n`);
		console.log(table(["phase", ...start.configs.map((c) => c.label)], phaseRows));
		const orphans = start.configs.map(
			(c) =>
				`${c.label}: ${start.runs.get(c.label)!.filter((r) => r.marks["orphan-killed"] !== undefined).length}/${REPS}`,
		);
		console.log(`runs where the probe had to kill a runner host left running after shutdown: ${orphans.join(", ")}`);

		const breakdownKeys = [...new Set([...breakdowns.values()].flatMap((b) => Object.keys(b)))];
		console.log(`\nAgent Forge's session_start work in this process (one run per size, warm process)\n`);
		console.log(
			table(
				["step", ...START_SIZES.map(n)],
				breakdownKeys.map((k) => [k, ...START_SIZES.map((s) => fmtMs(breakdowns.get(s)![k] ?? 0))]),
			),
		);

		const base1 = contexts.find((c) => c.size === CONTEXT_SIZES[0])!;
		const contextRows = contexts.map((c) => {
			const r = c.totalChars / base1.totalChars;
			const goal = c.size === GOAL.at ? `  goal ≤ ${GOAL.contextRatio}× ${mark(r <= GOAL.contextRatio)}` : "";
			return [
				n(c.size),
				`${c.tools} (${c.forgedTools} forged)`,
				n(c.builtinToolChars),
				n(c.forgeOwnToolChars),
				n(c.forgedToolChars),
				n(c.toolChars),
				n(c.systemPromptChars),
				n(c.totalChars),
				fmtX(r) + goal,
				n(c.firstRunTotalChars),
				`${c.usedToolOfferedBefore ? "yes" : "no"} → ${c.usedToolOffered ? "yes" : "no"}`,
			];
		});
		console.log(
			`\nwhat the model is sent per turn (characters; the second run, after a warm run that used one tool)\n`,
		);
		console.log(
			table(
				[
					"tools",
					"offered",
					"built-in",
					"forge's 3",
					"forged",
					"all schemas",
					"system prompt",
					"total",
					`ratio to ${n(CONTEXT_SIZES[0])}`,
					"warm run total",
					"used tool offered: warm → 2nd run",
				],
				contextRows,
			),
		);
		const own = base1.perTool;
		console.log(
			`per tool at ${n(base1.size)}: ${Object.entries(own)
				.map(([k, v]) => `${k} ${n(v)}`)
				.join(", ")}`,
		);
		for (const c of contexts) {
			metrics.push({ metric: `context chars at ${c.size}`, value: c.totalChars, unit: "chars" });
			if (c !== base1)
				metrics.push({
					metric: `context ratio ${c.size}/${base1.size}`,
					value: c.totalChars / base1.totalChars,
					unit: "×",
					...(c.size === GOAL.at
						? {
								goal: `≤ ${GOAL.contextRatio}× at ${n(GOAL.at)}`,
								met: c.totalChars / base1.totalChars <= GOAL.contextRatio,
							}
						: {}),
				});
		}

		const at1 = list.recall.filter((r) => r.rank <= 1).length / list.recall.length;
		const at5 = list.recall.filter((r) => r.rank <= 5).length / list.recall.length;
		const mrr = list.recall.reduce((s, r) => s + (Number.isFinite(r.rank) ? 1 / r.rank : 0), 0) / list.recall.length;
		console.log(
			`\nlist_forge at ${n(LIST_SIZE)} tools (Toolbox.list(query, ${LIST_LIMIT}), ${list.queries} different queries)\n`,
		);
		console.log(
			table(
				["measure", "value", "goal"],
				[
					["open()", fmtMs(list.openMs), ""],
					["first query (builds the index)", fmtMs(list.firstQueryMs), ""],
					["query p50", fmtMs(list.list.p50), `≤ ${GOAL.listP50Ms} ms ${mark(list.list.p50 <= GOAL.listP50Ms)}`],
					["query p95 / max", `${fmtMs(list.list.p95)} / ${fmtMs(list.list.max)}`, ""],
					[
						"query + formatListing p50 / p95",
						`${fmtMs(list.listAndFormat.p50)} / ${fmtMs(list.listAndFormat.p95)}`,
						"",
					],
					["tools matched per query (mean)", n(Math.round(list.matchedMean)), ""],
					[`recall@1 (${PLANTED.length} planted, paraphrased)`, `${(at1 * 100).toFixed(0)}%`, ""],
					["recall@5", `${(at5 * 100).toFixed(0)}%`, ""],
					["MRR (top 20)", mrr.toFixed(2), ""],
				],
			),
		);
		console.log(`\nwhere a query's time goes (p50 over the same ${list.queries} queries)\n`);
		console.log(
			table(
				["piece", "p50"],
				Object.entries(list.parts).map(([k, v]) => [k, fmtMs(v)]),
			),
		);
		const missed = list.recall.filter((r) => r.rank > 1);
		if (missed.length) {
			console.log(`\nplanted tools not ranked first:`);
			for (const r of missed)
				console.log(
					`  ${r.name.padEnd(22)} rank ${Number.isFinite(r.rank) ? r.rank : "> 20"}  "${r.query}" → ${r.top3.join(", ")}`,
				);
		}
		metrics.push(
			{ metric: `list open() at ${LIST_SIZE}`, value: list.openMs, unit: "ms" },
			{ metric: `list first query (index build) at ${LIST_SIZE}`, value: list.firstQueryMs, unit: "ms" },
			{
				metric: `list query p50 at ${LIST_SIZE}`,
				value: list.list.p50,
				unit: "ms",
				goal: `≤ ${GOAL.listP50Ms} ms`,
				met: list.list.p50 <= GOAL.listP50Ms,
			},
			{ metric: `list query p95 at ${LIST_SIZE}`, value: list.list.p95, unit: "ms" },
			{ metric: `recall@1 (${PLANTED.length} planted)`, value: at1 * 100, unit: "%" },
			{ metric: `recall@5 (${PLANTED.length} planted)`, value: at5 * 100, unit: "%" },
		);

		const totalS = (performance.now() - benchStart) / 1000;
		console.log(`\nbench took ${totalS.toFixed(0)} s`);
		writeResult(
			"scale",
			"scale: pi start-up, context per turn and list_forge with thousands of forged tools",
			metrics,
			{
				seed: SEED,
				reps: REPS,
				buildMs,
				start: Object.fromEntries(
					start.configs.map((c) => {
						const runs = start.runs.get(c.label)!;
						return [
							c.label,
							{
								forge: c.forge,
								size: c.size,
								exitMs: stats(runs.map((r) => r.exitMs)),
								agentEndMs: stats(runs.map((r) => r.agentEndMs)),
								warmupExitMs: start.warmups.get(c.label)!.exitMs,
								phasesP50Ms: Object.fromEntries(
									PHASES.map(([label, of]) => [label, median(runs.map((r) => of(r.marks, r)))]),
								),
								orphanedRunnerHostKilled: runs.filter((r) => r.marks["orphan-killed"] !== undefined).length,
								samples: runs.map((r) => ({ exitMs: r.exitMs, agentEndMs: r.agentEndMs, marks: r.marks })),
							},
						];
					}),
				),
				sessionStartBreakdownMs: Object.fromEntries(breakdowns),
				context: {
					measure:
						"Context handed to the provider on the second run: JSON.stringify({name, description, parameters}) of every tool, plus systemPrompt.length",
					sizes: contexts,
				},
				list: {
					...list,
					recall: list.recall.map((r) => ({ ...r, rank: Number.isFinite(r.rank) ? r.rank : null })),
					recallAt1: at1,
					recallAt5: at5,
					mrr,
				},
				benchSeconds: totalS,
			},
		);
	} finally {
		tmp.cleanup();
	}
}

await main();
