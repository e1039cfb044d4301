// Toolbox scale: does a forge get slower when the toolbox already holds 10,000 tools? Forge latency (sequential, no
// flush between forges) on a 10-tool and a 10,000-tool toolbox in the same run, open() time, and bursts of 100
// parallel forges. The big toolbox is written directly in the on-disk format (tool pairs + a fresh registry), so
// open() trusts it as it would a toolbox forged one tool at a time. Store and registry operations are timed by
// wrapping the instance methods (bench only), to show where the time goes.
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { readConfig } from "../src/config.ts";
import { REGISTRY_FILE } from "../src/contract/tool-files.ts";
import { InlineRunner } from "../src/run/inline-runner.ts";
import { parseRegistry, serializeRegistry } from "../src/store/registry.ts";
import { createToolboxStores } from "../src/toolbox/open-toolbox.ts";
import { type OpenReport, Toolbox, type ToolboxStores } from "../src/toolbox/toolbox.ts";
import { generateToolbox } from "../test/helpers/big-toolbox.ts";
import { line, type Metric, mark, ms, ratio, stats, tempDir, time, writeResult } from "./lib.ts";
import { type ToolSpec, toolSpec } from "./tools.ts";

const SMALL = Number(process.env.BENCH_SMALL ?? 10);
const BIG = Number(process.env.BENCH_BIG ?? 10_000);
const TOOLS = Number(process.env.BENCH_TOOLS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const BURST = Number(process.env.BENCH_BURST ?? 100);
const GOAL_RATIO = 2;

// ---- a realistic toolbox, written directly (test/helpers/big-toolbox.ts) ---------------------------------------

/** Writes `count` generated tools and a fresh `forge-registry.json` into `dir`, exactly as the forge leaves them. */
async function buildToolbox(dir: string, count: number): Promise<{ ms: number; registryBytes: number }> {
	const started = performance.now();
	await generateToolbox(dir, count);
	const { size } = await stat(join(dir, REGISTRY_FILE));
	return { ms: performance.now() - started, registryBytes: size };
}

// ---- probes: store and registry operations, timed by wrapping instance methods -----------------------------------

interface Probe {
	/** Per forge: waiting for the toolbox lock, then holding it (the forge's whole change). */
	forgeWait: number[];
	forgeHold: number[];
	/** Per background registry save (RegistryKeeper.mergeAndWrite under the lock). */
	saveWait: number[];
	saveHold: number[];
	readRegistry: number[];
	writeRegistry: number[];
	/** mergeAndWrite minus its read and write: parseRegistry + merge + serializeRegistry (synchronous, blocks the loop). */
	parseMergeSerialize: number[];
	stage: number[];
	promote: number[];
	discard: number[];
	history: number[];
	searchUpsert: number[];
	registrySet: number[];
	/** open() only. */
	listStamps: number[];
	recover: number[];
	healthLoad: number[];
	entries: number[];
}

const emptyProbe = (): Probe => ({
	forgeWait: [],
	forgeHold: [],
	saveWait: [],
	saveHold: [],
	readRegistry: [],
	writeRegistry: [],
	parseMergeSerialize: [],
	stage: [],
	promote: [],
	discard: [],
	history: [],
	searchUpsert: [],
	registrySet: [],
	listStamps: [],
	recover: [],
	healthLoad: [],
	entries: [],
});

type AnyFn = (...args: any[]) => any;
function wrap(target: object, method: string, record: (ms: number) => void): void {
	const obj = target as Record<string, AnyFn>;
	const original = obj[method];
	obj[method] = function (this: unknown, ...args: unknown[]) {
		const start = performance.now();
		const out = original.apply(this, args);
		if (out instanceof Promise) return out.finally(() => record(performance.now() - start));
		record(performance.now() - start);
		return out;
	};
}

/** Attaches the probe to a toolbox; `probe.current` is swapped per phase. */
function instrument(toolbox: Toolbox, stores: ToolboxStores): { current: Probe } {
	const ref = { current: emptyProbe() };
	const internals = (toolbox as unknown as { box: { registry: object; cache: { search: object } } }).box;
	const search = internals.cache.search;
	const keeper = internals.registry as Record<string, AnyFn>;
	let saves = 0;
	let saveIo = 0;
	const originalMerge = keeper.mergeAndWrite;
	keeper.mergeAndWrite = async function (this: unknown) {
		saves++;
		saveIo = 0;
		const start = performance.now();
		try {
			return await originalMerge.call(this);
		} finally {
			ref.current.parseMergeSerialize.push(performance.now() - start - saveIo);
		}
	};
	wrap(stores.store, "readRegistry", (t) => {
		saveIo += t;
		ref.current.readRegistry.push(t);
	});
	wrap(stores.store, "writeRegistry", (t) => {
		saveIo += t;
		ref.current.writeRegistry.push(t);
	});
	wrap(stores.store, "stage", (t) => ref.current.stage.push(t));
	wrap(stores.store, "promote", (t) => ref.current.promote.push(t));
	wrap(stores.store, "discard", (t) => ref.current.discard.push(t));
	wrap(stores.history, "record", (t) => ref.current.history.push(t));
	wrap(search, "upsert", (t) => ref.current.searchUpsert.push(t));
	wrap(internals.registry, "set", (t) => ref.current.registrySet.push(t));
	wrap(internals.registry, "entries", (t) => ref.current.entries.push(t));
	wrap(stores.store, "listStamps", (t) => ref.current.listStamps.push(t));
	wrap(stores.store, "recover", (t) => ref.current.recover.push(t));
	wrap(stores.health, "load", (t) => ref.current.healthLoad.push(t));
	const store = stores.store as unknown as Record<string, AnyFn>;
	const originalLocked = store.locked;
	store.locked = function (this: unknown, fn: () => Promise<unknown>) {
		const asked = performance.now();
		return originalLocked.call(this, async () => {
			const got = performance.now();
			const before = saves;
			const running = fn(); // a registry save calls mergeAndWrite synchronously; a forge's work does not
			const isSave = saves > before;
			try {
				return await running;
			} finally {
				const probe = ref.current;
				(isSave ? probe.saveWait : probe.forgeWait).push(got - asked);
				(isSave ? probe.saveHold : probe.forgeHold).push(performance.now() - got);
			}
		});
	};
	return ref;
}

// ---- phases ------------------------------------------------------------------------------------------------------

const taken = new Map<string, string>();
async function forgeOk(toolbox: Toolbox, spec: ToolSpec): Promise<void> {
	const result = await toolbox.forge(spec, taken);
	if (!result.ok) throw new Error(`forge ${spec.name} failed: ${result.error.message}`);
}

interface Opened {
	toolbox: Toolbox;
	probe: { current: Probe };
	openMs: number;
	/** What open() spent where (ms). */
	openParts: Record<string, number>;
	report: OpenReport;
	dir: string;
}

async function openOn(cwd: string): Promise<Opened> {
	const config = readConfig(cwd, {}).config;
	const stores = createToolboxStores(config);
	const toolbox = new Toolbox(config, new InlineRunner(), stores);
	const probe = instrument(toolbox, stores);
	let report!: OpenReport;
	const openMs = await time(async () => (report = await toolbox.open()));
	const p = probe.current;
	probe.current = emptyProbe();
	const locked = sum(p.forgeHold);
	const readOrList = Math.max(sum(p.readRegistry), sum(p.listStamps)); // run in parallel
	const openParts = {
		"health.load": sum(p.healthLoad),
		"lock wait": sum(p.forgeWait),
		"store.recover": sum(p.recover),
		"store.readRegistry ∥ store.listStamps": readOrList,
		"parseRegistry + staleNames + replaceAll (rest of the locked part)": locked - sum(p.recover) - readOrList,
		"search.upsert × every tool": sum(p.searchUpsert),
		"entries() (sorted copy, for the broken list)": sum(p.entries),
	};
	return { toolbox, probe, openMs, openParts, report, dir: toolbox.config.toolboxDir };
}

interface Latency {
	samples: number[];
	flushMs: number;
	probe: Probe;
	loopDelayMaxMs: number;
}

async function measureLatency(opened: Opened): Promise<Latency> {
	const { toolbox, probe } = opened;
	for (let i = 0; i < WARMUP; i++) await forgeOk(toolbox, toolSpec("warm", i));
	await toolbox.flush(); // start the measured sequence from a settled toolbox; no flush between measured forges
	probe.current = emptyProbe();
	const loop = monitorEventLoopDelay({ resolution: 1 });
	loop.enable();
	const samples: number[] = [];
	for (let i = 0; i < TOOLS; i++) samples.push(await time(() => forgeOk(toolbox, toolSpec("new", i))));
	const flushMs = await time(() => toolbox.flush());
	loop.disable();
	const measured = probe.current;
	probe.current = emptyProbe();
	return { samples, flushMs, probe: measured, loopDelayMaxMs: loop.max / 1e6 };
}

interface Burst {
	wallMs: number;
	flushMs: number;
	perSecond: number;
	inRegistry: number;
	registryTotal: number;
	expectedTotal: number;
	probe: Probe;
}

async function measureBurst(opened: Opened, prefix: string): Promise<Burst> {
	const { toolbox, probe } = opened;
	const before = toolbox.entries().length;
	probe.current = emptyProbe();
	const specs = Array.from({ length: BURST }, (_, i) => toolSpec(prefix, i));
	const wallMs = await time(() => Promise.all(specs.map((spec) => forgeOk(toolbox, spec))));
	const flushMs = await time(() => toolbox.flush());
	const onDisk = parseRegistry(await readFile(join(opened.dir, REGISTRY_FILE), "utf8").catch(() => undefined));
	const inRegistry = specs.filter((spec) => onDisk?.tools[spec.name] !== undefined).length;
	const measured = probe.current;
	probe.current = emptyProbe();
	return {
		wallMs,
		flushMs,
		perSecond: BURST / (wallMs / 1000),
		inRegistry,
		registryTotal: onDisk ? Object.keys(onDisk.tools).length : 0,
		expectedTotal: before + BURST,
		probe: measured,
	};
}

// ---- report -------------------------------------------------------------------------------------------------------

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => (xs.length ? sum(xs) / xs.length : 0);

function breakdownRows(small: Probe, big: Probe, forges: number): Array<[string, number, number]> {
	// Per-forge mean cost of each component (ms per forge), so background saves are spread over the forges that paid them.
	const per = (p: Probe, key: keyof Probe) => sum(p[key]) / forges;
	const keys: Array<[string, keyof Probe]> = [
		["forge: waiting for the toolbox lock", "forgeWait"],
		["forge: holding the lock (whole change)", "forgeHold"],
		["  store.stage", "stage"],
		["  store.promote", "promote"],
		["  store.discard", "discard"],
		["  history.record", "history"],
		["  search.upsert", "searchUpsert"],
		["  registry.set (sync)", "registrySet"],
		["registry save: waiting for the lock", "saveWait"],
		["registry save: holding the lock", "saveHold"],
		["  store.readRegistry", "readRegistry"],
		["  parseRegistry + merge + serializeRegistry", "parseMergeSerialize"],
		["  store.writeRegistry", "writeRegistry"],
	];
	return keys.map(([label, key]) => [label, per(small, key), per(big, key)]);
}

async function main(): Promise<void> {
	const tmp = tempDir("scale");
	try {
		const smallCwd = join(tmp.path, "small");
		const bigCwd = join(tmp.path, "big");
		const freshCwd = join(tmp.path, "fresh");
		const dirOf = (cwd: string) => readConfig(cwd, {}).config.toolboxDir;

		const smallBuilt = await buildToolbox(dirOf(smallCwd), SMALL);
		const bigBuilt = await buildToolbox(dirOf(bigCwd), BIG);
		console.log(
			`\nbuilt toolboxes: ${SMALL} tools in ${smallBuilt.ms.toFixed(0)} ms, ${BIG} tools in ${bigBuilt.ms.toFixed(0)} ms (registry ${(bigBuilt.registryBytes / 1e6).toFixed(2)} MB)`,
		);

		const small = await openOn(smallCwd);
		const big = await openOn(bigCwd);
		for (const [opened, count] of [
			[small, SMALL],
			[big, BIG],
		] as const) {
			const r = opened.report;
			if (r.tools !== count || r.rebuilt || r.rederived.length > 0)
				throw new Error(
					`open() did not find the prebuilt toolbox fresh: ${JSON.stringify({ tools: r.tools, rebuilt: r.rebuilt, rederived: r.rederived.length })}`,
				);
		}

		// 1. Sequential forge latency, small toolbox first, then big (each with its own warm-up).
		const latSmall = await measureLatency(small);
		const latBig = await measureLatency(big);

		// 2. Bursts of parallel forges: a fresh (empty) toolbox, then the big one.
		const fresh = await openOn(freshCwd);
		const burstFresh = await measureBurst(fresh, "burst");
		const burstBig = await measureBurst(big, "burst");

		// Standalone cost of the whole-registry operations a save repeats, on the big toolbox's registry as it is now.
		const bigText = await readFile(join(big.dir, REGISTRY_FILE), "utf8");
		let parsed = parseRegistry(bigText)!;
		serializeRegistry(parsed); // warm-up
		const parseSamples: number[] = [];
		const serializeSamples: number[] = [];
		for (let i = 0; i < 9; i++) {
			parseSamples.push(await time(() => (parsed = parseRegistry(bigText)!)));
			serializeSamples.push(await time(() => serializeRegistry(parsed)));
		}
		const parseMs = stats(parseSamples);
		const serializeMs = stats(serializeSamples);

		for (const opened of [small, big, fresh]) await opened.toolbox.close();

		// ---- figures ----
		const s = stats(latSmall.samples);
		const b = stats(latBig.samples);
		const r50 = b.p50 / s.p50;
		const met = r50 <= GOAL_RATIO;
		const label = (n: number) => n.toLocaleString("en-US");
		console.log();
		line(`open() ${label(SMALL)} tools`, ms(small.openMs, 8));
		line(`open() ${label(BIG)} tools`, ms(big.openMs, 8));
		line(
			`forge at ${label(SMALL)} (${TOOLS} new)`,
			`p50 ${ms(s.p50)}`,
			`p95 ${ms(s.p95)}`,
			`mean ${ms(s.mean)}`,
			`max ${ms(s.max)}`,
		);
		line(
			`forge at ${label(BIG)} (${TOOLS} new)`,
			`p50 ${ms(b.p50)}`,
			`p95 ${ms(b.p95)}`,
			`mean ${ms(b.mean)}`,
			`max ${ms(b.max)}`,
		);
		line(
			`ratio ${label(BIG)} / ${label(SMALL)}`,
			`p50 ${ratio(r50).padStart(9)}`,
			`p95 ${ratio(b.p95 / s.p95).padStart(9)}`,
			`goal p50 at ${label(BIG)} ≤ ${GOAL_RATIO}× p50 at ${label(SMALL)}  ${mark(met)}`,
		);
		line(
			`flush after the forges`,
			`at ${label(SMALL)} ${ms(latSmall.flushMs)}`,
			`at ${label(BIG)} ${ms(latBig.flushMs)}`,
		);
		line(
			`registry saves during the forges`,
			`at ${label(SMALL)} ${String(latSmall.probe.saveHold.length).padStart(6)}   `,
			`at ${label(BIG)} ${String(latBig.probe.saveHold.length).padStart(6)}`,
		);
		line(
			`event-loop delay, max`,
			`at ${label(SMALL)} ${ms(latSmall.loopDelayMaxMs)}`,
			`at ${label(BIG)} ${ms(latBig.loopDelayMaxMs)}`,
		);
		console.log();
		const burstLine = (title: string, x: Burst) => {
			const all = x.inRegistry === BURST && x.registryTotal === x.expectedTotal;
			line(
				title,
				`wall ${ms(x.wallMs, 8)}`,
				`${x.perSecond.toFixed(1).padStart(6)} forges/s`,
				`flush ${ms(x.flushMs)}`,
				`in registry ${x.inRegistry}/${BURST} (total ${x.registryTotal}/${x.expectedTotal}) ${mark(all)}`,
			);
			return all;
		};
		const freshAll = burstLine(`burst ${BURST} ∥ forges, fresh`, burstFresh);
		const bigAll = burstLine(`burst ${BURST} ∥ forges, ${label(BIG)}`, burstBig);
		console.log();

		// Where the time goes (printed always; it is the explanation when the goal fails).
		const rows = breakdownRows(latSmall.probe, latBig.probe, TOOLS);
		console.log(`where a sequential forge's time goes (mean ms per forge; saves spread over the ${TOOLS} forges):`);
		line("", `${`at ${label(SMALL)}`.padStart(11)}`, `${`at ${label(BIG)}`.padStart(11)}`, "     Δ");
		for (const [name, x, y] of rows) line(name, ms(x, 8), ms(y, 8), ms(y - x, 8));
		const perSave = (p: Probe, key: keyof Probe) => mean(p[key]);
		console.log(
			`per registry save at ${label(BIG)}: hold ${ms(perSave(latBig.probe, "saveHold")).trim()} = read ${ms(perSave(latBig.probe, "readRegistry")).trim()} + parse/merge/serialize ${ms(perSave(latBig.probe, "parseMergeSerialize")).trim()} + write ${ms(perSave(latBig.probe, "writeRegistry")).trim()}; registry ${(Buffer.byteLength(bigText) / 1e6).toFixed(2)} MB`,
		);
		console.log(
			`standalone on that registry: parseRegistry p50 ${ms(parseMs.p50).trim()}, serializeRegistry p50 ${ms(serializeMs.p50).trim()}`,
		);
		console.log(
			`open() at ${label(BIG)}: ${Object.entries(big.openParts)
				.map(([k, v]) => `${k} ${v.toFixed(1)} ms`)
				.join(", ")}`,
		);
		console.log(
			`burst at ${label(BIG)}: ${burstBig.probe.saveHold.length} saves (hold mean ${ms(mean(burstBig.probe.saveHold)).trim()}), forge lock wait mean ${ms(mean(burstBig.probe.forgeWait)).trim()}; fresh: ${burstFresh.probe.saveHold.length} saves, forge lock wait mean ${ms(mean(burstFresh.probe.forgeWait)).trim()}`,
		);
		console.log();

		const metrics: Metric[] = [
			{ metric: `open() at ${SMALL}`, value: small.openMs, unit: "ms" },
			{ metric: `open() at ${BIG}`, value: big.openMs, unit: "ms" },
			{ metric: `forge p50 at ${SMALL}`, value: s.p50, unit: "ms" },
			{ metric: `forge p95 at ${SMALL}`, value: s.p95, unit: "ms" },
			{ metric: `forge p50 at ${BIG}`, value: b.p50, unit: "ms" },
			{ metric: `forge p95 at ${BIG}`, value: b.p95, unit: "ms" },
			{
				metric: `ratio p50 ${BIG}/${SMALL}`,
				value: r50,
				unit: "×",
				goal: `p50 at ${label(BIG)} ≤ ${GOAL_RATIO}× p50 at ${label(SMALL)}`,
				met,
			},
			{ metric: `ratio p95 ${BIG}/${SMALL}`, value: b.p95 / s.p95, unit: "×" },
			{ metric: `flush after ${TOOLS} forges at ${SMALL}`, value: latSmall.flushMs, unit: "ms" },
			{ metric: `flush after ${TOOLS} forges at ${BIG}`, value: latBig.flushMs, unit: "ms" },
			{ metric: `burst ${BURST} fresh: wall`, value: burstFresh.wallMs, unit: "ms" },
			{ metric: `burst ${BURST} fresh: throughput`, value: burstFresh.perSecond, unit: "/s" },
			{ metric: `burst ${BURST} fresh: flush`, value: burstFresh.flushMs, unit: "ms" },
			{
				metric: `burst ${BURST} fresh: in registry`,
				value: burstFresh.inRegistry,
				unit: "tools",
				goal: `all ${BURST}`,
				met: freshAll,
			},
			{ metric: `burst ${BURST} at ${BIG}: wall`, value: burstBig.wallMs, unit: "ms" },
			{ metric: `burst ${BURST} at ${BIG}: throughput`, value: burstBig.perSecond, unit: "/s" },
			{ metric: `burst ${BURST} at ${BIG}: flush`, value: burstBig.flushMs, unit: "ms" },
			{
				metric: `burst ${BURST} at ${BIG}: in registry`,
				value: burstBig.inRegistry,
				unit: "tools",
				goal: `all ${BURST}`,
				met: bigAll,
			},
		];
		const probeSummary = (p: Probe) =>
			Object.fromEntries(Object.entries(p).map(([k, v]) => [k, { n: v.length, sumMs: sum(v), meanMs: mean(v) }]));
		writeResult(
			"toolbox-scale",
			`toolbox scale: forge latency at ${SMALL} vs ${BIG} tools, bursts of ${BURST}`,
			metrics,
			{
				sizes: { small: SMALL, big: BIG },
				tools: TOOLS,
				warmup: WARMUP,
				burst: BURST,
				build: { small: smallBuilt, big: bigBuilt },
				openParts: { small: small.openParts, big: big.openParts },
				latency: { small: s, big: b },
				flushMs: { small: latSmall.flushMs, big: latBig.flushMs },
				loopDelayMaxMs: { small: latSmall.loopDelayMaxMs, big: latBig.loopDelayMaxMs },
				breakdownPerForgeMs: Object.fromEntries(rows.map(([name, x, y]) => [name.trim(), { small: x, big: y }])),
				probes: {
					small: probeSummary(latSmall.probe),
					big: probeSummary(latBig.probe),
					burstFresh: probeSummary(burstFresh.probe),
					burstBig: probeSummary(burstBig.probe),
				},
				registry: { bigBytes: Buffer.byteLength(bigText), parseMs, serializeMs },
				bursts: { fresh: { ...burstFresh, probe: undefined }, big: { ...burstBig, probe: undefined } },
			},
		);
	} finally {
		tmp.cleanup();
	}
}

await main();
