#!/usr/bin/env node
// The agent-forge command: loads the TypeScript sources with jiti (as pi does), no build step. Whatever goes wrong
// ends as one line on stderr, never a stack trace.
import { createJiti } from "jiti";

const die = (error) => {
	console.error(`agent-forge: ${String(error?.message ?? error).split("\n")[0]}`);
	process.exit(1);
};
process.on("uncaughtException", die);
process.on("unhandledRejection", die);
// A reader that stops early (agent-forge list | head) is not an error.
process.stdout.on("error", (error) => (error.code === "EPIPE" ? process.exit(process.exitCode ?? 0) : die(error)));

try {
	const { main } = await createJiti(import.meta.url).import("../src/cli/main.ts");
	process.exitCode = await main(process.argv.slice(2));
} catch (error) {
	die(error);
}
