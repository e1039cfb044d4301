// The start-up every worker of the runner host shares, tool worker and preflight worker alike: the process
// hardened, `process.env` replaced by the facade (safe variables, the rest asked of pi's process), and the modules a
// forged module may require — the fs and child_process facades over the worker's broker, path, and pi's TypeBox.
import { createRequire } from "node:module";
import * as path from "node:path";
import type { ModuleProvider } from "../../module-loader.ts";
import type { Limits } from "../protocol.ts";
import { createChildProcessFacade } from "./facades/child-process.ts";
import { installEnvironment } from "./facades/environment.ts";
import { createBrokeredFetch } from "./facades/fetch.ts";
import { createFsFacade } from "./facades/fs.ts";
import { harden } from "./harden.ts";
import type { Brokered } from "./worker-broker.ts";

export interface WorkerStart {
	broker: Brokered;
	limits: Limits;
	/** Folders the worker reads itself; files inside them no tool may read. */
	roots: string[];
	unreadable?: string[];
	safeEnv: Record<string, string>;
	typeboxPath: string;
	/** Runs after hardening, before the environment facade goes in (while Node may still read its own variables). */
	beforeEnvironment?(): void;
	/** Kept off the network, a tool still fetches: each host is a capability pi's process decides on, and makes the request. */
	brokeredFetch?: boolean;
}

export interface StartedWorker {
	/** The facades and modules handed out, by bare specifier. */
	modules: Record<string, unknown>;
	/** What `require` of an allowed specifier gives (see module-loader.ts). */
	provide: ModuleProvider;
}

export function startWorker(start: WorkerStart): StartedWorker {
	const { broker } = start;
	harden(start.limits);
	start.beforeEnvironment?.();
	installEnvironment(broker, start.safeEnv);
	if (start.brokeredFetch && start.limits.networkOff)
		globalThis.fetch = createBrokeredFetch(broker, () => ({ Request, Response }));
	const { fs, promises } = createFsFacade(broker, start.roots, process.cwd(), start.unreadable);
	const modules: Record<string, unknown> = {
		fs,
		"fs/promises": promises,
		path,
		"path/posix": path.posix,
		"path/win32": path.win32,
		child_process: createChildProcessFacade(broker),
	};
	const provide = (specifier: string) => {
		const bare = specifier.replace(/^node:/, "");
		if (Object.hasOwn(modules, bare)) return modules[bare];
		return createRequire(import.meta.url)(start.typeboxPath);
	};
	return { modules, provide };
}
