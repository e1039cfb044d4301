// Node binaries for the test matrix and the demo, from the npm registry's `node-<platform>-<arch>` packages (the
// official builds), installed once per major version into a cache outside the clone, so CI and `npm ci` keep them:
// $AGENT_FORGE_NODE_CACHE, else ~/.cache/agent-forge/node/<major>/.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const CACHE =
	process.env.AGENT_FORGE_NODE_CACHE ||
	join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "agent-forge", "node");
const PACKAGE = `node-${process.platform}-${process.arch}`;

/** The major version of a Node binary. */
export function majorOf(binary) {
	const version = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
	return { version, major: Number(version.replace(/^v/, "").split(".")[0]) };
}

/**
 * A Node binary of `major` (e.g. 24): this very Node when it is that major (and at least `minimum`, e.g. "20.19"),
 * else the newest release of that major from the cache, installed from the registry on first use.
 */
export function ensureNode(major, minimum) {
	const [want, wantMinor = 0] = (minimum ?? `${major}.0`).split(".").map(Number);
	const [ownMajor, ownMinor] = process.versions.node.split(".").map(Number);
	if (ownMajor === major && (ownMajor > want || ownMinor >= wantMinor)) return process.execPath;
	const dir = join(CACHE, String(major));
	const binary = join(dir, "node_modules", PACKAGE, "bin", process.platform === "win32" ? "node.exe" : "node");
	if (!existsSync(binary)) {
		mkdirSync(dir, { recursive: true });
		process.stderr.write(`Installing Node ${major} (${PACKAGE}@${major}) into ${dir} …\n`);
		const npm = process.platform === "win32" ? "npm.cmd" : "npm";
		const result = spawnSync(
			npm,
			[
				"install",
				"--prefix",
				dir,
				"--no-save",
				"--no-audit",
				"--no-fund",
				"--loglevel=error",
				`${PACKAGE}@${major}`,
			],
			{ stdio: "inherit" },
		);
		if (result.status !== 0 || !existsSync(binary))
			throw new Error(`Node ${major} could not be installed from the npm registry (${PACKAGE}@${major}).`);
	}
	return binary;
}
