// Node's permission flags for the runner host, chosen from the version of the Node that runs pi: the model is
// `--experimental-permission` up to Node 22.12 and 23.4, `--permission` from 22.13 and 23.5 on (24 and later know
// only that one), and from Node 25 on it also denies the network unless `--allow-net` is given.
import { execFile } from "node:child_process";

export interface NodeVersion {
	major: number;
	minor: number;
}

export interface PermissionOptions {
	/** Folders the host may read. */
	readRoots: string[];
	/** Whether tools may open network connections (enforced only where Node can: 25 and later). */
	network: boolean;
}

/** Asks a Node binary for its version ("v24.21.0"). */
export function nodeVersionOf(path: string): Promise<string> {
	return new Promise((resolve, reject) => {
		execFile(path, ["--version"], { timeout: 10_000 }, (error, stdout) =>
			error ? reject(error) : resolve(stdout.trim()),
		);
	});
}

export function parseNodeVersion(version: string): NodeVersion {
	const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
	return { major, minor };
}

/** `--permission` where Node knows it; the experimental spelling where it does not. */
export function permissionFlag({ major, minor }: NodeVersion): string {
	const stable = major >= 24 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13);
	return stable ? "--permission" : "--experimental-permission";
}

/** Whether this Node's permission model can deny network access. */
export function canDenyNetwork({ major }: NodeVersion): boolean {
	return major >= 25;
}

/** The flags that put the host under the permission model: reads of `readRoots` only, no writes, workers allowed. */
export function permissionFlags(version: NodeVersion, options: PermissionOptions): string[] {
	return [
		permissionFlag(version),
		// One flag per path: Node 20.20 no longer reads a comma-separated list.
		...[...new Set(options.readRoots)].map((path) => `--allow-fs-read=${path}`),
		"--allow-worker",
		...(options.network && canDenyNetwork(version) ? ["--allow-net"] : []),
	];
}
