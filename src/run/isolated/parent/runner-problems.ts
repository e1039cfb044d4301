// Why the isolated runner could not start, said for the model and the person: the cause in one line and what the
// user can do about it. None of these is the fault of the tool being forged or called, so the error's phase is
// "runner": the tool's code is not shown and the failure does not count against the tool.
import { ForgeError } from "../../../contract/forge-error.ts";
import { PREFLIGHT_WORKER } from "../protocol.ts";

export interface StartFailure {
	/** The error the start ended with (a spawn error, a failed write, or the host's exit before it was ready). */
	error: Error & { code?: string; path?: string; syscall?: string };
	/** The Node binary the host was started with, and its version. */
	node: { path: string; version: string };
	/** Where the runner's code is written before it starts. */
	runtimeDir: string;
}

interface Diagnosis {
	cause: string;
	remedy: string;
}

const SUPPORTED_NODE = "Node 22.19 or newer (22, 24, 26), or 20.19+ with pi's 0.73 line";

export function diagnoseStart({ error, node, runtimeDir }: StartFailure): Diagnosis {
	const message = error.message;
	const badOption = /bad option: (\S+)/.exec(message);
	if (badOption) {
		return {
			cause: `Node ${node.version} (${node.path}) rejected the runner's flag ${badOption[1]}`,
			remedy: `update Agent Forge (it chooses Node's permission flags for each version), or run it on ${SUPPORTED_NODE}; PI_FORGE_NODE names another Node binary for the runner`,
		};
	}
	// The same failure seen from inside the OS sandbox: bubblewrap or sandbox-exec could not run the Node binary.
	const sandboxed =
		/bwrap: execvp \S+: (Permission denied|No such file or directory)/.exec(message) ??
		/sandbox-exec: execvp\(\) of '[^']*' failed: (Permission denied|Operation not permitted|No such file or directory)/.exec(
			message,
		);
	const code = sandboxed ? (sandboxed[1] === "No such file or directory" ? "ENOENT" : "EACCES") : error.code;
	if (sandboxed || error.syscall?.startsWith("spawn") || /^spawn /.test(message)) {
		return {
			cause: `pi's process could not start ${node.path} (${code ?? message})`,
			remedy:
				code === "ENOENT"
					? "point PI_FORGE_NODE at an installed Node binary, or unset it to use the Node that runs pi"
					: "allow pi to start child processes (a sandbox, container policy or noexec mount may forbid it), or point PI_FORGE_NODE at a Node binary that may be run",
		};
	}
	if (error.code && error.path) {
		const where = error.path.startsWith(runtimeDir) ? `the runner's folder ${runtimeDir}` : error.path;
		return {
			cause: `${where} could not be used (${error.code}: ${error.syscall ?? "file system"})`,
			remedy:
				error.code === "ENOENT"
					? "create the missing folder (or fix TMPDIR / PI_CODING_AGENT_DIR), then try again"
					: "make it writable for the user running pi, then try again",
		};
	}
	return {
		cause: message,
		remedy: `check that ${node.path} is ${SUPPORTED_NODE} and can start child processes`,
	};
}

/** The error the model gets: the runner failed, the tool was not run, what the user can do. */
export function runnerStartError(tool: string, failure: StartFailure): ForgeError {
	const { cause, remedy } = diagnoseStart(failure);
	const what = tool === PREFLIGHT_WORKER ? "the new tool could not be checked" : `'${tool}' was not run`;
	return new ForgeError(
		"runner",
		`Agent Forge's isolated runner could not start, so ${what}. This is not a fault of the tool's code: do not change it.\nCause: ${cause}.`,
		{ hint: `Tell the user: ${remedy}. The runner is started again on the next call.` },
		{ cause: failure.error },
	);
}
