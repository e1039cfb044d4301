// Forge Tiers: the status bar's measure of a toolbox, by its number of healthy tools.

export interface Tier {
	name: string;
	/** Fewest healthy tools for this tier. */
	min: number;
}

export const TIERS: readonly Tier[] = [
	{ name: "Cold Anvil", min: 0 },
	{ name: "Apprentice", min: 1 },
	{ name: "Journeyman", min: 3 },
	{ name: "Artisan", min: 10 },
	{ name: "Master Smith", min: 25 },
	{ name: "Legendary Forge", min: 100 },
];

export function tierFor(healthy: number): Tier {
	return [...TIERS].reverse().find((tier) => healthy >= tier.min) ?? TIERS[0];
}

/** `Forge Tier: Journeyman (4 tools · 6 to Artisan)`. */
export function statusText(healthy: number): string {
	const tier = tierFor(healthy);
	const next = TIERS[TIERS.indexOf(tier) + 1];
	const tools = `${healthy} tool${healthy === 1 ? "" : "s"}`;
	return `Forge Tier: ${tier.name} (${tools}${next ? ` · ${next.min - healthy} to ${next.name}` : ""})`;
}
