// The `fs` and `fs/promises` a forged tool gets in the isolated runner: reads inside the project and temp dir go
// straight to Node (the process's permission grants are the floor); writes, and reads that leave those roots
// (through a path or a symlink), are brokered by pi's process, which applies the capability policy.
import * as realFs from "node:fs";
import { type Access, FS_OPS, REFUSED_FS_OPS } from "../../fs-ops.ts";
import type { Brokered } from "../worker-broker.ts";
import { brokeredWriteStream, cloneable, decode, isFileHandle } from "./fs-encoding.ts";
import { createPathGuard } from "./fs-paths.ts";

// biome-ignore lint/suspicious/noExplicitAny: the facades wrap Node functions of every signature
type AnyFn = (...args: any[]) => any;

export interface FsFacade {
	fs: Record<string, unknown>;
	promises: Record<string, unknown>;
}

/** Members of `fs` that reach no file by themselves: handed over as they are. */
const PLAIN_MEMBERS = ["constants", "F_OK", "R_OK", "W_OK", "X_OK", "Stats", "Dirent", "Dir"];
/** Read-only functions that take a path and are not brokered: they run locally, inside the roots only. */
const LOCAL_READS = ["opendir", "statfs", "watch", "watchFile", "unwatchFile", "openAsBlob"];
/** Functions on a file descriptor that only read: allowed on descriptors the tool opened through this facade. */
const FD_READS = ["read", "readv", "fstat", "close", "fsync", "fdatasync"];
/** Functions that write through a descriptor: never (a descriptor may be the runner's own channel to pi). */
const FD_WRITES = ["write", "writev", "ftruncate", "fchmod", "fchown", "futimes"];

/**
 * Deny by default: every member of the real `fs` that is not listed here is refused, so a function Node adds later
 * (or one overlooked here) cannot reach past the policy. Descriptors are the runner host's too (its channel to pi's
 * process among them): a tool may use only those it opened itself.
 */
export function createFsFacade(broker: Brokered, roots: string[], cwd: string, unreadable: string[] = []): FsFacade {
	const { toPath, isLocal } = createPathGuard(roots, cwd, unreadable);
	const denied = (error: unknown) => (error as NodeJS.ErrnoException)?.code === "ERR_ACCESS_DENIED";
	const unsupported = (message: string) => Object.assign(new Error(message), { code: "ERR_FORGE_UNSUPPORTED" });
	const refuse = (name: string, why = "is not available to forged tools.") =>
		function refused() {
			throw unsupported(`fs.${name} ${why}`);
		};

	const ownFds = new Set<number>();
	const descriptor = (value: unknown): number | undefined =>
		typeof value === "number" ? value : isFileHandle(value) ? value.fd : undefined;
	const checkDescriptor = (name: string, value: unknown, access: Access) => {
		const fd = descriptor(value);
		if (fd === undefined) return;
		if (access === "write")
			throw unsupported(
				`fs.${name} on a file descriptor is not available to forged tools: name the file by its path.`,
			);
		if (!ownFds.has(fd))
			throw unsupported(
				`fs.${name} works only on a file descriptor the tool opened itself (fs.open / fs.openSync).`,
			);
	};

	const prepare = (name: string, paths: Array<[number, Access]>, args: unknown[]) => {
		const copy = [...args];
		for (const [index, access] of paths) {
			if (index >= copy.length) continue;
			checkDescriptor(name, copy[index], access);
			copy[index] = toPath(copy[index]);
		}
		return copy;
	};
	const local = (paths: Array<[number, Access]>, args: unknown[]) => {
		for (let i = 0; i < paths.length; i++) {
			const [index, access] = paths[i];
			if (access !== "read" || !isLocal(args[index])) return false;
		}
		return true;
	};

	const fs: Record<string, unknown> = {};
	const promises: Record<string, unknown> = { constants: realFs.promises.constants };
	for (const name of PLAIN_MEMBERS) fs[name] = (realFs as unknown as Record<string, unknown>)[name];

	for (const [name, op] of Object.entries(FS_OPS)) {
		const realSync = (realFs as unknown as Record<string, AnyFn | undefined>)[`${name}Sync`];
		const realAsync = (realFs.promises as unknown as Record<string, AnyFn>)[name];

		const runSync = (...args: unknown[]) => {
			const prepared = prepare(`${name}Sync`, op.paths, args);
			if (local(op.paths, prepared)) {
				try {
					return realSync!(...prepared);
				} catch (error) {
					if (!denied(error)) throw error;
				}
			}
			return decode(broker.sync({ kind: "fs", action: name, args: prepared.map(cloneable) }));
		};
		const runAsync = async (...args: unknown[]) => {
			const prepared = prepare(name, op.paths, args);
			if (local(op.paths, prepared)) {
				try {
					return await realAsync(...prepared);
				} catch (error) {
					if (!denied(error)) throw error;
				}
			}
			return decode(await broker.async({ kind: "fs", action: name, args: prepared.map(cloneable) }));
		};
		const runCallback = (...args: unknown[]) => {
			const callback = typeof args[args.length - 1] === "function" ? (args.pop() as AnyFn) : undefined;
			runAsync(...args).then(
				(value) => callback?.(null, value),
				(error) => callback?.(error),
			);
		};

		if (realSync) fs[`${name}Sync`] = runSync;
		promises[name] = runAsync;
		fs[name] = runCallback;
		if (name === "realpath") {
			Object.assign(runSync, { native: runSync });
			Object.assign(runCallback, { native: runCallback });
		}
	}

	fs.existsSync = (path: unknown) => {
		try {
			(fs.accessSync as AnyFn)(path);
			return true;
		} catch {
			return false;
		}
	};
	fs.exists = (path: unknown, callback: (exists: boolean) => void) => {
		(promises.access as AnyFn)(path).then(
			() => callback(true),
			() => callback(false),
		);
	};

	for (const name of REFUSED_FS_OPS) {
		fs[name] = refuse(name);
		fs[`${name}Sync`] = refuse(`${name}Sync`);
		promises[name] = async () => refuse(name)();
	}

	// Opening: read-only, inside the roots; the descriptor is remembered as the tool's own.
	const readOnlyFlags = (flags: unknown) =>
		flags === undefined || flags === "r" || flags === realFs.constants.O_RDONLY;
	const openTarget = (name: string, path: unknown, flags: unknown) => {
		if (!readOnlyFlags(flags))
			throw unsupported(
				`fs.${name} for writing is not available to forged tools: use fs.writeFile or fs.appendFile.`,
			);
		if (descriptor(path) !== undefined) throw unsupported(`fs.${name} needs a path.`);
		const target = toPath(path);
		if (!isLocal(target))
			throw unsupported(
				`fs.${name} outside the project is not available: use fs.readFile, which can ask for access.`,
			);
		return target;
	};
	fs.openSync = (path: unknown, flags?: unknown, ...rest: unknown[]) => {
		const fd = realFs.openSync(openTarget("openSync", path, flags) as string, flags as "r", ...(rest as []));
		ownFds.add(fd);
		return fd;
	};
	fs.open = (path: unknown, ...rest: unknown[]) => {
		const callback = typeof rest[rest.length - 1] === "function" ? (rest.pop() as AnyFn) : undefined;
		const target = openTarget("open", path, rest[0]);
		(realFs.open as AnyFn)(target, ...rest, (error: Error | null, fd: number) => {
			if (!error) ownFds.add(fd);
			callback?.(error, fd);
		});
	};
	promises.open = async (path: unknown, flags?: unknown, ...rest: unknown[]) => {
		const handle = await realFs.promises.open(
			openTarget("promises.open", path, flags) as string,
			flags as undefined,
			...(rest as []),
		);
		ownFds.add(handle.fd);
		return handle;
	};

	for (const name of FD_READS) {
		const realSync = (realFs as unknown as Record<string, AnyFn>)[`${name}Sync`];
		const realCallback = (realFs as unknown as Record<string, AnyFn>)[name];
		const closes = name === "close";
		fs[`${name}Sync`] = (fd: unknown, ...rest: unknown[]) => {
			checkDescriptor(`${name}Sync`, fd, "read");
			const value = realSync(fd, ...rest);
			if (closes) ownFds.delete(fd as number);
			return value;
		};
		fs[name] = (fd: unknown, ...rest: unknown[]) => {
			checkDescriptor(name, fd, "read");
			if (closes) ownFds.delete(fd as number);
			return realCallback(fd, ...rest);
		};
	}
	for (const name of FD_WRITES) {
		const why = "is not available to forged tools: write files with fs.writeFile or fs.appendFile.";
		fs[name] = refuse(name, why);
		fs[`${name}Sync`] = refuse(`${name}Sync`, why);
	}

	const outside =
		"outside the project is not available: use fs.readFile, fs.readdir or fs.stat, which can ask for access.";
	for (const name of LOCAL_READS) {
		for (const [target, real, label] of [
			[fs, (realFs as unknown as Record<string, AnyFn | undefined>)[name], name],
			[fs, (realFs as unknown as Record<string, AnyFn | undefined>)[`${name}Sync`], `${name}Sync`],
			[promises, (realFs.promises as unknown as Record<string, AnyFn | undefined>)[name], `promises.${name}`],
		] as const) {
			if (!real) continue;
			target[label.replace(/^promises\./, "")] = (path: unknown, ...rest: unknown[]) => {
				if (descriptor(path) !== undefined) throw unsupported(`fs.${label} needs a path.`);
				const resolved = toPath(path);
				if (!isLocal(resolved)) throw unsupported(`fs.${label} ${outside}`);
				return real(resolved, ...rest);
			};
		}
	}

	fs.createReadStream = (path: unknown, options?: unknown) => {
		const fd = options && typeof options === "object" ? (options as { fd?: unknown }).fd : undefined;
		if (fd !== undefined && fd !== null) {
			checkDescriptor("createReadStream", fd, "read");
			return realFs.createReadStream(path as string, options as never);
		}
		const target = toPath(path);
		if (!isLocal(target)) throw unsupported(`fs.createReadStream ${outside}`);
		return realFs.createReadStream(target as string, options as never);
	};
	fs.createWriteStream = (path: unknown, options?: { flags?: string; fd?: unknown }) => {
		if (options?.fd !== undefined || descriptor(path) !== undefined)
			throw unsupported(
				"fs.createWriteStream on a file descriptor is not available to forged tools: name the file by its path.",
			);
		return brokeredWriteStream(broker, toPath(path) as string, options?.flags?.startsWith("a") ?? false);
	};

	// Whatever is left (the stream classes, and anything a later Node adds) is refused.
	for (const [name, value] of Object.entries(realFs)) {
		if (!(name in fs) && name !== "promises") fs[name] = typeof value === "function" ? refuse(name) : value;
	}
	for (const [name, value] of Object.entries(realFs.promises)) {
		if (!(name in promises)) promises[name] = typeof value === "function" ? refuse(`promises.${name}`) : value;
	}

	fs.promises = promises;
	return { fs, promises };
}
