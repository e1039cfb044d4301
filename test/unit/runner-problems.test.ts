// Why the runner could not start, told as a cause and a remedy, never as a fault of the tool.
import { describe, expect, it } from "vitest";
import { diagnoseStart, runnerStartError } from "../../src/run/isolated/parent/runner-problems.ts";

const node = { path: "/usr/bin/node", version: "v24.21.0" };
const runtimeDir = "/home/u/.pi/agent/forge/runtime";
const errno = (message: string, fields: Record<string, string>) => Object.assign(new Error(message), fields);

describe("diagnoseStart", () => {
	it("a rejected flag names the Node, its version and the flag", () => {
		const { cause, remedy } = diagnoseStart({
			error: new Error("the runner host exited (code 9): /usr/bin/node: bad option: --experimental-permission"),
			node,
			runtimeDir,
		});
		expect(cause).toBe("Node v24.21.0 (/usr/bin/node) rejected the runner's flag --experimental-permission");
		expect(remedy).toContain("update Agent Forge");
	});

	it("a spawn refused (EACCES) or a binary missing (ENOENT)", () => {
		const eacces = diagnoseStart({
			error: errno("spawn /usr/bin/node EACCES", {
				code: "EACCES",
				syscall: "spawn /usr/bin/node",
				path: "/usr/bin/node",
			}),
			node,
			runtimeDir,
		});
		expect(eacces.cause).toBe("pi's process could not start /usr/bin/node (EACCES)");
		expect(eacces.remedy).toContain("allow pi to start child processes");
		const enoent = diagnoseStart({
			error: errno("spawn /usr/bin/node ENOENT", {
				code: "ENOENT",
				syscall: "spawn /usr/bin/node",
				path: "/usr/bin/node",
			}),
			node,
			runtimeDir,
		});
		expect(enoent.remedy).toContain("point PI_FORGE_NODE at an installed Node binary");
	});

	it("the same failures seen through sandbox-exec on macOS", () => {
		const refused = diagnoseStart({
			error: new Error(
				"the runner host exited (code 71): sandbox-exec: execvp() of '/usr/bin/node' failed: Operation not permitted",
			),
			node,
			runtimeDir,
		});
		expect(refused.cause).toBe("pi's process could not start /usr/bin/node (EACCES)");
		expect(refused.remedy).toContain("allow pi to start child processes");
		const missing = diagnoseStart({
			error: new Error(
				"the runner host exited (code 71): sandbox-exec: execvp() of '/usr/bin/node' failed: No such file or directory",
			),
			node,
			runtimeDir,
		});
		expect(missing.cause).toBe("pi's process could not start /usr/bin/node (ENOENT)");
		expect(missing.remedy).toContain("point PI_FORGE_NODE at an installed Node binary");
	});

	it("the runner's folder cannot be written, or a folder is missing", () => {
		const denied = diagnoseStart({
			error: errno("EACCES: permission denied, mkdir", {
				code: "EACCES",
				syscall: "mkdir",
				path: `${runtimeDir}/abc`,
			}),
			node,
			runtimeDir,
		});
		expect(denied.cause).toBe(`the runner's folder ${runtimeDir} could not be used (EACCES: mkdir)`);
		expect(denied.remedy).toContain("make it writable");
		const missing = diagnoseStart({
			error: errno("ENOENT", { code: "ENOENT", syscall: "open", path: "/nonexistent/tmp" }),
			node,
			runtimeDir,
		});
		expect(missing.cause).toBe("/nonexistent/tmp could not be used (ENOENT: open)");
		expect(missing.remedy).toContain("create the missing folder");
	});

	it("the same failures seen through the OS sandbox (bubblewrap could not run the binary)", () => {
		const eacces = diagnoseStart({
			error: new Error("the runner host exited (code 1): bwrap: execvp /usr/bin/node: Permission denied"),
			node,
			runtimeDir,
		});
		expect(eacces.cause).toBe("pi's process could not start /usr/bin/node (EACCES)");
		const enoent = diagnoseStart({
			error: new Error("the runner host exited (code 1): bwrap: execvp /usr/bin/node: No such file or directory"),
			node,
			runtimeDir,
		});
		expect(enoent.remedy).toContain("point PI_FORGE_NODE at an installed Node binary");
	});

	it("anything else keeps its message and names what to check", () => {
		const other = diagnoseStart({ error: new Error("the runner host exited (SIGKILL)"), node, runtimeDir });
		expect(other.cause).toBe("the runner host exited (SIGKILL)");
		expect(other.remedy).toMatch(/^check that \/usr\/bin\/node is Node 22\.19 or newer/);
	});
});

describe("runnerStartError", () => {
	it("is phase runner, keeps the cause, tells the model not to change the tool, and carries no source", () => {
		const error = runnerStartError("greet", { error: new Error("boom"), node, runtimeDir });
		expect(error.phase).toBe("runner");
		expect(error.message).toContain("'greet' was not run. This is not a fault of the tool's code: do not change it.");
		expect(error.message).toContain("Cause: boom.");
		expect(error.details.source).toBeUndefined();
		expect(error.details.hint).toMatch(/^Tell the user: /);
		expect((error as Error & { cause?: unknown }).cause).toBeInstanceOf(Error);
	});
});
