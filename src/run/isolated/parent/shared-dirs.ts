// The folders every program of the user shares, which a sandboxed process does not see but for its own parts.
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";

/**
 * The temp dirs every program shares, and the user's runtime dir (real paths of those that exist): hidden from the
 * runner host and from commands but for their own. Their sockets matter most: a read-only folder still lets a process
 * connect to a socket in it (tmux's, an ssh or gpg agent's, the user's systemd and D-Bus).
 */
export function sharedTempDirs(): string[] {
	const dirs = new Set<string>();
	const runtime = process.getuid ? [`/run/user/${process.getuid()}`] : [];
	for (const dir of ["/tmp", "/var/tmp", tmpdir(), ...runtime]) {
		try {
			dirs.add(realpathSync(dir));
		} catch {
			// not there
		}
	}
	return [...dirs].filter((dir) => dir !== "/");
}
