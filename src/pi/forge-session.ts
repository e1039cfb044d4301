// The extension's state inside one pi process: the toolbox for pi's cwd, and the forged tools registered with pi.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ConfigProblem } from "../config.ts";
import { ForgeError } from "../errors/forge-error.ts";
import { FORGE_TOOL_NAMES, type TakenNames } from "../forge/names.ts";
import type { RegistryEntry } from "../store/registry.ts";
import { type OpenedToolbox, openToolbox } from "../toolbox/open-toolbox.ts";
import type { Toolbox } from "../toolbox/toolbox.ts";
import { ToolboxWatcher } from "../toolbox/watcher.ts";
import { selectActive } from "../toolbox/active-set.ts";
import { createDirectTool } from "./direct-tool.ts";
import { toPiError } from "./output.ts";
import { ForgeUi } from "./ui-controller.ts";

export class ForgeSession {
	private opened: { cwd: string; toolbox: Promise<Toolbox> } | undefined;
	/** The toolbox once opened, with its grants and configuration (for /forge and autocompletion). */
	current: OpenedToolbox | undefined;
	readonly ui = new ForgeUi();
	private watcher: ToolboxWatcher | undefined;
	/** Forged tools registered with pi under their own names, with the version registered. */
	private readonly direct = new Map<string, number>();

	constructor(private readonly pi: ExtensionAPI) {}

	/** Problems with the configuration (bad environment values), to show once. */
	configProblems: ConfigProblem[] = [];

	/**
	 * The toolbox of `cwd`, opened once (at session start, or at the first tool call if pi never sent one).
	 * If it cannot be opened the promise rejects with an error for the model, and the next call tries again.
	 */
	toolbox(cwd: string): Promise<Toolbox> {
		if (this.opened?.cwd === cwd) return this.opened.toolbox;
		const previous = this.opened?.toolbox;
		const toolbox = (async () => {
			await this.watcher?.stop();
			await previous?.then((t) => t.close()).catch(() => undefined);
			let box: Toolbox;
			try {
				// pi's start reads the registry only; the files are compared with it in the background.
				const opened = await openToolbox(cwd, process.env, { verify: "background" });
				this.configProblems = opened.problems;
				opened.runner.warm();
				void opened.runner.sandbox().then((sandbox) => this.ui.setSandbox(sandbox));
				box = opened.toolbox;
				this.current = opened;
				this.ui.bind(box);
			} catch (error) {
				this.opened = undefined;
				throw toPiError(new ForgeError("store", `The toolbox could not be opened: ${(error as Error).message}`, {
					hint: "Check that PI_FORGE_DIR (or .pi/forge/extensions under the project) is a writable directory.",
				}, { cause: error }), cwd);
			}
			box.onEvent((event) => {
				if (event.type === "forged" || event.type === "reloaded" || event.type === "removed" || event.type === "executed") this.refreshActive(box);
			});
			this.refreshActive(box);
			// Live reload starts in the background: a large toolbox must not slow pi's start.
			this.watcher = new ToolboxWatcher(box);
			void this.watcher.start().catch(() => undefined);
			return box;
		})();
		this.opened = { cwd, toolbox };
		return toolbox;
	}

	toolboxFor(ctx: ExtensionContext): Promise<Toolbox> {
		return this.toolbox(ctx.cwd);
	}

	/** Names held by tools that are not forged: built-ins, other extensions, the forge's own tools. */
	takenNames(): TakenNames {
		const taken = new Map<string, string>();
		for (const tool of this.pi.getAllTools()) {
			if (this.direct.has(tool.name) || (FORGE_TOOL_NAMES as readonly string[]).includes(tool.name)) continue;
			const source = tool.sourceInfo?.source;
			taken.set(tool.name, source === "builtin" ? `pi's built-in tool '${tool.name}'` : `the tool '${tool.name}' from ${tool.sourceInfo?.path ?? source ?? "another extension"}`);
		}
		return taken;
	}

	/**
	 * The bounded active set: pinned tools and the most recently and often used ones, up to the ceiling, are registered
	 * with pi and offered to the model; the rest stay one list_forge + use_forge_tool away. Takes effect from the next run.
	 */
	private refreshActive(box: Toolbox): void {
		const { pinned, activeLimit, activeChars } = box.config;
		const candidates = box.entries().map((entry) => ({ entry, health: box.health.get(entry.name), healthy: box.state(entry) === "ok" }));
		const active = selectActive(candidates, pinned, activeLimit, new Date(), activeChars);
		for (const name of active) this.registerDirect(box.get(name));
		this.syncActiveTools(new Set(active.filter((name) => this.direct.has(name))));
	}

	/** Registers a healthy forged tool under its own name (callable directly from the next agent run, pi's rule). */
	private registerDirect(entry: RegistryEntry | undefined): void {
		if (!entry || entry.status !== "ok" || this.direct.get(entry.name) === entry.version) return;
		if (!this.direct.has(entry.name) && this.takenNames().has(entry.name)) return;
		this.pi.registerTool(createDirectTool(entry, this, this.pi));
		this.direct.set(entry.name, entry.version);
	}

	/**
	 * pi has no way to unregister a tool: a forged tool that left the active set (broken, quarantined, removed, or
	 * pushed out by busier ones) is deactivated instead, and activated again when it returns. Other tools are left alone.
	 */
	private syncActiveTools(offered: Set<string>): void {
		let active: string[];
		try {
			active = this.pi.getActiveTools();
		} catch {
			return; // not bound yet (during extension load): session_start syncs again
		}
		const next = [...active.filter((name) => !this.direct.has(name) || offered.has(name)), ...[...offered].filter((name) => !active.includes(name))];
		if (next.length !== active.length || next.some((name, i) => name !== active[i])) this.pi.setActiveTools(next);
	}

	async close(): Promise<void> {
		this.ui.detach();
		this.current = undefined;
		await this.watcher?.stop();
		this.watcher = undefined;
		const toolbox = await this.opened?.toolbox.catch(() => undefined);
		await toolbox?.close();
		this.opened = undefined;
	}
}
