// The file and command operations of a tool that runs inline (granted to run in pi's process, with pi's own access):
// what a tool it calls through `pi.useTool` does for it is done directly, with Node, as pi's own tools do it.
import { spawn } from "node:child_process";
import { access, constants, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import type { CallerOperations } from "../contract/tool-calls.ts";

export const inlineCallerOperations: CallerOperations = {
	hidden: () => false,
	readFile: (path) => readFile(path),
	readText: (path) => readFile(path, "utf8"),
	access: (path, write) => access(path, write ? constants.R_OK | constants.W_OK : constants.R_OK),
	exists: (path) =>
		access(path).then(
			() => true,
			() => false,
		),
	stat: (path) => stat(path),
	readdir: (path) => readdir(path),
	list: async (path) =>
		(await readdir(path, { withFileTypes: true })).map((entry) => ({
			name: entry.name,
			folder: entry.isDirectory(),
		})),
	searchable: async (path) => ({ isDirectory: (await stat(path)).isDirectory() }),
	writeFile: (path, content) => writeFile(path, content),
	mkdir: async (path) => {
		await mkdir(path, { recursive: true });
	},
	shell: (command, cwd, { onData, signal, timeout }) =>
		new Promise((resolve, reject) => {
			const child = spawn("/bin/sh", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
			let timedOut = false;
			const kill = () => {
				try {
					if (child.pid) process.kill(-child.pid, "SIGKILL");
				} catch {
					child.kill("SIGKILL");
				}
			};
			const timer =
				timeout !== undefined && timeout > 0
					? setTimeout(() => {
							timedOut = true;
							kill();
						}, timeout * 1000)
					: undefined;
			child.stdout.on("data", onData);
			child.stderr.on("data", onData);
			if (signal?.aborted) kill();
			signal?.addEventListener("abort", kill, { once: true });
			child.on("error", (error) => {
				clearTimeout(timer);
				reject(error);
			});
			child.on("close", (code) => {
				clearTimeout(timer);
				signal?.removeEventListener("abort", kill);
				if (signal?.aborted) reject(new Error("aborted"));
				else if (timedOut) reject(new Error(`timeout:${timeout}`));
				else resolve({ exitCode: code });
			});
		}),
};
