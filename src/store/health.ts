// Per-tool usage and health (calls, failures, last use, last error), kept in `.forge-health.json` beside the tools.
// A last error is kept with its secrets redacted (a tool's thrown message may carry a key), in a file only its owner reads.
// The file is in the toolbox folder, which a cloned repository fills: a link there is neither read nor written through.
import { join } from "node:path";
import type { ForgeErrorData } from "../contract/forge-error.ts";
import { isForgeableName } from "../contract/names.ts";
import { redactSecrets } from "../security/redact.ts";
import { readRegular, writeAtomic } from "./safe-fs.ts";

export interface ToolHealth {
	calls: number;
	failures: number;
	consecutiveFailures: number;
	lastUsedAt?: string;
	lastDurationMs?: number;
	lastError?: ForgeErrorData;
}

export const HEALTH_FILE = ".forge-health.json";
const FILE_MODE = 0o600;

export class HealthStore {
	private readonly tools = new Map<string, ToolHealth>();
	private pending: Promise<void> | undefined;
	private dirty = false;

	constructor(
		private readonly dir: string,
		/** Values of the sensitive environment variables, hidden wherever they appear in a stored error. */
		private readonly secretValues: string[],
		private readonly flushDelayMs = 250,
	) {}

	async load(): Promise<void> {
		try {
			const data = JSON.parse((await readRegular(join(this.dir, HEALTH_FILE))) ?? "{}") as {
				tools?: Record<string, ToolHealth>;
			};
			for (const [name, health] of Object.entries(data.tools ?? {})) {
				// Only a name a tool could have is kept (the file is the repository's as much as the user's).
				if (!isForgeableName(name) || typeof health !== "object" || health === null) continue;
				// A file written before errors were redacted is redacted now, and written again.
				const lastError = health.lastError && this.scrub(health.lastError);
				if (lastError && JSON.stringify(lastError) !== JSON.stringify(health.lastError)) this.scheduleFlush();
				this.tools.set(name, lastError ? { ...health, lastError } : health);
			}
		} catch {
			// Missing or unreadable: usage history starts afresh; it is never needed to run a tool.
		}
	}

	get(name: string): ToolHealth | undefined {
		return this.tools.get(name);
	}

	/** `denied`: the call failed on a refused permission; it counts as a call, not as a failure. */
	record(
		name: string,
		outcome: { ok: boolean; denied?: boolean; durationMs: number; at: Date; error?: ForgeErrorData },
	): void {
		const health = this.tools.get(name) ?? { calls: 0, failures: 0, consecutiveFailures: 0 };
		health.calls += 1;
		health.lastUsedAt = outcome.at.toISOString();
		health.lastDurationMs = Math.round(outcome.durationMs * 100) / 100;
		if (outcome.ok) {
			health.consecutiveFailures = 0;
		} else if (!outcome.denied) {
			health.failures += 1;
			health.consecutiveFailures += 1;
			health.lastError = outcome.error && this.scrub(outcome.error);
		}
		this.tools.set(name, health);
		this.scheduleFlush();
	}

	/** A new version starts with a clean slate of consecutive failures (it leaves quarantine). */
	reset(name: string): void {
		const health = this.tools.get(name);
		if (!health || health.consecutiveFailures === 0) return;
		health.consecutiveFailures = 0;
		this.scheduleFlush();
	}

	/** Takes over a tool's record from another toolbox's (the tool moved between toolboxes). */
	adopt(name: string, health: ToolHealth): void {
		this.tools.set(name, structuredClone(health));
		this.scheduleFlush();
	}

	delete(name: string): void {
		if (this.tools.delete(name)) this.scheduleFlush();
	}

	/** The error with credentials and secret values redacted from its texts. */
	private scrub(error: ForgeErrorData): ForgeErrorData {
		const redact = (text: unknown) => (typeof text === "string" ? redactSecrets(text, this.secretValues) : text);
		return {
			...error,
			message: redact(error.message) as string,
			...(error.hint === undefined ? {} : { hint: redact(error.hint) as string }),
		};
	}

	private scheduleFlush(): void {
		this.dirty = true;
		this.pending ??= new Promise<void>((resolve) => setTimeout(resolve, this.flushDelayMs).unref()).then(() =>
			this.flush(),
		);
	}

	/** Writes pending changes now (also called at shutdown). */
	async flush(): Promise<void> {
		this.pending = undefined;
		if (!this.dirty) return;
		this.dirty = false;
		const data = { tools: Object.fromEntries([...this.tools].sort(([a], [b]) => a.localeCompare(b))) };
		try {
			// Renamed over the file: a link at its place is replaced, never written through.
			await writeAtomic(join(this.dir, HEALTH_FILE), `${JSON.stringify(data, null, "\t")}\n`, {
				durable: true,
				mode: FILE_MODE,
			});
		} catch {
			this.dirty = true;
		}
	}
}
