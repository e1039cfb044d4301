// Reuse over duplication: how close a new tool's name and description are to an existing tool's (cosine similarity
// of their word sets, common words left out), so the forge can say "this looks like 'csv-stats'". Pure.

const STOP_WORDS = new Set(
	"a an and are as at be by for from in into is it its of on or that the this to with without tool tools given return returns".split(" "),
);

export function words(text: string): Set<string> {
	return new Set(
		text
			.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
			.toLowerCase()
			.split(/[^a-z0-9]+/)
			.map((word) => (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word))
			.filter((word) => word.length > 1 && !STOP_WORDS.has(word)),
	);
}

export function similarity(a: Set<string>, b: Set<string>): number {
	if (a.size === 0 || b.size === 0) return 0;
	let shared = 0;
	for (const word of a) if (b.has(word)) shared++;
	return shared / Math.sqrt(a.size * b.size);
}

export const SIMILAR_THRESHOLD = 0.6;

/** The existing tool most like `name` + `description`, if close enough to mention. */
export function mostSimilar(
	name: string,
	description: string,
	existing: ReadonlyArray<{ name: string; description: string }>,
): { name: string; description: string; score: number } | undefined {
	const wanted = words(`${name} ${description}`);
	let best: { name: string; description: string; score: number } | undefined;
	for (const tool of existing) {
		if (tool.name === name) continue;
		const score = similarity(wanted, words(`${tool.name} ${tool.description}`));
		if (score >= SIMILAR_THRESHOLD && (!best || score > best.score)) best = { ...tool, score };
	}
	return best;
}
