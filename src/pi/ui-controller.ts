// Keeps pi's TUI in step with the toolbox: the widget above the editor and the Forge Tier in the status bar.
// Does nothing without a UI (print and json modes).
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { SandboxStatus } from "../run/isolated/parent/os-sandbox.ts";
import type { ToolboxEvent } from "../toolbox/toolbox.ts";
import type { Toolboxes } from "../toolbox/toolboxes.ts";
import { statusText } from "../ui/tiers.ts";
import { type LastAction, widgetLines } from "../ui/widget.ts";

export const WIDGET_KEY = "agent-forge";
/** Relative times ("2m ago") are redrawn this often. */
const REFRESH_MS = 15_000;

export class ForgeUi {
	private ctx: ExtensionContext | undefined;
	private toolbox: Toolboxes | undefined;
	private last: LastAction | undefined;
	private readonly executing = new Map<string, number>();
	private timer: NodeJS.Timeout | undefined;
	private unsubscribe: (() => void) | undefined;
	/** The OS sandbox around the tools: its absence is shown in the status bar. */
	private sandbox: SandboxStatus | undefined;

	/** Uses this context's UI from now on (the latest context with a UI wins). */
	attach(ctx: ExtensionContext): void {
		if (!ctx.hasUI) return;
		this.ctx = ctx;
		this.timer ??= setInterval(() => this.render(), REFRESH_MS);
		this.timer.unref();
		this.render();
	}

	bind(toolbox: Toolboxes): void {
		this.unsubscribe?.();
		this.toolbox = toolbox;
		this.unsubscribe = toolbox.onEvent((event) => this.onEvent(event));
		this.render();
	}

	private renderQueued = false;

	private onEvent(event: ToolboxEvent): void {
		const at = new Date();
		switch (event.type) {
			case "forged":
				this.last = event.rolledBackFrom
					? { kind: "rolled-back", name: event.name, version: event.version, from: event.rolledBackFrom, at }
					: { kind: "forged", name: event.name, version: event.version, at };
				break;
			case "forge-failed":
				this.last = { kind: "forge-failed", name: event.name, phase: event.error.phase, at };
				break;
			case "executing":
				this.executing.set(event.name, (this.executing.get(event.name) ?? 0) + 1);
				break;
			case "executed": {
				const running = (this.executing.get(event.name) ?? 1) - 1;
				if (running > 0) this.executing.set(event.name, running);
				else this.executing.delete(event.name);
				this.last = { kind: "ran", name: event.name, ok: event.ok, durationMs: event.durationMs, at };
				break;
			}
			case "reloaded":
				this.last = { kind: "reloaded", name: event.name, ok: event.entry?.status === "ok", at };
				// A bulk re-check reloads many tools in a row: drawn once after them.
				if (!this.renderQueued) {
					this.renderQueued = true;
					setImmediate(() => {
						this.renderQueued = false;
						this.render();
					});
				}
				return;
			case "removed":
				this.last = { kind: "removed", name: event.name, at };
				break;
			case "opened":
				break;
		}
		this.render();
	}

	setSandbox(sandbox: SandboxStatus): void {
		this.sandbox = sandbox;
		this.render();
	}

	render(): void {
		const { ctx, toolbox } = this;
		if (!ctx?.hasUI || !toolbox) return;
		const views = toolbox
			.entries()
			.map((entry) => ({ name: entry.name, state: toolbox.state(entry), verified: entry.verified === true }));
		const user = views.filter((v) => toolbox.scopeOf(v.name) === "user").length;
		const broken = views.filter((v) => v.state === "broken").map((v) => v.name);
		const quarantined = views.filter((v) => v.state === "quarantined").map((v) => v.name);
		try {
			const verified = views.filter((v) => v.state === "ok" && v.verified).length;
			ctx.ui.setWidget(
				WIDGET_KEY,
				widgetLines(
					{
						total: views.length,
						user,
						verified,
						broken,
						quarantined,
						last: this.last,
						executing: [...this.executing.keys()],
					},
					new Date(),
				),
			);
			ctx.ui.setStatus(
				WIDGET_KEY,
				`${statusText(views.length - broken.length - quarantined.length)}${this.sandbox?.kind === "none" ? " · no OS sandbox" : ""}`,
			);
		} catch {
			// A stale context (after /new or /reload): the next session_start attaches a fresh one.
			this.ctx = undefined;
		}
	}

	detach(): void {
		clearInterval(this.timer);
		this.timer = undefined;
		this.unsubscribe?.();
		this.unsubscribe = undefined;
		try {
			this.ctx?.ui.setWidget(WIDGET_KEY, undefined);
			this.ctx?.ui.setStatus(WIDGET_KEY, undefined);
		} catch {
			// already gone
		}
		this.ctx = undefined;
	}
}
