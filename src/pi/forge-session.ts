// The extension's state inside one pi process: the toolbox for pi's cwd, and the forged tools registered with pi.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { agentDirOf, type ConfigProblem } from "../config.ts";
import { ForgeError } from "../contract/forge-error.ts";
import { FORGE_TOOL_NAMES, type TakenNames } from "../contract/names.ts";
import type { RegistryEntry } from "../store/registry.ts";
import { admitsFresh, type Offer, selectOffer } from "../toolbox/active-set.ts";
import { type OpenedToolbox, openToolbox } from "../toolbox/open-toolbox.ts";
import type { Toolboxes } from "../toolbox/toolboxes.ts";
import { type Composition, composingHost, type NestedCall } from "./compose.ts";
import { createDirectTool } from "./direct-tool.ts";
import { ForgeTrust, loadTrusted, projectToolboxOf, type TrustAnswer } from "./forge-trust.ts";
import { ForgesInFlight } from "./forges-in-flight.ts";
import { answerNotOffered } from "./not-offered.ts";
import { type NextOffer, notOfferedNote } from "./offer-text.ts";
import { toPiError } from "./output.ts";
import { OwnToolboxes } from "./own-toolboxes.ts";
import { answerUntrusted, showTrustStatus, startNote, untrustedToolError } from "./project-trust.ts";
import { ForgeUi } from "./ui-controller.ts";

export class ForgeSession {
	private opened: { cwd: string; trusted: string; toolbox: Promise<Toolboxes> } | undefined;
	/** The toolbox once opened, with its grants and configuration (for /forge and autocompletion). */
	current: OpenedToolbox | undefined;
	readonly ui = new ForgeUi();
	private watcher: { stop(): Promise<void> } | undefined;
	/**
	 * Forged tools registered with pi under their own names, with the hash of the version registered (a project tool
	 * that starts hiding a user tool may have the same version number).
	 */
	private readonly direct = new Map<string, string>();
	/** What pi offers from its next request on, and the healthy forged tools it leaves out. */
	private offer: Offer = { active: [], left: [] };
	/** Tools forged in this agent run and in the one before, each promised to the prompt after its run. */
	private promised: { current: string[]; previous: string[] } = { current: [], previous: [] };
	/** Every tool forged in this agent run, promised or not. */
	private forgedThisRun = new Set<string>();
	/** What each forge of this session promised about the next prompt, by name. */
	private readonly nextOffers = new Map<string, NextOffer>();
	/** forge_tool calls of the current assistant message (calls of a tool being forged wait for them). */
	readonly forges = new ForgesInFlight();
	/** The answer sent for each call by name of a forged tool that was not offered, by tool call id. */
	private readonly answered = new Map<string, string>();

	constructor(private readonly pi: ExtensionAPI) {}

	/** Problems with the configuration (bad environment values), to show once. */
	configProblems: ConfigProblem[] = [];

	/** Whether the project was trusted at the last look (an untrusted project's toolbox and config are left alone). */
	private trusted: TrustAnswer | undefined;
	private readonly trust = new ForgeTrust();

	/**
	 * The toolboxes of `cwd` (the project's and the user's), opened once (at session start, or at the first tool call if pi never sent one).
	 * If it cannot be opened the promise rejects with an error for the model, and the next call tries again.
	 * A project pi comes to trust during the session is opened again, with its toolbox and config.
	 */
	toolbox(cwd: string, trust: TrustAnswer = this.trusted ?? { trusted: false }): Promise<Toolboxes> {
		this.trusted = trust;
		const trusted = trust.trusted ? "trusted" : (trust.why ?? "pi");
		if (this.opened?.cwd === cwd && this.opened.trusted === trusted) return this.opened.toolbox;
		const previous = this.opened?.toolbox;
		const toolbox = (async () => {
			await this.watcher?.stop();
			await previous?.then((t) => t.close()).catch(() => undefined);
			let box: Toolboxes;
			const loaded = await loadTrusted(cwd, trust);
			try {
				// pi's start reads the registry only; the files are compared with it in the background.
				const opened = await openToolbox(loaded, { verify: "background" });
				// A project toolbox this open made is this agent dir's own: it is trusted at the next start too.
				if (trust.record && opened.config.toolboxDir === projectToolboxOf(cwd))
					new OwnToolboxes(opened.config.forgeHome).add(cwd, opened.config.toolboxDir);
				// Said at the start where the project has a forge folder of its own (a toolbox or a config file).
				const note = startNote(opened.config);
				this.configProblems = note ? [...opened.problems, note] : opened.problems;
				opened.runner.warm();
				void opened.runner.sandbox().then((sandbox) => this.ui.setSandbox(sandbox));
				box = opened.toolboxes;
				this.current = opened;
				this.ui.bind(box);
				// A forge's tests may call the tools the candidate calls: they run with the composing host.
				// Their calls are test calls too: a callee writes only in its own temp dir, as the candidate does.
				box.useTestHost((name) =>
					composingHost({ ...this.composition(this.pi, undefined, cwd), test: true }, [name]),
				);
			} catch (error) {
				this.opened = undefined;
				throw toPiError(
					new ForgeError(
						"store",
						`The toolbox could not be opened: ${(error as Error).message}`,
						{
							hint: "Check that PI_FORGE_DIR (or .pi/forge/extensions under the project) and the agent dir are writable directories.",
						},
						{ cause: error },
					),
					loaded.config,
				);
			}
			box.onEvent((event) => {
				if (event.type === "forged") this.promise(box, event.name);
				if (event.type === "forged" || event.type === "removed" || event.type === "executed")
					this.refreshActive(box);
				// A bulk re-check takes in many tools in a row: the offer is worked out once for all of them.
				if (event.type === "reloaded") this.refreshSoon(box);
			});
			this.refreshActive(box);
			// Live reload starts in the background: a large toolbox must not slow pi's start.
			this.watcher = box.watch();
			return box;
		})();
		this.opened = { cwd, trusted, toolbox };
		return toolbox;
	}

	toolboxFor(ctx: ExtensionContext): Promise<Toolboxes> {
		const trust = this.trust.check(ctx, ctx.cwd, agentDirOf()) ?? this.trusted ?? { trusted: false };
		const toolbox = this.toolbox(ctx.cwd, trust);
		void toolbox.then((box) => showTrustStatus(ctx, box.config)).catch(() => undefined);
		return toolbox;
	}

	/** A call of a tool of the project's toolbox an untrusted project leaves out is refused saying why. */
	refuseUntrusted(name: string, toolbox: Toolboxes): void {
		const error = toolbox.get(name) ? undefined : untrustedToolError(name, toolbox.config);
		if (error) throw toPiError(error, toolbox.config);
	}

	/** What `pi.useTool` in a forged tool called from `ctx` reaches: the tools of this session's toolbox. */
	composition(
		pi: ExtensionAPI,
		ctx: ExtensionContext | undefined,
		cwd: string,
		onNested?: (call: NestedCall) => void,
	): Composition {
		return {
			pi,
			ctx,
			cwd,
			// A tool a forge_tool call of the same message is forging is waited for (its tests may be what calls it).
			resolve: async (name) => {
				await this.forges.waitFor(name);
				const box = await this.toolbox(cwd);
				const found = await box.resolve(name);
				const untrusted = found ? undefined : untrustedToolError(name, box.config);
				if (untrusted) throw untrusted;
				return found;
			},
			names: () => this.current?.toolboxes.entries().map((entry) => entry.name) ?? [],
			onNested,
		};
	}

	/** Names held by tools that are not forged: built-ins, other extensions, the forge's own tools. */
	takenNames(): TakenNames {
		const taken = new Map<string, string>();
		for (const tool of this.pi.getAllTools()) {
			if (this.direct.has(tool.name) || (FORGE_TOOL_NAMES as readonly string[]).includes(tool.name)) continue;
			const source = tool.sourceInfo?.source;
			taken.set(
				tool.name,
				source === "builtin"
					? `pi's built-in tool '${tool.name}'`
					: `the tool '${tool.name}' from ${tool.sourceInfo?.path ?? source ?? "another extension"}`,
			);
		}
		return taken;
	}

	/** refreshActive once the current turn of the event loop is over (after a burst of re-checks). */
	private refreshSoon(box: Toolboxes): void {
		if (this.refreshQueued) return;
		this.refreshQueued = true;
		setImmediate(() => {
			this.refreshQueued = false;
			if (this.current?.toolboxes === box) this.refreshActive(box);
		});
	}
	private refreshQueued = false;

	/**
	 * The bounded active set: tools forged in this run or the one before, pinned tools, and the most recently and
	 * often used ones, up to the ceiling, are registered with pi and offered to the model; the rest stay one
	 * list_forge + use_forge_tool away. Takes effect from the next run (on pi's current line, from the next turn).
	 */
	private refreshActive(box: Toolboxes): void {
		const { pinned, activeLimit, activeChars } = box.config;
		const candidates = box
			.entries()
			.map((entry) => ({ entry, health: box.healthOf(entry.name), healthy: box.state(entry) === "ok" }));
		const fresh = [...new Set([...this.promised.current, ...this.promised.previous])];
		const offer = selectOffer(candidates, {
			pinned,
			limit: activeLimit,
			now: new Date(),
			budget: activeChars,
			fresh,
		});
		for (const name of offer.active) this.registerDirect(box.get(name));
		const active = offer.active.filter((name) => this.direct.has(name));
		this.offer = { active, left: offer.left };
		this.syncActiveTools(new Set(active));
	}

	/** A tool was forged in this run: promise it to the next prompt if the run's forges leave room for it. */
	private promise(box: Toolboxes, name: string): void {
		this.forgedThisRun.add(name);
		const entry = box.get(name);
		if (!entry) return;
		const promised = this.promised.current.flatMap((n) => box.get(n) ?? []);
		const { activeLimit, activeChars } = box.config;
		if (admitsFresh(promised, entry, activeLimit, activeChars)) {
			if (!this.promised.current.includes(name)) this.promised.current.push(name);
			this.nextOffers.set(name, { offered: true });
		} else {
			this.nextOffers.set(name, {
				offered: false,
				forgedThisRun: promised.length + 1,
				limit: activeLimit,
				budget: activeChars,
			});
		}
	}

	/** What the last forge of `name` promised about the next prompt. */
	nextOffer(name: string, box: Toolboxes): NextOffer {
		const known = this.nextOffers.get(name);
		if (known) return known;
		if (this.offer.active.includes(name)) return { offered: true };
		return {
			offered: false,
			forgedThisRun: this.promised.current.length,
			limit: box.config.activeLimit,
			budget: box.config.activeChars,
		};
	}

	/** pi started an agent run: the previous run's forges keep their place through this run, then make way. */
	runStarted(): void {
		this.promised = { current: [], previous: this.promised.current };
		this.forgedThisRun = new Set();
	}

	/** The system-prompt note naming the forged tools pi does not offer directly (none when all are offered). */
	offerNote(): string | undefined {
		return notOfferedNote(this.offer.left);
	}

	/** pi's bare "Tool X not found" for a forged tool it did not offer, replaced by how to run it (not-offered.ts). */
	answerNotOffered<M>(messages: M[]): M[] {
		// The toolboxes as they are now, without waiting: before they open no forged tool can have been called.
		const box = this.current?.toolboxes;
		if (!box) return messages;
		const answered = answerNotOffered(messages, box, this.answered, this.forgedThisRun);
		return answerUntrusted(answered, box.config, (error) => toPiError(error, box.config).message);
	}

	/** Registers a healthy forged tool under its own name (callable directly from the next agent run, pi's rule). */
	private registerDirect(entry: RegistryEntry | undefined): void {
		if (entry?.status !== "ok" || this.direct.get(entry.name) === entry.hash) return;
		if (!this.direct.has(entry.name) && this.takenNames().has(entry.name)) return;
		this.pi.registerTool(createDirectTool(entry, this, this.pi));
		this.direct.set(entry.name, entry.hash);
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
		const next = [
			...active.filter((name) => !this.direct.has(name) || offered.has(name)),
			...[...offered].filter((name) => !active.includes(name)),
		];
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
