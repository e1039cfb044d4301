// A burst of forges in a child process (test/fixtures/forge-burst.ts), killed with SIGKILL mid-way: how the crash
// tests interrupt a toolbox at an arbitrary point of a transaction.
import { spawn } from "node:child_process";
import { resolve } from "node:path";

const REPO = resolve(import.meta.dirname, "../..");
const BURST = resolve(REPO, "test", "fixtures", "forge-burst.ts");

/** Forges into `cwd` until `after` forges are done, waits up to `jitterMs` more (at random), then SIGKILLs. Returns how many were reported done. */
export async function burstAndKill(cwd: string, after: number, jitterMs = 0): Promise<number> {
	const child = spawn(process.execPath, ["--import", "jiti/register", BURST, cwd], {
		cwd: REPO,
		stdio: ["ignore", "pipe", "inherit"],
	});
	let forged = 0;
	await new Promise<void>((done) => {
		child.stdout.on("data", (chunk: Buffer) => {
			forged += chunk.toString().split("\n").filter(Boolean).length;
			if (forged >= after) done();
		});
		child.on("exit", () => done());
	});
	if (jitterMs) await new Promise((wait) => setTimeout(wait, Math.floor(Math.random() * jitterMs)));
	child.kill("SIGKILL");
	await new Promise((done) => child.on("exit", done));
	return forged;
}
