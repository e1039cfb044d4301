// Questions about a tool's past versions: the stored list, one version's source, and a diff between two versions.
import { createTwoFilesPatch } from "diff";
import { ForgeError, fail, ok, type Result } from "../contract/forge-error.ts";
import { hashSource } from "../contract/tool-files.ts";
import type { HistoryEntry } from "../store/history.ts";
import type { ToolboxContext } from "./context.ts";

export class HistoryQueries {
	constructor(private readonly box: ToolboxContext) {}

	versions(name: string): Promise<HistoryEntry[]> {
		return this.box.history.entries(name);
	}

	/** A unified diff between two versions of a tool (stored, or the live one). */
	async diff(name: string, from: number, to: number): Promise<Result<string>> {
		const [a, b] = await Promise.all([this.sourceOf(name, from), this.sourceOf(name, to)]);
		const missing = a === undefined ? from : b === undefined ? to : undefined;
		if (missing !== undefined)
			return fail(new ForgeError("not-found", `'${name}' has no stored version ${missing}.`, { tool: name }));
		return ok(createTwoFilesPatch(`forge-${name}.ts v${from}`, `forge-${name}.ts v${to}`, a!, b!));
	}

	/** A version's source: from the history, else from the files when it is the live version (a read-only open records none). */
	private async sourceOf(name: string, version: number): Promise<string | undefined> {
		const stored = await this.box.history.read(name, version);
		if (stored) return stored.source;
		const entry = this.box.registry.get(name);
		if (entry?.version !== version || entry.status !== "ok") return undefined;
		// A live file that cannot be read (a link is never followed) has no version to show.
		const source = await this.box.store.readSource(name).catch(() => undefined);
		return source !== undefined && hashSource(source) === entry.hash ? source : undefined;
	}
}
