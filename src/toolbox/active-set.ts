// Which forged tools pi offers the model as tools of their own: pinned ones, then the most recently and most often
// used (or forged), up to a ceiling. Every other tool is one list_forge + use_forge_tool away. Pure.
import type { RegistryEntry } from "../store/registry.ts";
import type { ToolHealth } from "./health.ts";

export interface ActiveCandidate {
	entry: RegistryEntry;
	health?: ToolHealth;
	healthy: boolean;
}

/** Recency counts most (a day-old use ≈ 1 point), frequency adds a little (log of calls). */
export function activityScore(candidate: ActiveCandidate, now: Date): number {
	const lastUse = candidate.health?.lastUsedAt ?? "";
	const touched = Math.max(Date.parse(lastUse) || 0, Date.parse(candidate.entry.updatedAt) || 0);
	const ageDays = touched ? Math.max(0, (now.getTime() - touched) / 86_400_000) : 365;
	return 1 / (1 + ageDays) + Math.log10(1 + (candidate.health?.calls ?? 0)) / 10;
}

export function selectActive(candidates: ActiveCandidate[], pinned: readonly string[], limit: number, now: Date): string[] {
	const healthy = candidates.filter((c) => c.healthy);
	const pinnedNames = healthy.filter((c) => pinned.includes(c.entry.name)).map((c) => c.entry.name);
	const rest = healthy
		.filter((c) => !pinned.includes(c.entry.name))
		.map((c) => ({ name: c.entry.name, score: activityScore(c, now) }))
		.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
		.map((c) => c.name);
	return [...pinnedNames, ...rest].slice(0, Math.max(limit, pinnedNames.length));
}
