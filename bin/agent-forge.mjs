#!/usr/bin/env node
// The agent-forge command: loads the TypeScript sources with jiti (as pi does), no build step.
import { createJiti } from "jiti";

const jiti = createJiti(import.meta.url);
const { main } = await jiti.import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
