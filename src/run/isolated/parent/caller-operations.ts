// What a tool called through `pi.useTool` does with files and commands, done as the calling tool: every operation
// is the brokered request the caller's own fs and child_process would make, so the gate, the grants, the protected
// locations, the prompts and the audit apply to it exactly as to the caller's own access.
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import type { CallerOperations } from "../../../contract/tool-calls.ts";
import type { EncodedDirents, EncodedStats } from "../fs-ops.ts";
import type { BrokerReply, BrokerRequest, ExecResult } from "../protocol.ts";

export interface CallerBroker {
	/** Does a request for the calling tool (decided, then done). */
	request(request: BrokerRequest): Promise<BrokerReply>;
	/** Decides whether the calling tool may write `path`, doing nothing. */
	mayWrite(path: string): Promise<BrokerReply>;
	/** Whether `path` is one of the files no tool may read. */
	unreadable(path: string): boolean;
}

/** The caller's operations over its broker. A refusal throws an Error named PermissionError, with the refusal's code. */
export function createCallerOperations(broker: CallerBroker): CallerOperations {
	const fs = async (action: string, ...args: unknown[]) => unwrap(await broker.request({ kind: "fs", action, args }));
	const stat = async (path: string) => {
		const type = String(((await fs("stat", path)) as EncodedStats).__stats.type);
		return { isDirectory: () => type === "directory" };
	};
	const exists = async (path: string) => {
		try {
			await fs("access", path);
			return true;
		} catch (error) {
			const code = (error as { code?: unknown }).code;
			if (code === "ENOENT" || code === "ENOTDIR") return false;
			throw error;
		}
	};
	return {
		hidden: (path) => broker.unreadable(path),
		readFile: async (path) => Buffer.from((await fs("readFile", path)) as Uint8Array),
		readText: async (path) => String(await fs("readFile", path, "utf8")),
		access: async (path, write) => {
			if (write) unwrap(await broker.mayWrite(path));
			await fs("access", path);
		},
		exists,
		stat,
		readdir: async (path) => (await fs("readdir", path)) as string[],
		list: async (path) => {
			const listed = (await fs("readdir", path, { withFileTypes: true })) as EncodedDirents | string[];
			// An empty folder comes back as a plain empty list (there was no entry to tag).
			if (Array.isArray(listed)) return [];
			return listed.__dirents.map(({ name, type }) => ({ name, folder: type === "directory" }));
		},
		searchable: async (path) => ({ isDirectory: (await stat(path)).isDirectory() }),
		writeFile: async (path, content) => {
			await fs("writeFile", path, content);
		},
		mkdir: async (path) => {
			await fs("mkdir", path, { recursive: true });
		},
		shell: async (command, cwd, options) => {
			if (options.signal?.aborted) throw new Error("aborted");
			const result = unwrap(
				await broker.request({
					kind: "exec",
					file: command,
					args: [],
					shell: true,
					cwd,
					...(options.timeout ? { timeoutMs: options.timeout * 1000 } : {}),
				}),
			) as ExecResult;
			if (result.stdout) options.onData(Buffer.from(result.stdout));
			if (result.stderr) options.onData(Buffer.from(result.stderr));
			// As pi's own bash operations end: "timeout:<seconds>" for a command past its time, the error for one that failed to run.
			if (result.error?.startsWith("timed out after")) throw new Error(`timeout:${options.timeout}`);
			if (result.error && result.status === null) throw new Error(result.error);
			return { exitCode: result.status };
		},
	};
}

function unwrap(reply: BrokerReply): unknown {
	if (reply.ok) return reply.value;
	throw refusal(reply.error);
}

function refusal(error: ForgeErrorData): Error {
	return Object.assign(new Error(error.message), {
		name: error.phase === "permission" ? "PermissionError" : "Error",
		...(error.code === undefined ? {} : { code: error.code }),
	});
}
