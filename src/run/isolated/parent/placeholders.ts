// The empty read-only folders that hold absent protected locations while granted commands run (`.git`, `AGENTS.md`;
// see command-sandbox.ts). bubblewrap makes them in the real folder, so they outlive a pi that is killed hard: each
// pi process records the ones it holds in a file of its own, in a folder no tool or command can write (under the
// forge's state dir), and the next start removes the ones a dead process left, if they are still empty. A placeholder
// another live pi process holds is never removed (its command would lose the mount that keeps it out).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface Record {
	pid: number;
	/** The process's start time (from /proc), so a reused pid is not taken for the process that wrote the record. */
	started: string;
	paths: string[];
}

/**
 * The folder under the runner's runtime dir (the forge's state, which no tool or command can write) where this pi
 * records its placeholders; what pi processes killed hard left there is removed first.
 */
export function openPlaceholderRecords(runtimeDir: string): string {
	const dir = join(runtimeDir, "placeholders");
	removeLeftoverPlaceholders(dir);
	return dir;
}

/** Placeholders this process holds: how many commands hold each, and the folder it is recorded in. */
const held = new Map<string, { count: number; recordDir?: string }>();

/** Takes a hold on each path, recording it (when there is a record folder) before bubblewrap makes it. */
export function holdPlaceholders(paths: readonly string[], recordDir: string | undefined): void {
	for (const path of paths) {
		const entry = held.get(path);
		held.set(path, { count: (entry?.count ?? 0) + 1, recordDir: entry?.recordDir ?? recordDir });
	}
	if (paths.length && recordDir) writeRecord(recordDir);
}

/** Whether this process holds `path` now. */
export function isHeld(path: string): boolean {
	return held.has(path);
}

/** The placeholders held now, by this process or another live pi recording in `recordDir`. */
export function heldNow(recordDir: string | undefined): Set<string> {
	return new Set([...held.keys(), ...(recordDir ? liveRecords(recordDir).flatMap((record) => record.paths) : [])]);
}

/** Lets go of each path; the ones no command holds any more (here or in another live pi) are removed if empty. */
export function releasePlaceholders(paths: readonly string[]): void {
	const dirs = new Set<string>();
	const free: string[] = [];
	for (const path of paths) {
		const entry = held.get(path);
		if (!entry) continue;
		if (entry.recordDir) dirs.add(entry.recordDir);
		if (entry.count > 1) {
			held.set(path, { ...entry, count: entry.count - 1 });
			continue;
		}
		held.delete(path);
		free.push(path);
	}
	const elsewhere = new Set([...dirs].flatMap((dir) => liveRecords(dir).flatMap((record) => record.paths)));
	for (const path of free) if (!elsewhere.has(path)) removeIfEmpty(path);
	for (const dir of dirs) writeRecord(dir);
}

/**
 * Removes the placeholders that pi processes which are gone left behind in `recordDir` (still empty ones only), and
 * their records; says which were removed.
 */
export function removeLeftoverPlaceholders(recordDir: string): string[] {
	const records = readRecords(recordDir);
	const live = records.filter((entry) => entry.record && isAlive(entry.record));
	const kept = new Set([...live.flatMap((entry) => entry.record!.paths), ...held.keys()]);
	const removed: string[] = [];
	for (const entry of records) {
		if (entry.record && isAlive(entry.record)) continue;
		for (const path of entry.record?.paths ?? []) if (!kept.has(path) && removeIfEmpty(path)) removed.push(path);
		rmSync(entry.file, { force: true });
	}
	return removed;
}

function writeRecord(recordDir: string): void {
	const paths = [...held].filter(([, entry]) => entry.recordDir === recordDir).map(([path]) => path);
	const file = join(recordDir, `${process.pid}.json`);
	try {
		if (!paths.length) {
			rmSync(file, { force: true });
			return;
		}
		mkdirSync(recordDir, { recursive: true, mode: 0o700 });
		const record: Record = { pid: process.pid, started: startTime(process.pid) ?? "", paths };
		writeFileSync(`${file}.tmp`, JSON.stringify(record), { mode: 0o600 });
		renameSync(`${file}.tmp`, file);
	} catch {
		// Unrecorded: a hard kill now leaves these to be removed by hand (they are empty folders).
	}
}

function readRecords(recordDir: string): { file: string; record?: Record }[] {
	let names: string[];
	try {
		names = readdirSync(recordDir).filter((name) => /^\d+\.json$/.test(name));
	} catch {
		return [];
	}
	return names.map((name) => {
		const file = join(recordDir, name);
		try {
			const record = JSON.parse(readFileSync(file, "utf8")) as Record;
			return Array.isArray(record.paths) && typeof record.pid === "number" ? { file, record } : { file };
		} catch {
			return { file };
		}
	});
}

/** The records of other pi processes that are still running. */
function liveRecords(recordDir: string): Record[] {
	return readRecords(recordDir)
		.map((entry) => entry.record)
		.filter((record): record is Record => !!record && record.pid !== process.pid && isAlive(record));
}

function isAlive(record: Record): boolean {
	if (record.pid === process.pid) return true;
	const started = startTime(record.pid);
	return started !== undefined && (record.started === "" || started === record.started);
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces); undefined when it is not running. */
function startTime(pid: number): string | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
	} catch {
		return undefined;
	}
}

/** Only an empty folder goes: never what someone put there meanwhile. */
function removeIfEmpty(path: string): boolean {
	try {
		rmdirSync(path);
		return true;
	} catch {
		return false;
	}
}
