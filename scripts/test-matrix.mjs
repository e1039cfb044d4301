// `npm test`: the type check and Biome's format and lint check, then the test suite where pi's users are — the full suite on the current pi line under
// Node 24, its end-to-end tests under Node 22 and 26, and the legacy pi line's end-to-end tests under Node 20.
// Node versions come from the npm registry (scripts/node-versions.mjs). Stage ids given as arguments run only those
// stages (`npm test -- current-24`). Ends with one line that sums every stage: `tests: N passed, N failed`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureNode } from "./node-versions.mjs";

const require = createRequire(import.meta.url);
const VITEST = join(require.resolve("vitest/package.json"), "..", "vitest.mjs");
const TSC = join(require.resolve("typescript/package.json"), "..", "bin", "tsc");
const BIOME = join(require.resolve("@biomejs/biome/package.json"), "..", "bin", "biome");
const E2E = "test/e2e";

const STAGES = [
	{
		id: "types",
		title: "tsc --noEmit (the current pi line's types)",
		run: () => run(process.execPath, [TSC, "--noEmit"]),
	},
	{
		id: "style",
		title: "biome ci (format and lint; `npx biome check --write .` fixes most of what it finds)",
		run: () => run(process.execPath, [BIOME, "ci", "."]),
	},
	{ id: "current-24", title: "current pi line, Node 24: every test", run: () => vitest(ensureNode(24), [], {}) },
	{
		id: "current-22",
		title: "current pi line, Node 22: end-to-end tests",
		run: () => vitest(ensureNode(22, "22.19"), [E2E], {}),
	},
	{
		id: "current-26",
		title: "current pi line, Node 26: end-to-end tests",
		run: () => vitest(ensureNode(26), [E2E], {}),
	},
	{
		id: "legacy-20",
		title: "legacy pi line (@mariozechner 0.73), Node 20: end-to-end tests",
		run: () => vitest(ensureNode(20, "20.19"), [E2E], { FORGE_PI_LINE: "legacy" }),
	},
];

function run(binary, args, env = {}) {
	const result = spawnSync(binary, args, { stdio: "inherit", env: { ...process.env, ...env } });
	return { ok: result.status === 0, passed: 0, failed: result.status === 0 ? 0 : 1 };
}

function vitest(node, files, env) {
	const dir = mkdtempSync(join(tmpdir(), "forge-matrix-"));
	const report = join(dir, "report.json");
	const status = run(
		node,
		[VITEST, "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...files],
		env,
	);
	try {
		const counts = JSON.parse(readFileSync(report, "utf8"));
		// A run that failed with no failed test (an error outside any test) still counts as one failure.
		return { ok: status.ok, passed: counts.numPassedTests, failed: counts.numFailedTests || (status.ok ? 0 : 1) };
	} catch {
		return { ok: false, passed: 0, failed: 1 }; // no report: the run itself failed
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * What the tests need from the system, installed from Debian's packages when missing and we may (root with apt-get):
 * tmux drives pi's TUI, bubblewrap is the OS sandbox under test, git serves the repository for `pi install git:`,
 * ripgrep is what pi's grep runs (a forged tool's `pi.useTool("grep", …)` included).
 */
function ensureSystemPackages() {
	const needed = [
		["tmux", ["-V"], "tmux"],
		["bwrap", ["--version"], "bubblewrap"],
		["git", ["--version"], "git"],
		["rg", ["--version"], "ripgrep"],
	];
	const missing = needed.filter(([command, args]) => spawnSync(command, args).status !== 0).map(([, , pkg]) => pkg);
	if (missing.length === 0) return;
	const root = process.getuid?.() === 0 && spawnSync("apt-get", ["--version"]).status === 0;
	if (!root)
		throw new Error(
			`The tests need ${missing.join(", ")}: install them (e.g. apt-get install ${missing.join(" ")}) and run again.`,
		);
	process.stderr.write(`Installing ${missing.join(", ")} (apt-get) …\n`);
	spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
	if (spawnSync("apt-get", ["install", "-y", "-qq", ...missing], { stdio: "inherit" }).status !== 0)
		throw new Error(`${missing.join(", ")} could not be installed.`);
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((id) => !STAGES.some((stage) => stage.id === id));
if (unknown.length) {
	console.error(`Unknown stage(s): ${unknown.join(", ")}. Stages: ${STAGES.map((s) => s.id).join(", ")}.`);
	process.exit(2);
}
ensureSystemPackages();
const results = [];
for (const stage of STAGES.filter((s) => wanted.length === 0 || wanted.includes(s.id))) {
	console.log(`\n━━ ${stage.id}: ${stage.title}`);
	const started = Date.now();
	const result = stage.run();
	results.push({ ...stage, ...result, seconds: Math.round((Date.now() - started) / 1000) });
}
console.log("\n━━ summary");
for (const r of results)
	console.log(
		`${r.ok ? "ok  " : "FAIL"} ${r.id.padEnd(11)} ${String(r.seconds).padStart(4)} s  ${r.passed} passed, ${r.failed} failed`,
	);
const passed = results.reduce((sum, r) => sum + r.passed, 0);
const failed = results.reduce((sum, r) => sum + r.failed, 0);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
