// What a request from the runner host asks for, as capabilities the gate decides on: file paths resolved to where
// they really lead, a command's program looked up on its PATH, a URL's host. A request that can never be done
// (an unknown fs operation, a read that opens for writing, a path that is not one) throws here, before any decision.
import { constants as fsConstants } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { FS_OPS, isFsOp } from "../fs-ops.ts";
import type { BrokerRequest, FsRequest } from "../protocol.ts";
import { resolveProgram } from "../resolve-program.ts";
import { type Capability, type EnvChange, shellQuote } from "./capability.ts";
import { mappedIPv4 } from "./net-address.ts";
import { programContent, shellFiles } from "./program-content.ts";

export interface CapabilityContext {
	/** The real path of the project: where a command runs when it names no folder. */
	projectDir: string;
	/** The environment commands start from: a variable a request sets to another value is a change to show. */
	commandEnv: Record<string, string>;
	realpath(path: string): Promise<string>;
	/** Real paths a tool can write (the project, the temp dir): a program there is named by its content too. */
	writableRoots?: readonly string[];
}

export async function capabilitiesOf(request: BrokerRequest, context: CapabilityContext): Promise<Capability[]> {
	const real = (path: string) => realPath(path, context.realpath);
	switch (request.kind) {
		case "fs": {
			if (!isFsOp(request.action))
				throw Object.assign(new Error(`fs.${request.action} is not available to forged tools.`), {
					code: "ERR_FORGE_UNSUPPORTED",
				});
			checkReadOnly(request);
			const capabilities: Capability[] = [];
			for (const [index, access] of FS_OPS[request.action].paths) {
				const path = request.args[index];
				if (typeof path !== "string" || !isAbsolute(path))
					throw Object.assign(new Error(`fs.${request.action} needs a path`), { code: "ERR_INVALID_ARG_TYPE" });
				// An operation on a link itself (unlink, rename, lstat…) is checked, and done, on the link, in its real folder.
				const resolved = FS_OPS[request.action].onLink
					? join(await real(dirname(path)), basename(path))
					: await real(path);
				capabilities.push({ kind: access === "read" ? "fs-read" : "fs-write", path: resolved });
			}
			return capabilities;
		}
		case "exec": {
			const { commandEnv, projectDir } = context;
			const cwd = request.cwd ? await real(request.cwd) : projectDir;
			const env: EnvChange[] = Object.entries(request.env ?? {})
				.filter(([name, value]) => commandEnv[name] !== value)
				.map(([name, value]) =>
					name in commandEnv ? { name, value, previous: commandEnv[name] } : { name, value },
				);
			const path = request.env?.PATH ?? commandEnv.PATH;
			const roots = context.writableRoots ?? [];
			const line = [request.file, ...request.args].join(" ");
			const program = request.shell ? "/bin/sh" : (resolveProgram(request.file, { cwd, path }) ?? request.file);
			const binding = request.shell ? await shellFiles(line, cwd, roots, context.realpath) : undefined;
			const content = binding ? binding.digest : (await programContent(await real(program), roots))?.digest;
			const exec: Capability = request.shell
				? { kind: "exec", program, commandLine: line, shell: true, env, cwd }
				: {
						kind: "exec",
						program,
						commandLine: [request.file, ...request.args].map(shellWord).join(" "),
						env,
						cwd,
					};
			if (content) exec.content = content;
			// Asked once at a time: a grant for good would cover whatever the line reaches when it runs.
			if (binding?.unbound) exec.unbound = binding.unbound;
			return request.cwd ? [exec, { kind: "fs-read", path: cwd }] : [exec];
		}
		case "env":
			return [{ kind: "env", name: request.name }];
		case "inline":
			return [{ kind: "inline" }];
		case "net":
			return [{ kind: "net", host: netHost(request.url) }];
		case "use":
			// No capability of its own: what the tool it calls does for it is brokered, and decided, one request at a time.
			return [];
	}
}

/**
 * The host a URL names, as its capability does: the port only when it is not the scheme's default; an IPv4-mapped
 * IPv6 address (`[::ffff:a9fe:a9fe]`) as the IPv4 address it reaches (169.254.169.254), which is what a person reads.
 */
export function netHost(url: string): string {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw Object.assign(new TypeError(`fetch: ${JSON.stringify(url).slice(0, 200)} is not a URL`), {
			code: "ERR_INVALID_URL",
		});
	}
	if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
		throw Object.assign(new TypeError(`fetch: only http: and https: (${parsed.protocol})`), {
			code: "ERR_FORGE_UNSUPPORTED",
		});
	const mapped = mappedIPv4(parsed.hostname);
	// "Any address" in a URL reaches this machine: asked for as it is, a person could not tell.
	if ((mapped ?? parsed.hostname) === "0.0.0.0" || parsed.hostname === "[::]")
		throw Object.assign(
			new TypeError(
				`fetch: ${parsed.hostname} is the "any" address, which connects to this machine: fetch 127.0.0.1 (or [::1]) instead`,
			),
			{ code: "ERR_FORGE_UNSUPPORTED" },
		);
	return mapped ? `${mapped}${parsed.port ? `:${parsed.port}` : ""}` : parsed.host.toLowerCase();
}

/** The real path of `path`, or for a path that does not exist yet the real path of its nearest existing parent joined with the rest. */
export async function realPath(path: string, realpath: (path: string) => Promise<string>): Promise<string> {
	try {
		return await realpath(path);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if ((code !== "ENOENT" && code !== "ENOTDIR") || dirname(path) === path) return path;
		return join(await realPath(dirname(path), realpath), basename(path));
	}
}

/** A recursive mkdir of a folder that exists (the project itself, say): it changes nothing, so there is nothing to decide. */
export async function changesNothing(request: BrokerRequest, isFolder: (path: string) => Promise<boolean>) {
	if (request.kind !== "fs" || request.action !== "mkdir") return false;
	const [path, options] = request.args;
	if (
		typeof path !== "string" ||
		!(options && typeof options === "object" && (options as { recursive?: unknown }).recursive === true)
	)
		return false;
	return isFolder(path);
}

/** An argument as a shell would need it to mean the same, so the command shown reads as what runs. */
function shellWord(word: string): string {
	return word === "" ? "''" : shellQuote(word);
}

const READ_ONLY_FLAGS: ReadonlySet<unknown> = new Set(["r", "rs", "sr", fsConstants.O_RDONLY]);

/** A read is authorised as a read: readFile with a flag that opens for writing ("w" truncates) would be a write. */
function checkReadOnly(request: FsRequest): void {
	if (request.action !== "readFile") return;
	const options = request.args[1];
	const flag = options && typeof options === "object" ? (options as { flag?: unknown }).flag : undefined;
	if (flag !== undefined && !READ_ONLY_FLAGS.has(flag)) {
		throw Object.assign(
			new Error(
				`fs.readFile opens files for reading only (flag ${JSON.stringify(flag)} refused): write with fs.writeFile or fs.appendFile.`,
			),
			{ code: "ERR_FORGE_UNSUPPORTED" },
		);
	}
}
