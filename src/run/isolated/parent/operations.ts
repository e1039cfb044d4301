// The effects the broker has on the machine, behind one interface: file operations, commands, HTTP requests, and
// the two looks at the disk its checks need. `nodeOperations` does them with Node; a test may pass its own.
import { lookup } from "node:dns/promises";
import * as fsPromises from "node:fs/promises";
import type { EncodedDirents, EncodedStats } from "../fs-ops.ts";
import type { ExecRequest, ExecResult, FsRequest, NetRequest, NetResult } from "../protocol.ts";
import { anchoredFs } from "./anchored-fs.ts";
import { anchoredFsAvailable } from "./anchors.ts";
import { type CommandSetting, runCommand } from "./exec-command.ts";
import { makeRequest } from "./net-request.ts";
import type { Resolve } from "./net-target.ts";

export interface BrokerOperations {
	/** Runs an `fs/promises` function on paths already checked; what it returns comes back encoded for the wire. */
	fs(request: FsRequest, unreadable: readonly string[]): Promise<unknown>;
	exec(request: ExecRequest, setting: CommandSetting): Promise<ExecResult>;
	/**
	 * An HTTP request to the checked addresses of its host (net-request.ts); the request ends when `alive` turns false.
	 * `tool`, the tool it is made for, which has its share of the requests pi's process runs at once.
	 */
	fetch(request: NetRequest, alive: () => boolean, tool?: string): Promise<NetResult>;
	/** The real path of an existing path (throws as fs.realpath does). */
	realpath(path: string): Promise<string>;
	/** Whether `path` is a folder that exists. */
	isFolder(path: string): Promise<boolean>;
}

export const nodeOperations: BrokerOperations = {
	// On Linux each operation acts on the folder that was checked, never through a link swapped in since (anchored-fs).
	fs: async (request, unreadable) =>
		encode(
			anchoredFsAvailable
				? await anchoredFs(request.action, request.args, unreadable)
				: await (fsPromises as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[request.action](
						...fsArguments(request, unreadable),
					),
		),
	exec: runCommand,
	fetch: (request, alive, tool) => makeRequest(request, alive, { resolve: systemResolve, ...(tool ? { tool } : {}) }),
	realpath: (path) => fsPromises.realpath(path),
	isFolder: (path) =>
		fsPromises.stat(path).then(
			(stats) => stats.isDirectory(),
			() => false,
		),
};

/** Every address the system's resolver has for a host name (as a connection would look it up). */
export const systemResolve: Resolve = async (hostname) =>
	(await lookup(hostname, { all: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/**
 * The arguments pi's process runs an operation with where operations cannot be anchored (no /proc: not Linux). A
 * recursive copy neither follows links (only the source folder's own path was checked, and a link inside it may point
 * anywhere) nor copies them (a copied link is a made link), and leaves out the files no tool may read.
 */
function fsArguments(request: FsRequest, unreadable: readonly string[]): unknown[] {
	if (request.action !== "cp") return request.args;
	const [source, destination, options] = request.args;
	const refuseLinks = async (path: string) => {
		if (unreadable.includes(path)) return false;
		// A file that went while the copy ran (a lock file, say) is not copied.
		const stats = await fsPromises.lstat(path).catch(() => undefined);
		if (!stats) return false;
		if (stats.isSymbolicLink())
			throw Object.assign(new Error(`fs.cp: ${path} is a link; forged tools may not copy or make links.`), {
				code: "ERR_FORGE_UNSUPPORTED",
			});
		return true;
	};
	const { filter: _ignored, ...rest } =
		options && typeof options === "object" ? (options as Record<string, unknown>) : {};
	return [source, destination, { ...rest, dereference: false, filter: refuseLinks }];
}

/** Values that do not survive structured cloning as themselves go back tagged (see the fs facade's decode). */
function encode(value: unknown): unknown {
	if (
		value &&
		typeof value === "object" &&
		typeof (value as { isFile?: unknown }).isFile === "function" &&
		"mode" in value
	) {
		const stats = value as unknown as Record<string, unknown> & {
			isFile(): boolean;
			isDirectory(): boolean;
			isSymbolicLink(): boolean;
		};
		const fields = Object.fromEntries(
			Object.entries(stats).filter(([, v]) => typeof v === "number" || typeof v === "string"),
		) as Record<string, number | string>;
		fields.type = stats.isFile()
			? "file"
			: stats.isDirectory()
				? "directory"
				: stats.isSymbolicLink()
					? "symlink"
					: "other";
		return { __stats: fields } satisfies EncodedStats;
	}
	if (Array.isArray(value) && value.length > 0 && typeof value[0]?.isDirectory === "function") {
		return {
			__dirents: value.map(
				(d: { name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }) => ({
					name: d.name,
					type: d.isFile() ? "file" : d.isDirectory() ? "directory" : d.isSymbolicLink() ? "symlink" : "other",
				}),
			),
		} satisfies EncodedDirents;
	}
	return value;
}
