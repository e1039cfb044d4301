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

/** What a tool costs the model per turn: its name, description and parameters as sent (roughly). */
export function promptCost(entry: RegistryEntry): number {
	return entry.name.length + entry.description.length + JSON.stringify(entry.parameters).length + 30;
}

/**
 * Pinned tools, then the busiest, while both the count (`limit`) and the characters they add to every turn
 * (`budget`) allow; a tool too big for what is left is skipped for smaller ones. Pinned tools always go in.
 */
export function selectActive(candidates: ActiveCandidate[], pinned: readonly string[], limit: number, now: Date, budget = Number.POSITIVE_INFINITY): string[] {
	const healthy = candidates.filter((c) => c.healthy);
	const chosen = healthy.filter((c) => pinned.includes(c.entry.name));
	let spent = chosen.reduce((sum, c) => sum + promptCost(c.entry), 0);
	const ranked = healthy
		.filter((c) => !pinned.includes(c.entry.name))
		.map((c) => ({ candidate: c, score: activityScore(c, now) }))
		.sort((a, b) => b.score - a.score || a.candidate.entry.name.localeCompare(b.candidate.entry.name));
	for (const { candidate } of ranked) {
		if (chosen.length >= limit) break;
		const cost = promptCost(candidate.entry);
		if (spent + cost > budget) continue;
		chosen.push(candidate);
		spent += cost;
	}
	return chosen.map((c) => c.entry.name);
}
