// The `child_process` a forged tool gets in the isolated runner: every command is run by pi's process, after the
// capability policy allowed it (the runner host itself may not start processes). Output is returned when the command ends.
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { promisify } from "node:util";
import type { ExecRequest, ExecResult } from "../../protocol.ts";
import type { Brokered } from "../worker-broker.ts";

// biome-ignore lint/suspicious/noExplicitAny: the facades wrap Node functions of every signature
type AnyFn = (...args: any[]) => any;
interface ExecOptions {
	cwd?: string;
	input?: string;
	env?: Record<string, string>;
	timeout?: number;
	maxBuffer?: number;
	encoding?: string;
}

export function createChildProcessFacade(broker: Brokered): Record<string, unknown> {
	const request = (file: string, args: string[], shell: boolean, options: ExecOptions = {}): ExecRequest => ({
		kind: "exec",
		file,
		args: args.map(String),
		shell,
		cwd: typeof options.cwd === "string" ? options.cwd : undefined,
		input: typeof options.input === "string" ? options.input : undefined,
		env:
			options.env && typeof options.env === "object"
				? Object.fromEntries(Object.entries(options.env).map(([k, v]) => [k, String(v)]))
				: undefined,
		timeoutMs: typeof options.timeout === "number" ? options.timeout : undefined,
		maxBuffer: typeof options.maxBuffer === "number" ? options.maxBuffer : undefined,
	});
	const output = (text: string, options: ExecOptions) =>
		options.encoding && options.encoding !== "buffer" ? text : Buffer.from(text);
	const failure = (label: string, result: ExecResult) =>
		Object.assign(
			new Error(
				`Command failed: ${label}${result.error ? `\n${result.error}` : ""}${result.stderr ? `\n${result.stderr}` : ""}`,
			),
			{
				status: result.status,
				code: result.status,
				signal: result.signal,
				stdout: result.stdout,
				stderr: result.stderr,
			},
		);
	const ok = (result: ExecResult) => !result.error && result.status === 0;
	const splitArgs = (rest: unknown[]): [string[], ExecOptions, AnyFn | undefined] => {
		const callback = typeof rest[rest.length - 1] === "function" ? (rest.pop() as AnyFn) : undefined;
		const args = Array.isArray(rest[0]) ? (rest.shift() as string[]) : [];
		return [args, (rest[0] as ExecOptions) ?? {}, callback];
	};

	const execSync = (command: string, options: ExecOptions = {}) => {
		const result = broker.sync(request(command, [], true, options)) as ExecResult;
		if (!ok(result)) throw failure(command, result);
		return output(result.stdout, options);
	};
	const execFileSync = (file: string, ...rest: unknown[]) => {
		const [args, options] = splitArgs(rest);
		const result = broker.sync(request(file, args, false, options)) as ExecResult;
		if (!ok(result)) throw failure([file, ...args].join(" "), result);
		return output(result.stdout, options);
	};
	const spawnSync = (file: string, ...rest: unknown[]) => {
		const [args, options] = splitArgs(rest);
		const result = broker.sync(
			request(file, args, (options as { shell?: boolean }).shell === true, options),
		) as ExecResult;
		const stdout = output(result.stdout, options);
		const stderr = output(result.stderr, options);
		return {
			pid: 0,
			output: [null, stdout, stderr],
			stdout,
			stderr,
			status: result.status,
			signal: result.signal,
			error: result.error ? new Error(result.error) : undefined,
		};
	};

	const runAsync = (label: string, req: ExecRequest, options: ExecOptions, callback?: AnyFn) => {
		const child = fakeChild();
		broker.async(req).then(
			(value) => {
				const result = value as ExecResult;
				child.finish(result);
				if (callback)
					callback(
						ok(result) ? null : failure(label, result),
						output(result.stdout, { encoding: options.encoding ?? "utf8" }),
						output(result.stderr, { encoding: options.encoding ?? "utf8" }),
					);
			},
			(error) => {
				child.fail(error);
				callback?.(error, "", "");
			},
		);
		return child.process;
	};
	const exec = (command: string, ...rest: unknown[]) => {
		const [, options, callback] = splitArgs(rest);
		return runAsync(command, request(command, [], true, options), options, callback);
	};
	const execFile = (file: string, ...rest: unknown[]) => {
		const [args, options, callback] = splitArgs(rest);
		return runAsync([file, ...args].join(" "), request(file, args, false, options), options, callback);
	};
	const promised =
		(run: AnyFn) =>
		(...args: unknown[]) =>
			new Promise((resolve, reject) =>
				run(...args, (error: Error | null, stdout: string, stderr: string) =>
					error ? reject(error) : resolve({ stdout, stderr }),
				),
			);
	Object.defineProperty(exec, promisify.custom, { value: promised(exec) });
	Object.defineProperty(execFile, promisify.custom, { value: promised(execFile) });

	const spawn = (file: string, ...rest: unknown[]) => {
		const [args, options] = splitArgs(rest);
		const req = request(file, args, (options as { shell?: boolean }).shell === true, options);
		return runAsync([file, ...args].join(" "), req, { ...options, encoding: "buffer" });
	};
	const refuse = (name: string) => () => {
		throw Object.assign(new Error(`child_process.${name} is not available to forged tools.`), {
			code: "ERR_FORGE_UNSUPPORTED",
		});
	};

	return { exec, execSync, execFile, execFileSync, spawn, spawnSync, fork: refuse("fork"), execPath: undefined };
}

/** Enough of a ChildProcess for code that listens to 'close'/'exit' and reads stdout/stderr. */
function fakeChild() {
	const process = new EventEmitter() as EventEmitter & Record<string, unknown>;
	const stdout = new PassThrough();
	const stderr = new PassThrough();
	Object.assign(process, { stdout, stderr, stdin: null, pid: 0, kill: () => false, exitCode: null });
	return {
		process,
		finish(result: ExecResult) {
			stdout.end(result.stdout);
			stderr.end(result.stderr);
			process.exitCode = result.status;
			if (result.error && result.status === null) process.emit("error", new Error(result.error));
			process.emit("exit", result.status, result.signal);
			setImmediate(() => process.emit("close", result.status, result.signal));
		},
		fail(error: Error) {
			stdout.end();
			stderr.end();
			process.emit("error", error);
			setImmediate(() => process.emit("close", null, null));
		},
	};
}
