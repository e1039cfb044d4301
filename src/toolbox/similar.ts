// Reuse over duplication: how close a new tool's name and description are to an existing tool's (cosine similarity
// of their word sets, common words left out), so the forge can say "this looks like 'csv-stats'". Opposite jobs that
// share their words (encode/decode, yaml-to-json/json-to-yaml) and jobs on different things (count-lines/count-words)
// are told apart. Pure.

const STOP_WORDS = new Set(
	"a an and are as at be by for from in into is it its of on or that the this to with without tool tools given return returns".split(
		" ",
	),
);

/** Words that say little about which job a tool does: they never make two names different. */
const GENERIC = new Set(
	"get set make build create generate compute calculate run do show print give tell report find scan fetch pick extract list check read write count file text string value data path name input output result number json project".split(
		" ",
	),
);

/** Pairs of words that make two jobs opposite, whatever else they share. */
const OPPOSITES: ReadonlyArray<readonly [string, string]> = [
	["encode", "decode"],
	["encrypt", "decrypt"],
	["compress", "decompress"],
	["zip", "unzip"],
	["serialize", "deserialize"],
	["escape", "unescape"],
	["upper", "lower"],
	["uppercase", "lowercase"],
	["import", "export"],
	["read", "write"],
	["add", "remove"],
	["start", "stop"],
	["enable", "disable"],
	["lock", "unlock"],
	["min", "max"],
	["minimum", "maximum"],
	["first", "last"],
	["push", "pull"],
	["open", "close"],
	["show", "hide"],
	["split", "join"],
	["increment", "decrement"],
	["minify", "prettify"],
];

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

interface Described {
	name: string;
	description: string;
}

/** The existing tool most like `name` + `description`, if close enough to mention (never the tool itself). */
export function mostSimilar(
	name: string,
	description: string,
	existing: ReadonlyArray<Described>,
): { name: string; description: string; score: number } | undefined {
	const wanted = words(`${name} ${description}`);
	let best: { name: string; description: string; score: number } | undefined;
	for (const tool of existing) {
		if (tool.name === name) continue;
		const theirs = words(`${tool.name} ${tool.description}`);
		const score = similarity(wanted, theirs);
		if (score < SIMILAR_THRESHOLD || (best && score <= best.score)) continue;
		if (differentJobs({ name, description }, wanted, tool, theirs)) continue;
		best = { ...tool, score };
	}
	return best;
}

/** Shared words, different jobs: opposite verbs, opposite directions, or names about different things. */
export function differentJobs(a: Described, aWords: Set<string>, b: Described, bWords: Set<string>): boolean {
	return (
		opposite(aWords, bWords) || oppositeDirections(a.name, b.name) || distinctNames(a.name, aWords, b.name, bWords)
	);
}

function opposite(a: Set<string>, b: Set<string>): boolean {
	return OPPOSITES.some(
		([x, y]) => (a.has(x) && b.has(y) && !a.has(y) && !b.has(x)) || (a.has(y) && b.has(x) && !a.has(x) && !b.has(y)),
	);
}

/** `yaml-to-json` and `json-to-yaml`: the same words, the other way round. */
function oppositeDirections(a: string, b: string): boolean {
	const direction = (name: string) => /^(.+?)[-_](?:to|into|2)[-_](.+)$/.exec(name.toLowerCase());
	const [x, y] = [direction(a), direction(b)];
	return !!x && !!y && x[1] === y[2] && x[2] === y[1];
}

/**
 * `count-lines` and `count-words`: each name has a word the other tool never mentions, and neither word is a generic
 * one (`json-get` and `json-pick` differ only in a generic verb, and are one job).
 */
function distinctNames(aName: string, aWords: Set<string>, bName: string, bWords: Set<string>): boolean {
	const own = (name: string, other: Set<string>) =>
		[...words(name)].filter((word) => !GENERIC.has(word) && ![...other].some((o) => related(word, o)));
	return own(aName, bWords).length > 0 && own(bName, aWords).length > 0;
}

/** The same word or one of its forms (`summary`/`summarise`, `stat`/`statistics`): a shared stem of 4-5 letters. */
function related(a: string, b: string): boolean {
	if (a === b) return true;
	const stem = Math.min(5, a.length, b.length);
	return stem >= 4 && a.slice(0, stem) === b.slice(0, stem);
}
