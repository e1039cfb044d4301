// Runs a TypeScript entry point (the demo, the benchmarks) with jiti on a Node that the current pi line supports
// (>= 22.19): this Node when it is one, else Node 24 from the npm registry (scripts/node-versions.mjs).
// `--node <major>` picks the major version instead: `node scripts/run-ts.mjs --node 26 bench/run-all.ts`.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { ensureNode } from "./node-versions.mjs";

const args = process.argv.slice(2);
let node;
if (args[0] === "--node") {
	node = ensureNode(Number(args[1]));
	args.splice(0, 2);
} else {
	const [major, minor] = process.versions.node.split(".").map(Number);
	node = major > 22 || (major === 22 && minor >= 19) ? process.execPath : ensureNode(24);
}
const [entry, ...rest] = args;
if (!entry) {
	console.error("usage: node scripts/run-ts.mjs [--node <major>] <file.ts> [arguments]");
	process.exit(2);
}
const result = spawnSync(node, ["--import", "jiti/register", resolve(entry), ...rest], { stdio: "inherit" });
process.exit(result.status ?? 1);
