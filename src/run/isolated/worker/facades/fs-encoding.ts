// What crosses the broker for the fs facade: arguments made cloneable, results decoded back into Buffers, Stats and
// Dirents with their methods, and a write stream whose chunks the broker appends.
import { Writable } from "node:stream";
import type { EncodedDirents, EncodedStats } from "../../fs-ops.ts";
import type { Brokered } from "../worker-broker.ts";

export function isFileHandle(value: unknown): value is { fd: number } {
	return (
		typeof value === "object" &&
		value !== null &&
		typeof (value as { fd?: unknown }).fd === "number" &&
		typeof (value as { close?: unknown }).close === "function"
	);
}

/** A write stream whose chunks are appended by the broker, in order. */
export function brokeredWriteStream(broker: Brokered, path: string, append: boolean): Writable {
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
export function cloneable(value: unknown): unknown {
	if (typeof value === "function") return undefined;
	if (value instanceof AbortSignal) return undefined;
	if (value && typeof value === "object" && !ArrayBuffer.isView(value) && !Array.isArray(value)) {
		return Object.fromEntries(
			Object.entries(value).filter(([, v]) => typeof v !== "function" && !(v instanceof AbortSignal)),
		);
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
