// Builds the runner host and its workers into plain JavaScript with esbuild, once per version of their sources,
// into a cache folder the host may read. Plain node runs them: no TypeScript loader in the host.
import { createHash } from "node:crypto";
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export interface HostBundle {
	dir: string;
	hostMain: string;
	toolWorker: string;
	preflightWorker: string;
}

const ENTRY_POINTS = {
	"host-main": fileURLToPath(new URL("../host/host-main.ts", import.meta.url)),
	"tool-worker": fileURLToPath(new URL("../worker/tool-worker.ts", import.meta.url)),
	"preflight-worker": fileURLToPath(new URL("../worker/preflight-worker.ts", import.meta.url)),
};

const pending = new Map<string, Promise<HostBundle>>();

/** The bundle under `cacheDir`, built if this version is not there yet (concurrent callers share one build). */
export function hostBundle(cacheDir: string): Promise<HostBundle> {
	let bundle = pending.get(cacheDir);
	if (!bundle) {
		bundle = buildInto(cacheDir);
		bundle.catch(() => pending.delete(cacheDir));
		pending.set(cacheDir, bundle);
	}
	return bundle;
}

async function buildInto(cacheDir: string): Promise<HostBundle> {
	const result = await build({
		entryPoints: ENTRY_POINTS,
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20",
		outdir: "out",
		outExtension: { ".js": ".mjs" },
		write: false,
		logLevel: "silent",
		// Bundled CommonJS dependencies may call require(): give ES modules one.
		banner: {
			js: "import { createRequire as __forgeCreateRequire } from 'node:module'; const require = __forgeCreateRequire(import.meta.url);",
		},
	});
	const hash = createHash("sha256");
	for (const file of result.outputFiles) hash.update(file.path).update(file.contents);
	const dir = join(cacheDir, hash.digest("hex").slice(0, 16));
	const paths: HostBundle = {
		dir,
		hostMain: join(dir, "host-main.mjs"),
		toolWorker: join(dir, "tool-worker.mjs"),
		preflightWorker: join(dir, "preflight-worker.mjs"),
	};

	const existing = await readdir(dir).catch(() => []);
	if (existing.length === 3) return paths;
	// Written to a temporary folder and renamed, so a host never starts from a half-written bundle.
	await mkdir(cacheDir, { recursive: true, mode: 0o700 });
	const temp = `${dir}.tmp-${process.pid}-${Date.now()}`;
	await mkdir(temp, { recursive: true });
	await Promise.all(
		result.outputFiles.map((file) => writeFile(join(temp, file.path.split("/").pop()!), file.contents)),
	);
	try {
		await rename(temp, dir);
	} catch {
		await rm(temp, { recursive: true, force: true }); // another process won the race: its bundle is the same
	}
	return paths;
}
