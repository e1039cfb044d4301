// `npm run demo`: the scripted demo session (demo/run-demo.ts) in the current pi line, which needs Node >= 22.19.
// On an older Node (a Node 20 system), Node 24 is fetched from the npm registry first (scripts/node-versions.mjs).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ensureNode } from "./node-versions.mjs";

const [major, minor] = process.versions.node.split(".").map(Number);
const node = major > 22 || (major === 22 && minor >= 19) ? process.execPath : ensureNode(24);
const demo = fileURLToPath(new URL("../demo/run-demo.ts", import.meta.url));
const result = spawnSync(node, ["--import", "jiti/register", demo, ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(result.status ?? 1);
