// The `fs` and `fs/promises` a forged tool gets in the isolated runner: reads inside the project and temp dir go
// straight to Node (the process's permission grants are the floor); writes, and reads that leave those roots
// (through a path or a symlink), are brokered by pi's process, which applies the capability policy.
import * as realFs from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Writable } from "node:stream";
import type { BrokerClient } from "../worker-broker.ts";
import { type Access, type EncodedDirents, type EncodedStats, FS_OPS, REFUSED_FS_OPS } from "../fs-ops.ts";

type AnyFn = (...args: any[]) => any;

export interface FsFacade {
	fs: Record<string, unknown>;
	promises: Record<string, unknown>;
}

export function createFsFacade(broker: BrokerClient, roots: string[], cwd: string): FsFacade {
	const toPath = (value: unknown): unknown => {
		if (typeof value === "string") return resolve(cwd, value);
		if (value instanceof URL) return fileURLToPath(value);
		if (Buffer.isBuffer(value)) return resolve(cwd, value.toString());
		return value;
	};
	const inRoots = (path: string) => roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
	/** A read stays local when its real target is inside the roots (a symlink pointing out makes it brokered). */
	const isLocal = (path: unknown): boolean => {
		if (typeof path !== "string") return true;
		try {
			return inRoots(realFs.realpathSync.native(path));
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			return code === "ENOENT" || code === "ENOTDIR" ? inRoots(path) : false;
		}
	};
	const denied = (error: unknown) => (error as NodeJS.ErrnoException)?.code === "ERR_ACCESS_DENIED";

	const prepare = (paths: Array<[number, Access]>, args: unknown[]) => {
		const copy = [...args];
		for (const [index] of paths) if (index < copy.length) copy[index] = toPath(copy[index]);
		return copy.map(cloneable);
	};
	const local = (paths: Array<[number, Access]>, args: unknown[]) => paths.every(([index, access]) => access === "read" && isLocal(args[index]));

	const fs: Record<string, unknown> = { ...realFs };
	const promises: Record<string, unknown> = { ...realFs.promises };

	for (const [name, op] of Object.entries(FS_OPS)) {
		const realSync = (realFs as unknown as Record<string, AnyFn | undefined>)[`${name}Sync`];
		const realAsync = (realFs.promises as unknown as Record<string, AnyFn>)[name];

		const runSync = (...args: unknown[]) => {
			const prepared = prepare(op.paths, args);
			if (local(op.paths, prepared)) {
				try {
					return realSync!(...prepared);
				} catch (error) {
					if (!denied(error)) throw error;
				}
			}
			return decode(broker.sync({ kind: "fs", action: name, args: prepared }));
		};
		const runAsync = async (...args: unknown[]) => {
			const prepared = prepare(op.paths, args);
			if (local(op.paths, prepared)) {
				try {
					return await realAsync(...prepared);
				} catch (error) {
					if (!denied(error)) throw error;
				}
			}
			return decode(await broker.async({ kind: "fs", action: name, args: prepared }));
		};

		if (realSync) fs[`${name}Sync`] = runSync;
		promises[name] = runAsync;
		fs[name] = (...args: unknown[]) => {
			const callback = typeof args[args.length - 1] === "function" ? (args.pop() as AnyFn) : undefined;
			runAsync(...args).then((value) => callback?.(null, value), (error) => callback?.(error));
		};
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
		(promises.access as AnyFn)(path).then(() => callback(true), () => callback(false));
	};

	const refuse = (name: string) => () => {
		throw Object.assign(new Error(`fs.${name} is not available to forged tools.`), { code: "ERR_FORGE_UNSUPPORTED" });
	};
	for (const name of REFUSED_FS_OPS) {
		fs[name] = refuse(name);
		fs[`${name}Sync`] = refuse(`${name}Sync`);
		promises[name] = async () => refuse(name)();
	}

	const readOnlyFlags = (flags: unknown) => flags === undefined || flags === "r" || flags === realFs.constants.O_RDONLY;
	const openGuard = (realOpen: AnyFn, name: string) => (path: unknown, flags?: unknown, ...rest: unknown[]) => {
		if (!readOnlyFlags(flags)) {
			throw Object.assign(new Error(`fs.${name} for writing is not available to forged tools: use fs.writeFile or fs.appendFile.`), { code: "ERR_FORGE_UNSUPPORTED" });
		}
		const target = toPath(path);
		if (!isLocal(target)) {
			throw Object.assign(new Error(`fs.${name} outside the project is not available: use fs.readFile, which can ask for access.`), { code: "ERR_FORGE_UNSUPPORTED" });
		}
		return realOpen(target, flags, ...rest);
	};
	fs.openSync = openGuard(realFs.openSync, "openSync");
	fs.open = openGuard(realFs.open as AnyFn, "open");
	promises.open = openGuard(realFs.promises.open, "promises.open");
	fs.createReadStream = (path: unknown, options?: unknown) => {
		const target = toPath(path);
		if (!isLocal(target)) {
			throw Object.assign(new Error("fs.createReadStream outside the project is not available: use fs.readFile, which can ask for access."), { code: "ERR_FORGE_UNSUPPORTED" });
		}
		return realFs.createReadStream(target as string, options as never);
	};
	fs.createWriteStream = (path: unknown, options?: { flags?: string }) => brokeredWriteStream(broker, toPath(path) as string, options?.flags?.startsWith("a") ?? false);

	fs.promises = promises;
	return { fs, promises };
}

/** A write stream whose chunks are appended by the broker, in order. */
function brokeredWriteStream(broker: BrokerClient, path: string, append: boolean): Writable {
	let first = !append;
	return new Writable({
		write(chunk: Buffer, _encoding, done) {
			const action = first ? "writeFile" : "appendFile";
			first = false;
			broker.async({ kind: "fs", action, args: [path, new Uint8Array(chunk)] }).then(() => done(), done);
		},
		final(done) {
			if (!first) return done();
			broker.async({ kind: "fs", action: "writeFile", args: [path, ""] }).then(() => done(), done);
		},
	});
}

/** Options may carry things that cannot cross a thread boundary (an AbortSignal, a function): drop them. */
function cloneable(value: unknown): unknown {
	if (typeof value === "function") return undefined;
	if (value instanceof AbortSignal) return undefined;
	if (value && typeof value === "object" && !ArrayBuffer.isView(value) && !Array.isArray(value)) {
		return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v !== "function" && !(v instanceof AbortSignal)));
	}
	return value;
}

/** Back from the broker: Uint8Array → Buffer, tagged stats and directory entries → objects with their methods. */
export function decode(value: unknown): unknown {
	if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
	if (value && typeof value === "object" && "__stats" in value) {
		const { type, ...fields } = (value as EncodedStats).__stats;
		return { ...fields, ...typeMethods(String(type)) };
	}
	if (value && typeof value === "object" && "__dirents" in value) {
		return (value as EncodedDirents).__dirents.map(({ name, type }) => ({ name, ...typeMethods(type) }));
	}
	return value;
}

function typeMethods(type: string) {
	return {
		isFile: () => type === "file",
		isDirectory: () => type === "directory",
		isSymbolicLink: () => type === "symlink",
		isFIFO: () => false,
		isSocket: () => false,
		isBlockDevice: () => false,
		isCharacterDevice: () => false,
	};
}
