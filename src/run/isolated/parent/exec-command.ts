// A granted command, run in pi's process for a forged tool: in the OS sandbox where there is one, its output capped,
// its time, processes and memory bounded, its whole process group killed when the call ends, and the protected names
// it made below the top of the project removed afterwards (protected-scan.ts). On macOS (Seatbelt) the profile denies
// the protected names at any depth itself, but for `node_modules`: a folder renamed out of there can bring one along,
// so the walk runs there too. macOS has no process or memory limits.
import { type ChildProcess, spawn } from "node:child_process";
import type { Writable } from "node:stream";
import type { ExecRequest, ExecResult } from "../protocol.ts";
import { anchoredFsAvailable } from "./anchors.ts";
import { type CommandLimits, defaultCommandLimits, limited, watchProcesses } from "./command-limits.ts";
import { commandSandbox } from "./command-sandbox.ts";
import { boundsTmpfs, limitSupport, type SandboxSpec, type SandboxStatus, sandboxed } from "./os-sandbox.ts";
import { isInside } from "./paths.ts";
import { heldNow } from "./placeholders.ts";
import { approvedFiles } from "./program-content.ts";
import { MAX_ENTRIES, type ProtectedScan, protectedNamesAt, removeNew, scanProtected } from "./protected-scan.ts";

/** A command as the broker hands it over: `programDigest`, the content of the program that was approved. */
export type ApprovedExec = ExecRequest & { programDigest?: string };

const MAX_EXEC_OUTPUT = 10 * 1024 * 1024;

export interface CommandSetting {
	/** Real paths: what a command may write (the project and the temp dir)… */
	writable: string[];
	/** …except these (the protected locations, existing or not), bound read-only or held by an empty folder. */
	readOnly: string[];
	/** Files no tool may read (the toolbox's health file and audit log): not there for the command. */
	unreadable?: readonly string[];
	/** Whether the command keeps the network (in the OS sandbox; without one it always has it). */
	network: boolean;
	sandbox: SandboxStatus;
	/** The folder a command runs in when it names none (the project). */
	cwd: string;
	/** The environment commands start from (the safe variables). */
	env: Record<string, string>;
	/** The call's commands: this one joins them while it runs, and is killed with them. */
	children: Set<ChildProcess>;
	/** Processes and memory (in the OS sandbox); defaultCommandLimits() when not given. */
	limits?: CommandLimits;
	/** A folder no tool can write where pi records the placeholders it holds (see placeholders.ts). */
	recordDir?: string;
	/** The most entries the walk for protected names looks at (MAX_ENTRIES when not given). */
	scanEntries?: number;
}

/**
 * A granted command, in the OS sandbox where there is one: the project and the temp dir writable except the protected
 * locations in them (read-only binds: the kernel refuses those writes), the network only if the policy lets tools have
 * it. A shell command line is run by /bin/sh inside the sandbox.
 */
export async function runCommand(request: ApprovedExec, setting: CommandSetting, tries = 1): Promise<ExecResult> {
	const maxBuffer = Math.min(request.maxBuffer ?? MAX_EXEC_OUTPUT, MAX_EXEC_OUTPUT);
	const { sandbox } = setting;
	// The program (or the files a shell line names) as approved: their content now must be what was hashed, and in the
	// sandbox exactly those bytes are bound read-only over their paths, so a rewrite after this check runs nothing.
	const cwd = request.cwd ?? setting.cwd;
	const approved = request.programDigest
		? await approvedFiles({ ...request, cwd }, request.programDigest, setting.writable)
		: [];
	if (!approved) return { stdout: "", stderr: "", status: null, signal: null, error: changedProgram(request.file) };
	const pinned = sandbox.kind === "bubblewrap" ? approved.filter((file) => file.bytes.length > 0) : [];
	// Protected names below the top of the project: those there now are bound read-only (under Seatbelt, denied with the
	// folders above them, so none is moved along with its folder), those the command makes go.
	const scanRoots = sandbox.kind !== "none" ? setting.writable.filter((root) => root !== setting.env.TMPDIR) : [];
	const names = protectedNamesAt(setting.cwd, setting.readOnly);
	const entries = setting.scanEntries ?? MAX_ENTRIES;
	const before = scanRoots.length ? await scanProtected(scanRoots, names, entries) : undefined;
	const view =
		sandbox.kind !== "none"
			? commandSandbox({
					writable: setting.writable,
					readOnly: setting.readOnly,
					unreadable: setting.unreadable ?? [],
					network: setting.network,
					path: request.env?.PATH ?? setting.env.PATH,
					cwd,
					...(request.shell ? {} : { program: request.file }),
					nested: before ? [...before.paths] : [],
					// Seatbelt makes no placeholder on disk: nothing to record for a start after a hard kill to remove.
					...(setting.recordDir && sandbox.kind === "bubblewrap" ? { recordDir: setting.recordDir } : {}),
					nullSockets: sandbox.kind === "bubblewrap",
				})
			: undefined;
	const shellLine = [request.file, ...request.args].join(" ");
	const limits = setting.limits ?? defaultCommandLimits();
	const support = limitSupport(sandbox);
	const inner = limited(
		support,
		limits,
		request.shell ? "/bin/sh" : request.file,
		request.shell ? ["-c", shellLine] : request.args,
	);
	const { command, args } = view
		? sandboxed(
				sandbox,
				{
					...view.spec,
					...(sandbox.kind === "seatbelt" ? seatbeltDenies(view.spec, setting, approved, names) : {}),
					pinned: pinned.map((file, i) => ({ path: file.path, fd: FIRST_PINNED_FD + i })),
					// What a command writes into a hidden folder's empty one is memory, bounded like its own.
					...(boundsTmpfs(sandbox) ? { hiddenMb: Math.max(16, Math.floor(limits.dataMb / 4)) } : {}),
				},
				inner.command,
				inner.args,
			)
		: { command: request.file, args: request.args };
	return new Promise((resolve) => {
		const child = spawn(command, args, {
			cwd,
			env: { ...setting.env, ...request.env },
			shell: sandbox.kind === "none" ? request.shell : false,
			detached: true,
			stdio: ["pipe", "pipe", "pipe", ...pinned.map(() => "pipe" as const)],
		});
		pinned.forEach((file, i) => {
			const bytes = child.stdio[FIRST_PINNED_FD + i] as Writable;
			bytes.on("error", () => undefined);
			bytes.end(file.bytes);
		});
		setting.children.add(child);
		const unwatch =
			view && support.watch && child.pid
				? watchProcesses(child.pid, limits.processes, () => {
						error ??= tooManyProcesses(limits.processes);
						killGroup(child);
					})
				: () => undefined;
		let stdout = "";
		let stderr = "";
		let error: string | undefined;
		const collect = (append: (text: string) => void) => (chunk: Buffer) => {
			if (stdout.length + stderr.length + chunk.length > maxBuffer) {
				error ??= `output exceeded ${maxBuffer} bytes; the command was stopped`;
				killGroup(child);
				return;
			}
			append(chunk.toString());
		};
		child.stdout!.on(
			"data",
			collect((text) => (stdout += text)),
		);
		child.stderr!.on(
			"data",
			collect((text) => (stderr += text)),
		);
		// A command that exits without reading its input closes the pipe: EPIPE is no error of the tool's (and an
		// unheard stream error would be an uncaught exception in pi's process).
		child.stdin!.on("error", () => undefined);
		child.stdin!.end(request.input ?? "");
		const timer = request.timeoutMs
			? setTimeout(() => {
					error ??= `timed out after ${request.timeoutMs} ms`;
					killGroup(child);
				}, request.timeoutMs)
			: undefined;
		child.on("error", (spawnError) => {
			error ??= spawnError.message;
		});
		child.on("close", async (status, signal) => {
			clearTimeout(timer);
			unwatch();
			const made: { removed: string[]; left: string[]; note?: string } = before
				? await madeBelow(before, scanRoots, names, entries, setting.recordDir).catch(() => ({
						removed: [],
						left: [],
						note: UNCHECKED,
					}))
				: { removed: [], left: [] };
			const undone = [...((await view?.release()) ?? []), ...made.removed];
			if (undone.length || made.left.length) error ??= madeProtected(undone, made.left);
			// Said, not failed: the command did nothing wrong that is known.
			if (made.note) stderr += `${stderr && !stderr.endsWith("\n") ? "\n" : ""}agent-forge: ${made.note}\n`;
			setting.children.delete(child);
			// A socket gone between the look for sockets and bubblewrap's start: nothing ran; again, without it.
			if (tries < MAX_TRIES && status === 1 && view && socketGone(stderr, view.spec.nulled ?? []))
				return resolve(runCommand(request, setting, tries + 1));
			resolve({ stdout, stderr, status, signal, ...(error ? { error } : {}) });
		});
	});
}

/**
 * What a Seatbelt profile denies beyond the view: every protected path in the writable folders, there or not (it makes
 * no placeholder, and one whose folder is absent too is denied as well), the approved files (SBPL cannot put the
 * approved bytes at a path: they are made unwritable for the command), and the protected names at any depth.
 */
function seatbeltDenies(
	spec: SandboxSpec,
	setting: CommandSetting,
	approved: { path: string }[],
	names: NonNullable<SandboxSpec["protectedNames"]>,
): Pick<SandboxSpec, "readOnly" | "protectedNames" | "namesIn"> {
	const inWritable = setting.readOnly.filter((path) => setting.writable.some((root) => isInside(path, root)));
	const readOnly = [...new Set([...spec.readOnly, ...inWritable, ...approved.map((file) => file.path)])];
	// As bubblewrap's walk: not in the tool's own temp dir, where no one runs or obeys what a command makes.
	const namesIn = setting.writable.filter((root) => root !== setting.env.TMPDIR);
	return { readOnly, protectedNames: names, namesIn };
}

/**
 * The protected names the command made below the top of the project, removed; when the project was too big to walk
 * whole before, nothing is removed (a name past the walk's end could be one that was there) and the note says so.
 */
async function madeBelow(
	before: ProtectedScan,
	roots: string[],
	names: Parameters<typeof scanProtected>[1],
	entries: number,
	recordDir: string | undefined,
): Promise<{ removed: string[]; left: string[]; note?: string }> {
	if (!before.complete) return { removed: [], left: [], note: TOO_BIG };
	const after = await scanProtected(roots, names, entries);
	if (!after.complete) return { removed: [], left: [], note: TOO_BIG };
	// The placeholders of commands still running (this one's are released after this) are not what a command made.
	const kept = heldNow(recordDir);
	// Without anchored removal (macOS) pi cannot remove through the folders as walked: what was made is named, not removed.
	if (!anchoredFsAvailable)
		return {
			removed: [],
			left: [...after.paths].filter((path) => !before.paths.has(path) && !kept.has(path)).sort(),
		};
	return removeNew(before, after, kept);
}

const TOO_BIG =
	"the project has too many files to check all of them for protected names the command made (.git, AGENTS.md below its top); none were removed.";

const UNCHECKED =
	"the project could not be checked for protected names the command made (.git, AGENTS.md below its top).";

const tooManyProcesses = (limit: number) =>
	`the command had more than ${limit} processes and threads at once (a granted command's limit); it was stopped.`;

/** How many times a command is started when a socket to null goes each time before bubblewrap's start. */
const MAX_TRIES = 3;

/** Whether bubblewrap failed before running anything because one of the sockets to null was not there any more. */
function socketGone(stderr: string, nulled: readonly string[]): boolean {
	if (stderr.trimEnd().includes("\n")) return false;
	return nulled.some(
		(socket) =>
			stderr.startsWith(`bwrap: Can't create file at ${socket}: `) ||
			stderr.startsWith(`bwrap: Can't bind mount /oldroot/dev/null on /newroot${socket}: `),
	);
}

/** The first descriptor bubblewrap reads an approved file's bytes from (one per file). */
const FIRST_PINNED_FD = 3;

const changedProgram = (file: string) =>
	`${file} changed after it was approved (its content is not what was granted); it was not run. Run it again to be asked about what it holds now.`;

const NOT_REMOVED = anchoredFsAvailable
	? "a folder on its way was swapped for a link meanwhile"
	: "on this OS pi cannot make sure no folder on its way was swapped for a link";

const madeProtected = (paths: string[], left: string[] = []) =>
	[
		paths.length
			? `the command made ${paths.join(", ")}, which no forged tool may write (pi, git or another agent runs or obeys it); removed.`
			: "",
		left.length
			? `the command made ${left.join(", ")}, which no forged tool may write; not removed, because ${NOT_REMOVED} (remove it by hand).`
			: "",
	]
		.filter(Boolean)
		.join(" ");

/** SIGKILL to a command's whole process group (what it started goes with it). */
export function killGroup(child: ChildProcess): void {
	if (!child.pid || child.exitCode !== null) return;
	try {
		process.kill(-child.pid, "SIGKILL");
	} catch {
		child.kill("SIGKILL");
	}
}
