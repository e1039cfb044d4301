// Where a tool's private temp dir is in the runner's temp folder (parent/private-temp.ts makes them): one name on both
// sides of the runner, pi's process and the host.
import { join } from "node:path";

/** The folder of `tool` in the runner's temp folder `root`; a tool name is a plain word already, anything else is made one. */
export function toolTempDir(root: string, tool: string): string {
	return join(root, tool.replace(/[^A-Za-z0-9_-]/g, "_") || "_");
}
