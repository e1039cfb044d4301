// Installing Agent Forge as pi's docs describe, each way a user would: `pi install <local path>` (after the one
// command the README gives), `pi install git:…` (a repository served by `git daemon` on 127.0.0.1) and
// `pi install npm:…` (from a registry on 127.0.0.1 that serves this package and passes every other request on to
// the configured registry). Each time: no second copy of pi (or of TypeBox) in the extension's node_modules, and the
// installed extension forges and runs a tool in the real pi. Needs the npm registry for the runtime dependencies.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/pi-harness.ts";
import { PI_CLI } from "../helpers/pi-line.ts";

const REPO = resolve(import.meta.dirname, "../..");
const PROVIDER = join(REPO, "test", "fixtures", "scripted-provider.ts");
const PACKAGE = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { name: string; version: string };
const HOST_PACKAGES = ["@earendil-works", "@mariozechner", "typebox", "@sinclair"];
const INSTALL_TIMEOUT_MS = 240_000;

let tarball: string;

beforeAll(async () => {
	const dir = await makeTempDir("forge-pack");
	execFileSync("npm", ["pack", "--pack-destination", dir, "--loglevel=error"], { cwd: REPO, encoding: "utf8" });
	tarball = join(dir, readdirSync(dir).find((name) => name.endsWith(".tgz"))!);
}, INSTALL_TIMEOUT_MS);

/** Every package folder under a node_modules tree (scoped ones as `@scope/name`). */
function installedPackages(root: string): string[] {
	const found: string[] = [];
	const walk = (modules: string) => {
		if (!existsSync(modules)) return;
		for (const name of readdirSync(modules)) {
			if (name.startsWith(".")) continue;
			const path = join(modules, name);
			if (name.startsWith("@")) {
				for (const inner of readdirSync(path)) {
					found.push(`${name}/${inner}`);
					walk(join(path, inner, "node_modules"));
				}
			} else {
				found.push(name);
				walk(join(path, "node_modules"));
			}
		}
	};
	walk(join(root, "node_modules"));
	return found;
}

function expectNoHostCopies(root: string) {
	const packages = installedPackages(root);
	expect(packages.length).toBeGreaterThan(5); // the runtime dependencies are there…
	expect(packages).toContain("esbuild");
	expect(
		packages.filter((name) => HOST_PACKAGES.some((host) => name === host || name.startsWith(`${host}/`))),
	).toEqual([]); // …and no pi
}

/** The installed extension at work: a scripted model forges a tool and calls it, in a fresh project. */
async function forgeAndUse(agentDir: string, extraArgs: string[] = []) {
	const cwd = await makeTempDir("forge-installed-project");
	const script = join(agentDir, "script.json");
	await writeFile(
		script,
		JSON.stringify([
			{
				calls: [
					{
						name: "forge_tool",
						args: {
							name: "shout",
							description: "Upper-case a text.",
							parametersSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
							logic: "return params.text.toUpperCase();",
						},
					},
				],
			},
			{ calls: [{ name: "use_forge_tool", args: { name: "shout", args: { text: "installed" } } }] },
			{ text: "done" },
		]),
	);
	const run = spawnSync(
		process.execPath,
		[
			PI_CLI,
			"--provider",
			"scripted",
			"--model",
			"s",
			"-e",
			PROVIDER,
			...extraArgs,
			"--no-session",
			"--mode",
			"json",
			"forge it",
		],
		{
			cwd,
			env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", FORGE_SCRIPT: script },
			encoding: "utf8",
			timeout: 60_000,
		},
	);
	expect(run.status, run.stderr).toBe(0);
	const ends = run.stdout
		.split("\n")
		.filter((line) => line.includes('"tool_execution_end"'))
		.map((line) => JSON.parse(line));
	expect(ends.map((e) => [e.toolName, e.isError, e.result.content[0].text.split("\n")[0]])).toEqual([
		["forge_tool", false, expect.stringContaining("Forged 'shout' v1")],
		["use_forge_tool", false, "INSTALLED"],
	]);
}

/** `pi install <source>`, run without blocking this process (the npm case's registry answers from it). */
async function piInstall(agentDir: string, source: string, env: Record<string, string> = {}) {
	const child = spawn(process.execPath, [PI_CLI, "install", source], {
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, ...env },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let output = "";
	child.stdout!.on("data", (chunk) => (output += chunk));
	child.stderr!.on("data", (chunk) => (output += chunk));
	const code = await new Promise<number | null>((done) => child.on("close", done));
	expect(code, output).toBe(0);
}

describe("pi install", () => {
	it(
		"a local path, after `npm install --omit=dev` in it (the README's command): loads, forges and runs, with no copy of pi",
		async () => {
			const dir = await makeTempDir("forge-local");
			execFileSync("tar", ["xzf", tarball, "-C", dir]);
			const local = join(dir, "package");
			execFileSync("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"], {
				cwd: local,
				encoding: "utf8",
				timeout: INSTALL_TIMEOUT_MS,
			});
			expectNoHostCopies(local);
			const agentDir = await makeTempDir("forge-local-agent");
			await piInstall(agentDir, local);
			const settings = JSON.parse(await readFile(join(agentDir, "settings.json"), "utf8"));
			expect(
				settings.packages.map((entry: string | { source: string }) =>
					resolve(agentDir, typeof entry === "string" ? entry : entry.source),
				),
			).toEqual([local]);
			await forgeAndUse(agentDir);
		},
		INSTALL_TIMEOUT_MS,
	);

	describe("from git", () => {
		let daemon: ChildProcess;
		let port: number;
		beforeAll(async () => {
			const served = await makeTempDir("forge-git-served");
			// pi wants an owner/repository path.
			execFileSync("git", ["clone", "--quiet", "--bare", REPO, join(served, "team", "agent-forge.git")]);
			port = 20_000 + Math.floor(Math.random() * 20_000);
			daemon = spawn(
				"git",
				[
					"daemon",
					"--reuseaddr",
					"--export-all",
					`--base-path=${served}`,
					"--listen=127.0.0.1",
					`--port=${port}`,
					served,
				],
				{ stdio: "ignore" },
			);
			await new Promise((ready) => setTimeout(ready, 500));
		});
		afterAll(() => {
			daemon?.kill();
		});

		it(
			"git:git://127.0.0.1/…: pi clones it and installs its dependencies without pi",
			async () => {
				const agentDir = await makeTempDir("forge-git-agent");
				await piInstall(agentDir, `git:git://127.0.0.1:${port}/team/agent-forge.git`);
				const clone = findPackageDir(agentDir, PACKAGE.name);
				expectNoHostCopies(clone);
				await forgeAndUse(agentDir);
			},
			INSTALL_TIMEOUT_MS,
		);
	});

	describe("from npm", () => {
		let registry: Server;
		let url: string;
		beforeAll(async () => {
			registry = await localRegistry(tarball);
			url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
		});
		afterAll(() => new Promise<void>((done) => registry.close(() => done())));

		it(
			`npm:${PACKAGE.name}@${PACKAGE.version}: installed into pi's npm folder without pi`,
			async () => {
				const agentDir = await makeTempDir("forge-npm-agent");
				await piInstall(agentDir, `npm:${PACKAGE.name}@${PACKAGE.version}`, { npm_config_registry: url });
				expectNoHostCopies(join(findPackageDir(agentDir, PACKAGE.name), "..", ".."));
				await forgeAndUse(agentDir);
			},
			INSTALL_TIMEOUT_MS,
		);
	});
});

/** The installed copy of a package under pi's agent dir (git clones and npm installs live there). */
function findPackageDir(root: string, name: string): string {
	const queue = [root];
	while (queue.length) {
		const dir = queue.shift()!;
		const manifest = join(dir, "package.json");
		if (
			existsSync(manifest) &&
			(JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === name &&
			dir !== root
		)
			return dir;
		for (const entry of readdirSync(dir)) {
			const path = join(dir, entry);
			if (entry !== ".git" && statSync(path).isDirectory() && !dir.endsWith(`${name}/node_modules`))
				queue.push(path);
		}
	}
	throw new Error(`${name} is not installed under ${root}`);
}

/** A registry for one package (this one, from its tarball); every other request goes on to the configured registry. */
async function localRegistry(tarballPath: string): Promise<Server> {
	const upstream = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" })
		.trim()
		.replace(/\/?$/, "/");
	const bytes = await readFile(tarballPath);
	const manifest = JSON.parse(
		execFileSync("tar", ["xzOf", tarballPath, "package/package.json"], { encoding: "utf8" }),
	);
	const server = createServer(async (request, response) => {
		const path = decodeURIComponent(request.url ?? "/").replace(/^\//, "");
		const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
		if (path === manifest.name) {
			const tarballUrl = `${base}${manifest.name}/-/${manifest.name}-${manifest.version}.tgz`;
			const dist = {
				tarball: tarballUrl,
				shasum: createHash("sha1").update(bytes).digest("hex"),
				integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
			};
			response.writeHead(200, { "content-type": "application/json" });
			response.end(
				JSON.stringify({
					name: manifest.name,
					"dist-tags": { latest: manifest.version },
					versions: { [manifest.version]: { ...manifest, dist } },
				}),
			);
			return;
		}
		if (path === `${manifest.name}/-/${manifest.name}-${manifest.version}.tgz`) {
			response.writeHead(200, { "content-type": "application/octet-stream" });
			response.end(bytes);
			return;
		}
		try {
			const answer = await fetch(`${upstream}${request.url!.replace(/^\//, "")}`, {
				headers: { accept: String(request.headers.accept ?? "application/json") },
			});
			response.writeHead(answer.status, {
				"content-type": answer.headers.get("content-type") ?? "application/json",
			});
			response.end(Buffer.from(await answer.arrayBuffer()));
		} catch (error) {
			response.writeHead(502);
			response.end(String(error));
		}
	});
	await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
	return server;
}
