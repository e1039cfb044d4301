// Which forged tools pi offers the model as tools of their own: tools forged in this run (promised to the next
// prompt), pinned ones, then the most recently and most often used (or forged), up to a ceiling. Every other tool is
// one list_forge + use_forge_tool away. Pure.

import type { ToolHealth } from "../store/health.ts";
import type { RegistryEntry } from "../store/registry.ts";

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

/** Tools forged in one run may together exceed the per-turn budget up to this factor, for the prompt that follows. */
export const FRESH_BUDGET_FACTOR = 4;

/**
 * Whether a tool forged in this run can be promised to the next prompt, given those already promised: at most `limit`
 * of them and `FRESH_BUDGET_FACTOR` × `budget` characters together. The first always can.
 */
export function admitsFresh(
	promised: readonly RegistryEntry[],
	entry: RegistryEntry,
	limit: number,
	budget: number,
): boolean {
	const others = promised.filter((e) => e.name !== entry.name);
	if (others.length < promised.length || others.length === 0) return true;
	const spent = others.reduce((sum, e) => sum + promptCost(e), 0);
	return others.length + 1 <= limit && spent + promptCost(entry) <= FRESH_BUDGET_FACTOR * budget;
}

export interface Offer {
	/** Offered as tools of their own. */
	active: string[];
	/** Healthy tools left out, the busiest first. */
	left: string[];
}

export interface OfferOptions {
	pinned: readonly string[];
	limit: number;
	now: Date;
	budget?: number;
	/** Tools promised to the next prompt (forged in this run): they go in first, whatever the budget. */
	fresh?: readonly string[];
}

/**
 * Tools forged in this run and pinned tools always go in; then the busiest, while both the count (`limit`) and the
 * characters they add to every turn (`budget`) allow; a tool too big for what is left is skipped for smaller ones.
 * Fresh tools use the budget first, so older unused tools make room for them.
 */
export function selectOffer(candidates: readonly ActiveCandidate[], options: OfferOptions): Offer {
	const { pinned, limit, now, budget = Number.POSITIVE_INFINITY, fresh = [] } = options;
	const healthy = candidates.filter((c) => c.healthy);
	const first = new Set([...fresh, ...pinned]);
	const chosen = healthy.filter((c) => first.has(c.entry.name));
	let spent = chosen.reduce((sum, c) => sum + promptCost(c.entry), 0);
	const ranked = healthy
		.filter((c) => !first.has(c.entry.name))
		.map((c) => ({ candidate: c, score: activityScore(c, now) }))
		.sort((a, b) => b.score - a.score || a.candidate.entry.name.localeCompare(b.candidate.entry.name));
	const left: string[] = [];
	for (const { candidate } of ranked) {
		// Unpriced when the set is full, or when even the least the tool can cost (an empty schema) is over the budget
		// left: 10,000 schemas are not stringified at pi's start.
		const least = candidate.entry.name.length + candidate.entry.description.length + 32;
		const cost =
			chosen.length >= limit || spent + least > budget ? Number.POSITIVE_INFINITY : promptCost(candidate.entry);
		if (spent + cost > budget || chosen.length >= limit) {
			left.push(candidate.entry.name);
			continue;
		}
		chosen.push(candidate);
		spent += cost;
	}
	return { active: chosen.map((c) => c.entry.name), left };
}

/** The names `selectOffer` makes active (no fresh tools). */
export function selectActive(
	candidates: ActiveCandidate[],
	pinned: readonly string[],
	limit: number,
	now: Date,
	budget = Number.POSITIVE_INFINITY,
): string[] {
	return selectOffer(candidates, { pinned, limit, now, budget }).active;
}
