// "Did you mean …?": the known names nearest to a mistyped one, by edit distance. Pure.

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
	const row = Array.from({ length: b.length + 1 }, (_, i) => i);
	for (let i = 1; i <= a.length; i++) {
		let previous = row[0];
		row[0] = i;
		for (let j = 1; j <= b.length; j++) {
			const current = row[j];
			row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
			previous = current;
		}
	}
	return row[b.length];
}

/** How far a name may be from a candidate and still be a plausible typo of it. */
export const typoDistance = (name: string) => Math.max(2, Math.floor(name.length / 3));

/** The candidates within typo distance of `name` (case-insensitive), nearest first, at most `limit`. */
export function closeNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
	const wanted = name.toLowerCase();
	const scored: Array<{ name: string; distance: number }> = [];
	for (const candidate of candidates) {
		const distance = editDistance(wanted, candidate.toLowerCase());
		const contains =
			wanted.length >= 3 && (candidate.toLowerCase().includes(wanted) || wanted.includes(candidate.toLowerCase()));
		if (distance <= typoDistance(name) || contains) scored.push({ name: candidate, distance });
	}
	return scored
		.sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name))
		.slice(0, limit)
		.map((s) => s.name);
}

/**
 * The one candidate a name most plausibly meant: the nearest within half its length, or the only candidate there is.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
	let best: { name: string; distance: number } | undefined;
	for (const candidate of candidates) {
		const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
		if (!best || distance < best.distance) best = { name: candidate, distance };
	}
	return best && best.distance <= Math.max(2, Math.floor(name.length / 2))
		? best.name
		: candidates.length === 1
			? candidates[0]
			: undefined;
}
