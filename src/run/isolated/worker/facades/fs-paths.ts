// Where a path a forged tool names really is, for the fs facade: one string made of whatever the tool passed (what is
// checked is what Node is given), whether its real target is inside the roots the worker reads itself, and the
// forge's own files no tool may read by any path or link.
import * as realFs from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

// The built-ins the checks below use, saved when this module loads (before any tool code runs): a tool that rewrites
// String.prototype.startsWith, Array.prototype.some, Buffer or URL cannot change what counts as inside the project.
const stringStartsWith = Function.prototype.call.bind(String.prototype.startsWith) as (
	text: string,
	prefix: string,
) => boolean;
const stringEndsWith = Function.prototype.call.bind(String.prototype.endsWith) as (
	text: string,
	suffix: string,
) => boolean;
const isView = ArrayBuffer.isView;
const bufferFrom = Buffer.from.bind(Buffer) as (buffer: ArrayBufferLike, offset: number, length: number) => Buffer;
const SavedURL = URL;

export function createPathGuard(roots: string[], cwd: string, unreadable: string[]) {
	/**
	 * Every path a tool names becomes one string before anything is checked: that string is what is checked and what
	 * Node is given (a Uint8Array, a URL-like object or a getter could otherwise say one thing to the check and another
	 * to Node).
	 */
	const toPath = (value: unknown): string => {
		if (typeof value === "string") return resolve(cwd, value);
		if (value instanceof SavedURL) return fileURLToPath(value.href);
		if (isView(value)) return resolve(cwd, bufferFrom(value.buffer, value.byteOffset, value.byteLength).toString());
		if (typeof value === "object" && value !== null && "href" in value) {
			const href = String((value as { href: unknown }).href);
			if (stringStartsWith(href, "file:")) return fileURLToPath(href);
		}
		throw Object.assign(new TypeError("A path must be a string, a Buffer, a Uint8Array or a file: URL."), {
			code: "ERR_INVALID_ARG_TYPE",
		});
	};
	const inRoots = (path: string) => {
		for (let i = 0; i < roots.length; i++) {
			const root = roots[i];
			if (path === root || stringStartsWith(path, stringEndsWith(root, "/") ? root : `${root}/`)) return true;
		}
		return false;
	};
	/**
	 * The forge's own files (its health file, its audit log) are no tool's to read, by any path or link; nor their
	 * siblings named after them (the audit log's older part, a health file being written).
	 */
	const checkReadable = (real: string) => {
		for (let i = 0; i < unreadable.length; i++) {
			if (unreadable[i] === real || stringStartsWith(real, `${unreadable[i]}.`))
				throw Object.assign(
					new Error(`EACCES: ${real} is one of Agent Forge's own files, which forged tools may not read`),
					{ code: "EACCES", path: real },
				);
		}
	};
	/** A read stays local when its real target is inside the roots (a symlink pointing out makes it brokered). */
	const isLocal = (path: unknown): boolean => {
		if (typeof path !== "string") return false;
		let real: string;
		try {
			real = realFs.realpathSync.native(path);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			return code === "ENOENT" || code === "ENOTDIR" ? inRoots(path) : false;
		}
		checkReadable(real);
		return inRoots(real);
	};
	return { toPath, isLocal };
}
