// Isolated runner overhead: a forged tool called through the isolated runner (host process, one worker per tool)
// against the same tool through the inline runner (pi's process), both measured in this run: warm calls, first calls
// (worker not there yet; host not there yet), and how soon a runaway tool is stopped after its deadline.
import { spawn } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serialize } from "node:v8";
import { hostBundle } from "../src/run/isolated/parent/bundle.ts";
import type { IsolatedRunner } from "../src/run/isolated/parent/isolated-runner.ts";
import { parseNodeVersion, permissionFlag } from "../src/run/isolated/parent/node-flags.ts";
import type { Toolbox } from "../src/toolbox/toolbox.ts";
import {
	benchHost,
	inlineToolbox,
	isolatedToolbox,
	line,
	mark,
	ms as msN,
	ratio,
	type Stats,
	stats,
	table,
	tempDir,
	time,
	useOk,
	writeResult,
} from "./lib.ts";
import { toolArgs, toolSpec } from "./tools.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const COLD_TOOLS = Number(process.env.BENCH_COLD_TOOLS ?? 20);
const FRESH_RUNNERS = Number(process.env.BENCH_FRESH_RUNNERS ?? 5);
const RUNAWAYS = Number(process.env.BENCH_RUNAWAYS ?? 5);
const RUNAWAY_TIMEOUT_MS = 500;
const GOAL_WARM_OVERHEAD_P50_MS = 2;
const GOAL_COLD_P50_MS = 60;
const GOAL_STOP_AFTER_DEADLINE_MS = 250;

const ms3 = (x: number) => msN(x, 7, 3);
const ms2 = (x: number) => msN(x, 7, 2);
const now = () => performance.now();
const sleep = (delay: number) => new Promise((resolve) => setTimeout(resolve, delay));

/** The small tool of the warm calls: the same as use-overhead's. */
const ADD = {
	name: "add",
	description: "Adds two numbers and returns their sum, product and a label.",
	parametersSchema: {
		type: "object",
		properties: { a: { type: "number" }, b: { type: "number" } },
		required: ["a", "b"],
	},
	logic: "const sum = params.a + params.b;\nreturn { sum, product: params.a * params.b, label: `${params.a}+${params.b}` };",
};
const addArgs = (i: number) => ({ a: i, b: 2 * i + 1 });
const SPIN = {
	name: "spin",
	description: "Never returns: a synchronous loop.",
	parametersSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
	logic: "while (true) {}",
};

async function forgeOk(toolbox: Toolbox, request: Parameters<Toolbox["forge"]>[0]): Promise<void> {
	const forged = await toolbox.forge(request, new Map());
	if (!forged.ok) throw new Error(`forge ${String(request.name)} failed: ${forged.error.message}`);
}

// ---- instrumentation (bench only: wraps the runner's private members on the instance, restores them after) --------

interface HostMessage {
	type: string;
	tool?: string | { name: string };
	callId?: number;
}
interface RunnerInternals {
	/** The host supervisor: the running host, and the start on demand every call goes through. */
	host: { current?: { alive: boolean; send(message: unknown): void }; ensure(): Promise<unknown> };
	/** `from` is the host the message came from: the runner matches stops and results to it. */
	onMessage(message: HostMessage, from: unknown): void;
	onExit(process: unknown, reason: string): void;
	run: IsolatedRunner["run"];
}
const internals = (runner: IsolatedRunner) => runner as unknown as RunnerInternals;

/** Replaces `object[key]` on the instance; the returned function restores the prototype's. */
function wrap<T extends object, K extends keyof T>(object: T, key: K, make: (original: T[K]) => T[K]): () => void {
	const original = (object[key] as (...args: unknown[]) => unknown).bind(object) as T[K];
	object[key] = make(original);
	return () => {
		delete object[key];
	};
}

const SEGMENTS = [
	"Toolbox.use before runner.run (resolve, validate)",
	"runner before send (host check, deadline timer)",
	"send to host (serialise + write to IPC)",
	"in flight (host → worker → execute → host → pi)",
	"runner after result (settle, audit line)",
	"Toolbox.use after runner.run (health, normalise)",
	"total",
] as const;

/** Warm isolated calls with timestamps at each hand-over; also captures one call message and one result message. */
async function warmBreakdown(
	toolbox: Toolbox,
	runner: IsolatedRunner,
	calls: number,
): Promise<{ segments: Record<string, Stats>; callMessage: unknown; resultMessage: unknown }> {
	const r = internals(runner);
	const host = r.host.current;
	if (!host?.alive) throw new Error("breakdown: the host is not running");
	let t = { run: 0, send: 0, sent: 0, result: 0, runEnd: 0 };
	let callMessage: unknown;
	let resultMessage: unknown;
	const restore = [
		wrap(host, "send", (send) => (message: unknown) => {
			t.send = now();
			send(message);
			t.sent = now();
			callMessage ??= message;
		}),
		wrap(r, "onMessage", (onMessage) => (message: HostMessage, from: unknown) => {
			if (message.type === "result") {
				t.result = now();
				resultMessage ??= message;
			}
			onMessage(message, from);
		}),
		wrap(r, "run", (run) => async (request) => {
			t.run = now();
			const outcome = await run(request);
			t.runEnd = now();
			return outcome;
		}),
	];
	const samples: number[][] = SEGMENTS.map(() => []);
	try {
		for (let i = 0; i < calls; i++) {
			t = { run: 0, send: 0, sent: 0, result: 0, runEnd: 0 };
			const start = now();
			await useOk(toolbox, "add", addArgs(i));
			const end = now();
			const parts = [
				t.run - start,
				t.send - t.run,
				t.sent - t.send,
				t.result - t.sent,
				t.runEnd - t.result,
				end - t.runEnd,
				end - start,
			];
			parts.forEach((x, j) => {
				samples[j].push(x);
			});
		}
	} finally {
		for (const undo of restore) undo();
	}
	return {
		segments: Object.fromEntries(SEGMENTS.map((name, j) => [name, stats(samples[j])])),
		callMessage,
		resultMessage,
	};
}

/** runner.run of the inline runner alone (no Toolbox around it), timed from inside Toolbox.use. */
async function inlineRunTimes(toolbox: Toolbox, calls: number): Promise<Stats> {
	const runner = toolbox.runner as unknown as { run: Toolbox["runner"]["run"] };
	const samples: number[] = [];
	const undo = wrap(runner, "run", (run) => async (request) => {
		const start = now();
		const outcome = await run(request);
		samples.push(now() - start);
		return outcome;
	});
	try {
		for (let i = 0; i < calls; i++) await useOk(toolbox, "add", addArgs(i));
	} finally {
		undo();
	}
	return stats(samples);
}

// ---- floor: the same messages through a bare child process (and a worker in it), no forge code at all ----------

const ECHO_HOST = `import { Worker } from "node:worker_threads";
let reply;
const worker = process.argv[2] === "worker" ? new Worker(new URL("./echo-worker.mjs", import.meta.url)) : undefined;
worker?.on("message", (message) => process.send(message));
process.on("message", (message) => {
	if (message.type === "init") {
		reply = message.reply;
		if (worker) worker.postMessage(message);
		else process.send({ type: "ready" });
	} else if (worker) worker.postMessage({ type: "call", callId: message.callId, params: message.params, context: message.context });
	else process.send({ ...reply, callId: message.callId });
});
process.on("disconnect", () => process.exit(0));
`;
const ECHO_WORKER = `import { parentPort } from "node:worker_threads";
let reply;
parentPort.on("message", (message) => {
	if (message.type === "init") {
		reply = message.reply;
		parentPort.postMessage({ type: "ready" });
	} else parentPort.postMessage({ ...reply, callId: message.callId });
});
`;

/** Round trips of `callMessage` to a bare node child (started with the host's flags) answering `resultMessage`. */
async function echoRoundTrips(
	dir: string,
	mode: "process" | "worker",
	callMessage: unknown,
	resultMessage: unknown,
	calls: number,
	warmup: number,
): Promise<Stats> {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "echo-host.mjs"), ECHO_HOST);
	writeFileSync(join(dir, "echo-worker.mjs"), ECHO_WORKER);
	const child = spawn(
		process.execPath,
		[
			permissionFlag(parseNodeVersion(process.version)),
			`--allow-fs-read=${dir}`,
			"--allow-worker",
			"--disallow-code-generation-from-strings",
			"--no-warnings",
			"--max-old-space-size=256",
			join(dir, "echo-host.mjs"),
			mode,
		],
		{ cwd: dir, stdio: ["ignore", "ignore", "inherit", "ipc"], serialization: "advanced", detached: true },
	);
	let waiting: (() => void) | undefined;
	child.on("message", () => {
		const resolve = waiting;
		waiting = undefined;
		resolve?.();
	});
	const exchange = (message: unknown) =>
		new Promise<void>((resolve) => {
			waiting = resolve;
			child.send(message as object);
		});
	try {
		await exchange({ type: "init", reply: resultMessage });
		const message = callMessage as Record<string, unknown>;
		for (let i = 0; i < warmup; i++) await exchange({ ...message, callId: i });
		const samples: number[] = [];
		for (let i = 0; i < calls; i++) samples.push(await time(() => exchange({ ...message, callId: warmup + i })));
		return stats(samples);
	} finally {
		child.kill("SIGKILL");
	}
}

// ---- the bench ------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
	const tmp = tempDir("isolated");
	const root = realpathSync(tmp.path);
	// One agent dir for the whole run: grants, and the host bundle built once, as in one pi process.
	const agentDir = join(root, "agent");
	const open: Toolbox[] = [];
	const track = <T extends { toolbox: Toolbox } | Toolbox>(box: T): T => {
		open.push("toolbox" in box ? box.toolbox : box);
		return box;
	};
	const close = async (toolbox: Toolbox) => {
		open.splice(open.indexOf(toolbox), 1);
		await toolbox.close();
	};

	try {
		const bundleMs = await time(() => hostBundle(join(agentDir, "forge", "runtime")));

		// 1. Warm calls ----------------------------------------------------------------------------------------------
		const warmIso = track(await isolatedToolbox(join(root, "warm-isolated"), agentDir));
		const warmInline = track(await inlineToolbox(join(root, "warm-inline")));
		await forgeOk(warmIso.toolbox, ADD);
		await forgeOk(warmInline, ADD);
		for (let i = 0; i < WARMUP; i++) {
			await useOk(warmIso.toolbox, "add", addArgs(i));
			await useOk(warmInline, "add", addArgs(i));
		}
		// Interleaved, so drift (GC, CPU clock) hits both sides alike.
		const isoSamples: number[] = [];
		const inlineSamples: number[] = [];
		for (let i = 0; i < CALLS; i++) {
			isoSamples.push(await time(() => useOk(warmIso.toolbox, "add", addArgs(i))));
			inlineSamples.push(await time(() => useOk(warmInline, "add", addArgs(i))));
		}
		const warmI = stats(isoSamples);
		const warmN = stats(inlineSamples);
		const warmOverhead = warmI.p50 - warmN.p50;
		const warmMet = warmOverhead <= GOAL_WARM_OVERHEAD_P50_MS;

		// Where a warm isolated call's time goes (instrumented calls, separate from the figures above).
		const breakdown = await warmBreakdown(warmIso.toolbox, warmIso.runner, CALLS);
		const inlineRun = await inlineRunTimes(warmInline, CALLS);
		const echoProcess = await echoRoundTrips(
			join(root, "echo"),
			"process",
			breakdown.callMessage,
			breakdown.resultMessage,
			CALLS,
			WARMUP,
		);
		const echoWorker = await echoRoundTrips(
			join(root, "echo"),
			"worker",
			breakdown.callMessage,
			breakdown.resultMessage,
			CALLS,
			WARMUP,
		);
		const callBytes = serialize(breakdown.callMessage).length;
		const resultBytes = serialize(breakdown.resultMessage).length;
		await close(warmIso.toolbox);
		await close(warmInline);

		// 2. Cold calls: the host is up, the tool's worker is not ---------------------------------------------------
		// In the isolated tools' project: the shared temp dir is outside a tool's roots (each has a private one).
		const samplePath = join(root, "cold-isolated", "sample.txt");
		mkdirSync(join(root, "cold-isolated"), { recursive: true });
		writeFileSync(
			samplePath,
			Array.from({ length: 200 }, (_, i) => (i % 3 ? `line ${i}` : `line ${i} mentions forge`)).join("\n"),
		);
		const coldIso = track(await isolatedToolbox(join(root, "cold-isolated"), agentDir));
		const coldInline = track(await inlineToolbox(join(root, "cold-inline")));
		for (let i = 0; i < COLD_TOOLS; i++) {
			await forgeOk(coldIso.toolbox, toolSpec("cold", i));
			await forgeOk(coldInline, toolSpec("cold", i));
		}
		await Promise.all([coldIso.toolbox.flush(), coldInline.flush()]);
		await internals(coldIso.runner).host.ensure(); // up already (the forges' preflight ran in it)
		const coldIsoSamples: number[] = [];
		const coldInlineSamples: number[] = [];
		for (let i = 0; i < COLD_TOOLS; i++) {
			const { name } = toolSpec("cold", i);
			coldIsoSamples.push(await time(() => useOk(coldIso.toolbox, name, toolArgs(i, samplePath))));
			coldInlineSamples.push(await time(() => useOk(coldInline, name, toolArgs(i, samplePath))));
		}
		const coldI = stats(coldIsoSamples);
		const coldN = stats(coldInlineSamples);
		const coldMet = coldI.p50 <= GOAL_COLD_P50_MS;
		await close(coldIso.toolbox);
		await close(coldInline);

		// 2b. The very first call of a session: a fresh runner, no host yet (pi warms it at session start) ---------
		const freshCwd = join(root, "fresh");
		const seed = track(await inlineToolbox(freshCwd));
		await forgeOk(seed, ADD);
		await close(seed);
		const freshIso: number[] = [];
		const freshHostReady: number[] = [];
		const freshInline: number[] = [];
		for (let k = 0; k < FRESH_RUNNERS; k++) {
			const box = track(await isolatedToolbox(freshCwd, agentDir));
			if (box.rederived.length > 0)
				console.log(
					`note: opening re-derived ${box.rederived.join(", ")} (the host started before the timed call)`,
				);
			let ready = 0;
			const undo = wrap(internals(box.runner).host, "ensure", (ensure) => () => {
				const host = ensure();
				void host.then(
					() => {
						ready ||= now();
					},
					() => undefined,
				);
				return host;
			});
			const start = now();
			await useOk(box.toolbox, "add", addArgs(k));
			freshIso.push(now() - start);
			freshHostReady.push(ready - start);
			undo();
			await close(box.toolbox);
			const inline = track(await inlineToolbox(freshCwd));
			freshInline.push(await time(() => useOk(inline, "add", addArgs(k))));
			await close(inline);
		}
		const freshI = stats(freshIso);
		const freshReady = stats(freshHostReady);
		const freshN = stats(freshInline);

		// 3. Runaway: `while (true) {}` past a 500 ms deadline ------------------------------------------------------
		const runaway = track(
			await isolatedToolbox(join(root, "runaway"), agentDir, { PI_FORGE_TIMEOUT_MS: String(RUNAWAY_TIMEOUT_MS) }),
		);
		if (runaway.toolbox.config.timeoutMs !== RUNAWAY_TIMEOUT_MS)
			throw new Error(`runaway: timeout is ${runaway.toolbox.config.timeoutMs} ms, not ${RUNAWAY_TIMEOUT_MS}`);
		await forgeOk(runaway.toolbox, SPIN);
		await forgeOk(runaway.toolbox, ADD);
		await useOk(runaway.toolbox, "add", addArgs(0));
		let stoppedAt = 0;
		let exitedAt = 0;
		let hostExits = 0;
		const r = internals(runaway.runner);
		const undoRunaway = [
			// Every argument passes through: the runner matches a message to the host it came from.
			wrap(r, "onMessage", (onMessage) => (message: HostMessage, from: unknown) => {
				if (message.type === "stopped" && message.tool === "spin") stoppedAt ||= now();
				onMessage(message, from);
			}),
			wrap(r, "onExit", (onExit) => (process: unknown, reason: string) => {
				exitedAt ||= now();
				hostExits++;
				onExit(process, reason);
			}),
		];
		const runs: Array<{
			returnedMs: number;
			phase: string;
			goneMs?: number;
			gone: string;
			nextOk: boolean;
			nextMs: number;
			nextError?: string;
		}> = [];
		for (let k = 0; k < RUNAWAYS; k++) {
			stoppedAt = 0;
			exitedAt = 0;
			const start = now();
			const spun = await runaway.toolbox.use("spin", { text: "" }, { host: benchHost });
			const returnedMs = now() - start;
			for (let waited = 0; !stoppedAt && !exitedAt && waited < 3000; waited += 5) await sleep(5);
			const goneAt = stoppedAt || exitedAt;
			const nextStart = now();
			const next = await runaway.toolbox.use("add", addArgs(k), { host: benchHost });
			runs.push({
				returnedMs,
				phase: spun.ok ? "ok (!)" : spun.error.phase,
				goneMs: goneAt ? goneAt - start : undefined,
				gone: stoppedAt ? "worker terminated" : exitedAt ? "host killed" : "not seen within 3 s",
				nextOk: next.ok,
				nextMs: now() - nextStart,
				nextError: next.ok ? undefined : next.error.message,
			});
		}
		for (const undo of undoRunaway) undo();
		await close(runaway.toolbox);
		const over = stats(runs.map((run) => run.returnedMs - RUNAWAY_TIMEOUT_MS));
		const goneOver = stats(runs.map((run) => (run.goneMs ?? Number.POSITIVE_INFINITY) - RUNAWAY_TIMEOUT_MS));
		const stopMet = over.max <= GOAL_STOP_AFTER_DEADLINE_MS;
		const goneMet = goneOver.max <= GOAL_STOP_AFTER_DEADLINE_MS;
		const nextFailures = runs.filter((run) => !run.nextOk);

		// ---- report ------------------------------------------------------------------------------------------------
		const pad = "".padEnd(14);
		console.log(`\nwarm calls (${CALLS} each, after ${WARMUP} warm-up)`);
		line("  isolated", `p50 ${ms3(warmI.p50)}`, `p95 ${ms3(warmI.p95)}`, `mean ${ms3(warmI.mean)}`);
		line("  inline", `p50 ${ms3(warmN.p50)}`, `p95 ${ms3(warmN.p95)}`, `mean ${ms3(warmN.mean)}`);
		line(
			"  overhead (isolated − inline)",
			`p50 ${ms3(warmOverhead)}`,
			`p95 ${ms3(warmI.p95 - warmN.p95)}`,
			`${pad}goal p50 ≤ ${GOAL_WARM_OVERHEAD_P50_MS} ms  ${mark(warmMet)}`,
		);
		line("  isolated / inline", `p50 ${ratio(warmI.p50 / warmN.p50).padStart(10)}`);

		console.log(`\nwhere a warm isolated call goes (${CALLS} instrumented calls; p50s do not add up exactly)`);
		const seg = (name: string) => breakdown.segments[name];
		console.log(
			table(
				["segment", "p50", "p95"],
				SEGMENTS.map((name) => [`  ${name}`, ms3(seg(name).p50), ms3(seg(name).p95)]),
			),
		);
		console.log(
			table(
				["for comparison", "p50", "p95"],
				[
					["  inline runner.run (same tool)", ms3(inlineRun.p50), ms3(inlineRun.p95)],
					["  bare child process IPC round trip", ms3(echoProcess.p50), ms3(echoProcess.p95)],
					["  bare child process + worker round trip", ms3(echoWorker.p50), ms3(echoWorker.p95)],
				],
			),
		);
		console.log(
			`  call message ${callBytes} bytes serialised (the tool's code and source map ride on every call), result ${resultBytes} bytes`,
		);

		console.log(`\ncold calls: first call of ${COLD_TOOLS} tools, host already up, worker not`);
		line(
			"  isolated",
			`p50 ${ms2(coldI.p50)}`,
			`p95 ${ms2(coldI.p95)}`,
			`max ${ms2(coldI.max)}`,
			`goal p50 ≤ ${GOAL_COLD_P50_MS} ms  ${mark(coldMet)}   (p95 ${mark(coldI.p95 <= GOAL_COLD_P50_MS)})`,
		);
		line(
			"  inline (first call, same tools)",
			`p50 ${ms2(coldN.p50)}`,
			`p95 ${ms2(coldN.p95)}`,
			`max ${ms2(coldN.max)}`,
		);
		line("  isolated / inline", `p50 ${ratio(coldI.p50 / coldN.p50).padStart(10)}`);

		console.log(
			`\nfirst call of a fresh runner, host not started (${FRESH_RUNNERS} runners; informative: pi starts the host at session start)`,
		);
		line("  isolated, whole call", `p50 ${ms2(freshI.p50)}`, `max ${ms2(freshI.max)}`);
		line("    of which until host ready", `p50 ${ms2(freshReady.p50)}`, `max ${ms2(freshReady.max)}`);
		line("  inline (fresh toolbox)", `p50 ${ms2(freshN.p50)}`, `max ${ms2(freshN.max)}`);
		line("  host bundle build (per process)", ms2(bundleMs));

		console.log(`\nrunaway: while (true) {} with PI_FORGE_TIMEOUT_MS=${RUNAWAY_TIMEOUT_MS}, ${RUNAWAYS} times`);
		line(
			"  call returned − deadline",
			`p50 ${ms2(over.p50)}`,
			`max ${ms2(over.max)}`,
			`goal max ≤ ${GOAL_STOP_AFTER_DEADLINE_MS} ms  ${mark(stopMet)}`,
		);
		line(
			"  worker gone − deadline",
			`p50 ${ms2(goneOver.p50)}`,
			`max ${ms2(goneOver.max)}`,
			`goal max ≤ ${GOAL_STOP_AFTER_DEADLINE_MS} ms  ${mark(goneMet)}`,
		);
		console.log(
			table(
				["  #", "phase", "returned", "gone", "how", "next call"],
				runs.map((run, k) => [
					`  ${k + 1}`,
					run.phase,
					ms2(run.returnedMs),
					run.goneMs === undefined ? "—" : ms2(run.goneMs),
					run.gone,
					run.nextOk ? `ok ${ms2(run.nextMs)}` : `FAILED: ${run.nextError}`,
				]),
			),
		);
		if (nextFailures.length)
			console.log(`  ✗ the next call of another tool failed after ${nextFailures.length} of ${RUNAWAYS} runaways`);
		else console.log(`  the next call of another tool succeeded after every runaway (host restarts: ${hostExits})`);
		console.log();

		writeResult(
			"isolated-overhead",
			`Isolated runner vs inline: warm (${CALLS} calls), cold (${COLD_TOOLS} tools), runaway (${RUNAWAYS}×)`,
			[
				{ metric: "warm isolated p50", value: warmI.p50, unit: "ms" },
				{ metric: "warm isolated p95", value: warmI.p95, unit: "ms" },
				{ metric: "warm inline p50", value: warmN.p50, unit: "ms" },
				{ metric: "warm inline p95", value: warmN.p95, unit: "ms" },
				{
					metric: "warm overhead p50 (isolated − inline)",
					value: warmOverhead,
					unit: "ms",
					goal: `≤ ${GOAL_WARM_OVERHEAD_P50_MS} ms`,
					met: warmMet,
				},
				{ metric: "warm isolated / inline p50", value: warmI.p50 / warmN.p50, unit: "×" },
				{
					metric: "cold isolated p50",
					value: coldI.p50,
					unit: "ms",
					goal: `≤ ${GOAL_COLD_P50_MS} ms`,
					met: coldMet,
				},
				{ metric: "cold isolated p95", value: coldI.p95, unit: "ms" },
				{ metric: "cold inline p50", value: coldN.p50, unit: "ms" },
				{ metric: "cold isolated / inline p50", value: coldI.p50 / coldN.p50, unit: "×" },
				{ metric: "first call incl. host start p50", value: freshI.p50, unit: "ms" },
				{ metric: "first call incl. host start max", value: freshI.max, unit: "ms" },
				{ metric: "runaway returned − deadline p50", value: over.p50, unit: "ms" },
				{
					metric: "runaway returned − deadline max",
					value: over.max,
					unit: "ms",
					goal: `≤ ${GOAL_STOP_AFTER_DEADLINE_MS} ms`,
					met: stopMet,
				},
				{
					metric: "runaway worker gone − deadline max",
					value: goneOver.max,
					unit: "ms",
					goal: `≤ ${GOAL_STOP_AFTER_DEADLINE_MS} ms`,
					met: goneMet,
				},
			],
			{
				calls: CALLS,
				warmup: WARMUP,
				warm: {
					isolated: warmI,
					inline: warmN,
					breakdown: breakdown.segments,
					inlineRun,
					echoProcess,
					echoWorker,
					callBytes,
					resultBytes,
				},
				cold: { tools: COLD_TOOLS, isolated: coldI, inline: coldN },
				fresh: {
					runners: FRESH_RUNNERS,
					isolated: freshI,
					untilHostReady: freshReady,
					inline: freshN,
					bundleBuildMs: bundleMs,
				},
				runaway: { timeoutMs: RUNAWAY_TIMEOUT_MS, runs, hostExits, nextFailures: nextFailures.length },
			},
		);
	} finally {
		for (const toolbox of open) await toolbox.close().catch(() => undefined);
		tmp.cleanup();
	}
}

await main();
