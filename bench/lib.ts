// Shared helpers for the benchmarks: timing, percentiles, temp dirs, printing, result files.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, readConfig } from "../src/config.ts";
import { InlineRunner } from "../src/run/inline-runner.ts";
import type { IsolatedRunner } from "../src/run/isolated/parent/isolated-runner.ts";
import type { RunHost } from "../src/run/runner.ts";
import { createToolbox, openToolbox } from "../src/toolbox/open-toolbox.ts";
import type { Toolbox } from "../src/toolbox/toolbox.ts";

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const RESULTS_DIR = join(BENCH_DIR, "results");

export interface Stats {
	n: number;
	p50: number;
	p95: number;
	mean: number;
	min: number;
	max: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
	if (sorted.length === 0) return Number.NaN;
	const rank = Math.ceil((p / 100) * sorted.length);
	return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function stats(samples: number[]): Stats {
	const sorted = [...samples].sort((a, b) => a - b);
	const mean = sorted.reduce((sum, x) => sum + x, 0) / (sorted.length || 1);
	return {
		n: sorted.length,
		p50: percentile(sorted, 50),
		p95: percentile(sorted, 95),
		mean,
		min: sorted[0],
		max: sorted[sorted.length - 1],
	};
}

/** Milliseconds taken by `fn`. */
export async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
	const start = process.hrtime.bigint();
	await fn();
	return Number(process.hrtime.bigint() - start) / 1e6;
}

/** A fresh temp dir, removed by `cleanup()` (also on exit, should the script crash). */
export function tempDir(prefix: string): { path: string; cleanup: () => void } {
	const path = mkdtempSync(join(tmpdir(), `forge-bench-${prefix}-`));
	const cleanup = () => rmSync(path, { recursive: true, force: true });
	process.once("exit", cleanup);
	return { path, cleanup };
}

/** Env for readConfig: the bench must never write to a toolbox named by the caller's environment. */
export function benchEnv(): Record<string, string | undefined> {
	return { ...process.env, PI_FORGE_DIR: undefined, PI_FORGE_POLICY: undefined, PI_FORGE_TIMEOUT_MS: undefined };
}

// ---- toolboxes ------------------------------------------------------------------------------------------------

/** The host side of a call, as pi's wiring provides it (no UI). */
export const benchHost: RunHost = { pi: {}, hasUI: false, notify() {} };

/** A toolbox on `cwd` with the inline runner (pi's process). */
export async function inlineToolbox(cwd: string, env: Record<string, string | undefined> = {}): Promise<Toolbox> {
	mkdirSync(cwd, { recursive: true });
	const toolbox = createToolbox(readConfig(cwd, { ...benchEnv(), ...env }).config, new InlineRunner());
	await toolbox.open();
	return toolbox;
}

/**
 * A toolbox on `cwd` with the isolated runner, put together as pi does it (openToolbox). Grants and the host bundle
 * live under `agentDir`: share one agent dir across a run so the bundle is built once, as in one pi process.
 */
export async function isolatedToolbox(
	cwd: string,
	agentDir: string,
	env: Record<string, string | undefined> = {},
): Promise<{ toolbox: Toolbox; runner: IsolatedRunner; rederived: string[] }> {
	mkdirSync(cwd, { recursive: true });
	const opened = await openToolbox(loadConfig(cwd, { ...benchEnv(), PI_CODING_AGENT_DIR: agentDir, ...env }));
	return { toolbox: opened.toolbox, runner: opened.runner, rederived: opened.report.rederived };
}

/** Toolbox.use() that throws on a failed call. */
export async function useOk(toolbox: Toolbox, name: string, args: unknown): Promise<void> {
	const result = await toolbox.use(name, args, { host: benchHost });
	if (!result.ok) throw new Error(`${name} failed: ${result.error.message}`);
}

// ---- printing -------------------------------------------------------------------------------------------------

export const ms = (x: number, width = 6, digits = 2) => `${x.toFixed(digits).padStart(width)} ms`;
export const ratio = (x: number) => `${x.toFixed(2)}×`;
export const mark = (met: boolean) => (met ? "✓" : "✗");

/** One figure line: a label padded to a column, then the given cells. */
export function line(label: string, ...cells: string[]): void {
	console.log(`${label.padEnd(34)}${cells.join("   ")}`);
}

export function table(header: string[], rows: string[][]): string {
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
	const fmt = (r: string[]) =>
		r
			.map((c, i) => (c ?? "").padEnd(widths[i]))
			.join("  ")
			.trimEnd();
	return [fmt(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(fmt)].join("\n");
}

// ---- results --------------------------------------------------------------------------------------------------

export interface Metric {
	metric: string;
	value: number;
	unit: "ms" | "×" | "/s" | "tools" | "chars" | "%";
	goal?: string;
	met?: boolean;
}

export interface BenchResult {
	bench: string;
	title: string;
	node: string;
	at: string;
	metrics: Metric[];
	details?: Record<string, unknown>;
}

export function writeResult(
	bench: string,
	title: string,
	metrics: Metric[],
	details?: Record<string, unknown>,
): string {
	mkdirSync(RESULTS_DIR, { recursive: true });
	const file = join(RESULTS_DIR, `${bench}.json`);
	const result: BenchResult = { bench, title, node: process.version, at: new Date().toISOString(), metrics, details };
	writeFileSync(file, `${JSON.stringify(result, null, "\t")}\n`);
	return file;
}
