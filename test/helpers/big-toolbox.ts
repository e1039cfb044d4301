/**
 * big-toolbox: writes a large, realistic toolbox straight in the on-disk format (no forge pipeline, so 10,000 tools
 * take seconds), for end-to-end tests and the benches.
 *
 *   const names = await generateToolbox(join(cwd, ".pi", "forge", "extensions"), 1000, { seed: 7, plant: [myTool] });
 *
 * - Every tool is a real one: `forge-<name>.ts` rendered from the forge's template, `forge-<name>.json` with its
 *   hash (and, for two tools in three, example tests marked verified), and `forge-registry.json` with the files'
 *   real size/mtime stamps, so `Toolbox.open()` trusts the toolbox as it would one forged a tool at a time
 *   (nothing re-derived, nothing broken).
 * - Generated tools are named verb-object[-qualifier] (`count-csv-rows`, `validate-email-batch`), drawn without
 *   repetition from 36 verbs × 56 objects × 16 qualifiers (a numeric suffix beyond 32,256), with varied descriptions,
 *   1–4 described parameters and pure logic that returns something simple derived from its parameters (no files, no
 *   network, no capability needed). They are plausible distractors for search.
 * - Deterministic for a seed: the same (seed, count) writes the same files, and a smaller count with the same seed
 *   writes a prefix of a larger one's tools. Only the stamps (mtimes) differ from one run to the next.
 * - Write into a new or empty directory: `forge-registry.json` is replaced and lists only the tools written here
 *   (other tool files already there would be found stale and re-derived at open()).
 * - Planted tools are written as given (version 1, no tests), dated before every generated tool: in a big toolbox
 *   they are not in the active set (most recently used/updated first), so the model reaches them through list_forge.
 *   A generated name equal to a planted one is skipped.
 */
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isForgeableName } from "../../src/contract/names.ts";
import {
	hashSource,
	jsonFileOf,
	REGISTRY_FILE,
	serializeMeta,
	type ToolMeta,
	tsFileOf,
} from "../../src/contract/tool-files.ts";
import type { ToolTest } from "../../src/contract/tool-tests.ts";
import { renderTool } from "../../src/forge/render.ts";
import { entryFromMeta, type RegistryEntry, serializeRegistry } from "../../src/store/registry.ts";
import { loadTemplate } from "../../src/store/template-file.ts";

export interface PlantedTool {
	name: string;
	description: string;
	parametersSchema: Record<string, unknown>;
	logic: string;
}

export interface GeneratedTool extends PlantedTool {
	version: number;
	createdAt: string;
	updatedAt: string;
	/** Example calls (they pass); present on about two tools in three. */
	tests?: ToolTest[];
	/** Valid arguments for a call. */
	sampleArgs: Record<string, unknown>;
}

// ---- vocabulary -------------------------------------------------------------------------------------------------

type Kind = "text" | "list" | "numbers";
type Shape = "list" | "count" | "check" | "encode" | "stats";

interface Verb {
	slug: string;
	/** Sentence openings; `{o}` is the object's phrase. */
	says: string[];
	shape: Shape;
	/** Key of the returned object holding the result. */
	key: string;
}

const VERBS: Verb[] = [
	{
		slug: "parse",
		says: ["Parses {o}", "Reads {o} into structured records", "Turns {o} into objects"],
		shape: "list",
		key: "records",
	},
	{
		slug: "format",
		says: ["Pretty-prints {o}", "Reformats {o} consistently", "Lays out {o} for reading"],
		shape: "list",
		key: "formatted",
	},
	{
		slug: "count",
		says: ["Counts the entries in {o}", "Tallies {o}", "Returns how many items {o} holds"],
		shape: "count",
		key: "count",
	},
	{
		slug: "extract",
		says: ["Extracts values from {o}", "Pulls the interesting parts out of {o}", "Picks fields out of {o}"],
		shape: "list",
		key: "values",
	},
	{
		slug: "summarize",
		says: ["Summarizes {o}", "Gives a short overview of {o}", "Condenses {o}"],
		shape: "stats",
		key: "summary",
	},
	{
		slug: "validate",
		says: ["Validates {o}", "Checks that {o} is well formed", "Verifies {o} against the usual rules"],
		shape: "check",
		key: "valid",
	},
	{
		slug: "convert",
		says: ["Converts {o} to another representation", "Transforms {o}", "Translates {o} into JSON"],
		shape: "encode",
		key: "converted",
	},
	{
		slug: "find",
		says: ["Finds entries in {o}", "Searches {o}", "Looks up matching items in {o}"],
		shape: "list",
		key: "matches",
	},
	{
		slug: "list",
		says: ["Lists the entries of {o}", "Enumerates {o}", "Shows every item in {o}"],
		shape: "list",
		key: "entries",
	},
	{
		slug: "check",
		says: ["Checks {o} for problems", "Inspects {o} for mistakes", "Audits {o}"],
		shape: "check",
		key: "ok",
	},
	{
		slug: "measure",
		says: ["Measures {o}", "Computes size figures over {o}", "Reports lengths within {o}"],
		shape: "stats",
		key: "figures",
	},
	{
		slug: "diff",
		says: ["Diffs two versions of {o}", "Compares {o} line by line", "Shows what changed in {o}"],
		shape: "list",
		key: "changes",
	},
	{
		slug: "merge",
		says: ["Merges several pieces of {o}", "Combines {o} into one", "Joins {o} together"],
		shape: "encode",
		key: "merged",
	},
	{
		slug: "split",
		says: ["Splits {o} into parts", "Breaks {o} into chunks", "Cuts {o} into pieces"],
		shape: "list",
		key: "parts",
	},
	{
		slug: "filter",
		says: ["Filters {o}", "Keeps only the wanted items of {o}", "Drops unwanted entries from {o}"],
		shape: "list",
		key: "kept",
	},
	{ slug: "sort", says: ["Sorts {o}", "Orders {o}", "Ranks the entries of {o}"], shape: "list", key: "sorted" },
	{
		slug: "group",
		says: ["Groups the entries of {o}", "Buckets {o} by key", "Clusters {o}"],
		shape: "stats",
		key: "groups",
	},
	{
		slug: "rename",
		says: ["Renames keys in {o}", "Relabels the fields of {o}", "Changes names used in {o}"],
		shape: "encode",
		key: "renamed",
	},
	{
		slug: "normalize",
		says: ["Normalizes {o}", "Cleans up {o}", "Canonicalizes {o}"],
		shape: "encode",
		key: "normalized",
	},
	{
		slug: "dedupe",
		says: ["Removes duplicates from {o}", "De-duplicates {o}", "Collapses repeated items of {o}"],
		shape: "list",
		key: "unique",
	},
	{
		slug: "hash",
		says: ["Hashes {o}", "Computes fingerprints of {o}", "Derives stable checksums for {o}"],
		shape: "encode",
		key: "hashes",
	},
	{
		slug: "encode",
		says: ["Encodes {o}", "Escapes {o} for transport", "Serializes {o}"],
		shape: "encode",
		key: "encoded",
	},
	{ slug: "decode", says: ["Decodes {o}", "Unescapes {o}", "Deserializes {o}"], shape: "encode", key: "decoded" },
	{
		slug: "lint",
		says: ["Lints {o}", "Flags style issues in {o}", "Reports suspicious patterns in {o}"],
		shape: "check",
		key: "warnings",
	},
	{
		slug: "scan",
		says: ["Scans {o}", "Sweeps through {o}", "Walks over {o} looking for markers"],
		shape: "list",
		key: "hits",
	},
	{ slug: "score", says: ["Scores {o}", "Rates {o}", "Grades the quality of {o}"], shape: "stats", key: "score" },
	{
		slug: "redact",
		says: ["Redacts sensitive parts of {o}", "Masks private values in {o}", "Hides secrets in {o}"],
		shape: "encode",
		key: "redacted",
	},
	{
		slug: "sample",
		says: ["Samples {o}", "Picks a few representative items of {o}", "Takes a subset of {o}"],
		shape: "list",
		key: "sample",
	},
	{
		slug: "index",
		says: ["Indexes {o}", "Builds a lookup table from {o}", "Maps each key of {o} to its position"],
		shape: "stats",
		key: "index",
	},
	{
		slug: "trim",
		says: ["Trims {o}", "Strips whitespace and noise from {o}", "Tidies the edges of {o}"],
		shape: "encode",
		key: "trimmed",
	},
	{
		slug: "rank",
		says: ["Ranks {o} by frequency", "Orders {o} by how common each item is", "Finds the most frequent items of {o}"],
		shape: "stats",
		key: "top",
	},
	{
		slug: "preview",
		says: ["Previews {o}", "Shows the first items of {o}", "Gives a peek at {o}"],
		shape: "list",
		key: "preview",
	},
	{
		slug: "explain",
		says: ["Explains {o}", "Describes {o} in plain words", "Annotates {o}"],
		shape: "list",
		key: "notes",
	},
	{
		slug: "annotate",
		says: ["Annotates {o} with positions", "Numbers the items of {o}", "Labels each entry of {o}"],
		shape: "list",
		key: "annotated",
	},
	{
		slug: "compress",
		says: ["Compresses {o}", "Shortens {o}", "Squeezes repeated runs out of {o}"],
		shape: "encode",
		key: "compressed",
	},
	{
		slug: "tally",
		says: ["Tallies distinct values in {o}", "Counts each distinct item of {o}", "Builds a histogram of {o}"],
		shape: "stats",
		key: "tally",
	},
];

interface Obj {
	slug: string;
	phrase: string;
	kind: Kind;
	param: string;
	paramText: string;
	/** Where the generated description says it is useful. */
	context: string;
	/** For text: the separator between items. */
	sep?: string;
	/** Sample value for calls and tests. */
	sample: string | string[] | number[];
}

const T = (
	slug: string,
	phrase: string,
	param: string,
	paramText: string,
	context: string,
	sep: string,
	sample: string,
): Obj => ({ slug, phrase, kind: "text", param, paramText, context, sep, sample });
const L = (slug: string, phrase: string, param: string, paramText: string, context: string, sample: string[]): Obj => ({
	slug,
	phrase,
	kind: "list",
	param,
	paramText,
	context,
	sample,
});
const N = (slug: string, phrase: string, param: string, paramText: string, context: string, sample: number[]): Obj => ({
	slug,
	phrase,
	kind: "numbers",
	param,
	paramText,
	context,
	sample,
});

const OBJECTS: Obj[] = [
	T(
		"csv",
		"CSV text",
		"csv",
		"CSV text with a header row.",
		"spreadsheets and data exports",
		"\n",
		"name,size\nalpha,1\nbeta,2",
	),
	T(
		"tsv",
		"tab-separated values",
		"tsv",
		"Tab-separated text, one record per line.",
		"data exports",
		"\n",
		"a\t1\nb\t2",
	),
	T("json", "a JSON document", "json", "The JSON text.", "API responses and config files", ",", '{"a":1,"b":[2,3]}'),
	T(
		"yaml",
		"a YAML document",
		"yaml",
		"The YAML text.",
		"Kubernetes manifests and CI configs",
		"\n",
		"name: web\nreplicas: 2",
	),
	T(
		"toml",
		"a TOML file's text",
		"toml",
		"The TOML text.",
		"Rust and Python project settings",
		"\n",
		'[package]\nname = "x"',
	),
	T("ini", "INI settings", "ini", "The INI text.", "legacy configuration", "\n", "[core]\nbare = false"),
	T("xml", "an XML document", "xml", "The XML text.", "feeds and legacy APIs", ">", "<a><b>1</b></a>"),
	T(
		"html",
		"an HTML page's markup",
		"html",
		"The HTML markup.",
		"scraped pages and templates",
		">",
		"<p>Hello <b>world</b></p>",
	),
	T(
		"markdown",
		"Markdown text",
		"markdown",
		"The Markdown source.",
		"docs and READMEs",
		"\n",
		"# Title\n\nSome *text*.",
	),
	T(
		"readme",
		"a README",
		"readme",
		"The README's text.",
		"project documentation",
		"\n",
		"# Project\nInstall with npm.",
	),
	T("changelog", "a CHANGELOG", "changelog", "The CHANGELOG text.", "release notes", "\n", "## 1.2.0\n- Fixed a bug"),
	T(
		"log",
		"log lines",
		"log",
		"Log text, one entry per line.",
		"server logs and CI output",
		"\n",
		"INFO start\nWARN slow\nERROR failed",
	),
	T(
		"stack",
		"a stack trace",
		"trace",
		"The stack trace text.",
		"crash reports",
		"\n",
		"Error: boom\n    at f (a.js:1:2)",
	),
	T(
		"gitlog",
		"git log output",
		"log",
		"Output of git log --oneline.",
		"release preparation",
		"\n",
		"abc123 Fix parser\ndef456 Add tests",
	),
	T("gitdiff", "a unified diff", "patch", "The diff text.", "code review", "\n", "--- a/x\n+++ b/x\n-old\n+new"),
	T("sql", "SQL statements", "sql", "One or more SQL statements.", "database migrations", ";", "select 1; select 2"),
	T("graphql", "a GraphQL schema", "schema", "The GraphQL SDL.", "API design", "\n", "type Query {\n  me: User\n}"),
	T("regex", "a regular expression", "pattern", "The regular expression source.", "text matching", "|", "a+|b*"),
	T(
		"dockerfile",
		"a Dockerfile",
		"dockerfile",
		"The Dockerfile text.",
		"container builds",
		"\n",
		"FROM node:20\nRUN npm ci",
	),
	T("envfile", "a .env file's text", "env", "Lines of KEY=value.", "local configuration", "\n", "PORT=3000\nDEBUG=1"),
	T(
		"pkgjson",
		"package.json content",
		"manifest",
		"The package.json text.",
		"npm projects",
		",",
		'{"name":"x","version":"1.0.0"}',
	),
	T(
		"tsconfig",
		"tsconfig.json content",
		"config",
		"The tsconfig.json text.",
		"TypeScript projects",
		",",
		'{"compilerOptions":{"strict":true}}',
	),
	T("crontab", "crontab entries", "crontab", "Crontab lines.", "scheduled jobs", "\n", "0 3 * * * backup"),
	T("jwt", "a JWT", "token", "The encoded token.", "authentication debugging", ".", "aaa.bbb.ccc"),
	T("base64", "base64 text", "data", "The base64 text.", "binary payloads", "=", "aGVsbG8="),
	T(
		"headers",
		"HTTP headers",
		"headers",
		"Raw HTTP headers, one per line.",
		"web debugging",
		"\n",
		"Content-Type: text/html\nVary: Accept",
	),
	T("cookie", "a Cookie header", "cookie", "The Cookie header value.", "web sessions", ";", "a=1; b=2"),
	T("query", "a URL query string", "query", "The query string (without ?).", "web requests", "&", "a=1&b=2"),
	T(
		"junit",
		"a JUnit report",
		"report",
		"The JUnit XML report.",
		"test results in CI",
		">",
		'<testsuite tests="2"></testsuite>',
	),
	T("lcov", "an lcov coverage report", "lcov", "The lcov text.", "test coverage", "\n", "SF:a.ts\nLF:10\nLH:8"),
	T("svg", "SVG markup", "svg", "The SVG source.", "icons and diagrams", ">", '<svg><path d="M0 0"/></svg>'),
	T(
		"prose",
		"prose text",
		"text",
		"Any natural-language text.",
		"writing and reviews",
		" ",
		"The quick brown fox jumps.",
	),
	T("code", "source code", "source", "A source file's text.", "refactoring", "\n", "const a = 1;\nfunction f() {}"),
	T(
		"todos",
		"TODO comments",
		"source",
		"Source text that may contain TODO and FIXME comments.",
		"code clean-ups",
		"\n",
		"// TODO: fix\nx();\n// FIXME later",
	),
	T(
		"imports",
		"import statements",
		"source",
		"A module's source text.",
		"dependency reviews",
		"\n",
		"import a from 'a';\nimport { b } from 'b';",
	),
	T(
		"licence",
		"a licence text",
		"licence",
		"The licence text.",
		"open-source compliance",
		"\n",
		"MIT License\nCopyright (c)",
	),
	L("urls", "URLs", "urls", "The URLs.", "link checking", ["https://a.example/x", "http://b.example"]),
	L("emails", "e-mail addresses", "addresses", "The e-mail addresses.", "mailing lists", [
		"a@example.com",
		"b@example.org",
	]),
	L("dates", "dates and times", "dates", "ISO 8601 dates or date-times.", "scheduling", [
		"2024-01-02",
		"2024-03-04T05:06:07Z",
	]),
	L("semver", "semver versions", "versions", "Version strings such as 1.2.3.", "dependency upgrades", [
		"1.2.3",
		"2.0.0-beta.1",
	]),
	L("ips", "IP addresses", "addresses", "IPv4 or IPv6 addresses.", "network audits", ["10.0.0.1", "::1"]),
	L("cidrs", "CIDR blocks", "blocks", "CIDR notation ranges.", "firewall rules", ["10.0.0.0/8", "192.168.1.0/24"]),
	L("uuids", "UUIDs", "ids", "The UUIDs.", "database keys", ["123e4567-e89b-12d3-a456-426614174000"]),
	L("colors", "CSS colors", "colors", "Colors as hex, rgb() or names.", "theming", ["#ff0000", "rgb(0, 0, 255)"]),
	L("paths", "file paths", "paths", "File paths, relative or absolute.", "build scripts", ["src/a.ts", "README.md"]),
	L("hosts", "host names", "hosts", "DNS host names.", "deployments", ["api.example.com", "db.internal"]),
	L("branches", "git branch names", "branches", "Branch names.", "repository hygiene", ["main", "feature/login"]),
	L("tags", "tags and labels", "tags", "Free-form tags.", "issue triage", ["bug", "ui", "p1"]),
	L("phones", "phone numbers", "numbers", "Phone numbers in any common notation.", "contact data", [
		"+1 555 0100",
		"020 7946 0000",
	]),
	L("keywords", "search keywords", "keywords", "Keywords or phrases.", "SEO work", ["fast shoes", "running"]),
	L("mimes", "MIME types", "types", "MIME types such as text/html.", "upload handling", ["text/html", "image/png"]),
	L("locales", "locale codes", "locales", "BCP 47 locale codes.", "translations", ["en-GB", "fr"]),
	N("latencies", "latency samples", "samples", "Durations in milliseconds.", "performance tuning", [12, 15, 40, 9]),
	N("prices", "prices", "prices", "Amounts in the same currency.", "invoices and budgets", [9.99, 20, 3.5]),
	N("sizes", "file sizes", "bytes", "Sizes in bytes.", "disk usage reviews", [1024, 2048, 512]),
	N("scores", "numeric scores", "values", "The numbers.", "benchmarks and grading", [3, 7, 9, 1]),
];

interface Qualifier {
	slug: string;
	says: string;
}

const QUALIFIERS: Qualifier[] = [
	{ slug: "", says: "" },
	{ slug: "rows", says: ", row by row" },
	{ slug: "fields", says: " and lists its fields" },
	{ slug: "stats", says: " and reports statistics" },
	{ slug: "errors", says: " and reports errors with their positions" },
	{ slug: "keys", says: " and returns the keys it found" },
	{ slug: "brief", says: " into a short digest" },
	{ slug: "lines", says: ", returning the matching lines" },
	{ slug: "fast", says: " (a faster variant that skips rare cases)" },
	{ slug: "batch", says: " for many inputs at once" },
	{ slug: "strict", says: " with strict rules" },
	{ slug: "loose", says: ", tolerating malformed input" },
	{ slug: "top", says: ", keeping only the top entries" },
	{ slug: "table", says: " as a table" },
	{ slug: "diffable", says: " in a stable, diff-friendly order" },
	{ slug: "safe", says: " without touching the original" },
];

const TAILS = [
	"Use it when you work with {c}.",
	"Handy for {c}.",
	"Returns JSON.",
	"Meant for {c}.",
	"",
	"Works on {c}.",
	"Output is compact.",
	"Common in {c}.",
];

interface Extra {
	name: string;
	schema: (r: Rng) => Record<string, unknown>;
}

const EXTRAS: Extra[] = [
	{
		name: "limit",
		schema: (r) => ({
			type: "integer",
			minimum: 1,
			default: 5 + r.int(96),
			description: "At most this many results.",
		}),
	},
	{
		name: "caseSensitive",
		schema: () => ({ type: "boolean", default: false, description: "Match letter case exactly." }),
	},
	{ name: "unique", schema: () => ({ type: "boolean", default: false, description: "Drop repeated items first." }) },
	{ name: "descending", schema: () => ({ type: "boolean", default: false, description: "Largest or last first." }) },
	{ name: "contains", schema: () => ({ type: "string", description: "Keep only items containing this text." }) },
	{ name: "prefix", schema: () => ({ type: "string", description: "Text put before every item of the output." }) },
	{
		name: "format",
		schema: (r) => ({
			type: "string",
			enum: r.pick([
				["json", "text", "table"],
				["json", "csv"],
				["short", "long"],
			]),
			description: "Shape of the output.",
		}),
	},
	{
		name: "minLength",
		schema: (r) => ({
			type: "integer",
			minimum: 0,
			default: r.int(3),
			description: "Ignore items shorter than this.",
		}),
	},
];

// ---- generation -------------------------------------------------------------------------------------------------

/** mulberry32: small, fast, deterministic. */
class Rng {
	private state: number;
	constructor(seed: number) {
		this.state = seed >>> 0 || 0x9e3779b9;
	}
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}
	int(n: number): number {
		return Math.floor(this.next() * n);
	}
	pick<X>(xs: readonly X[]): X {
		return xs[this.int(xs.length)];
	}
}

const COMBOS = VERBS.length * OBJECTS.length * QUALIFIERS.length;
/** Dates: generated tool `i` was created `i` hours after this; planted tools a month before it. */
const EPOCH = Date.UTC(2025, 0, 1);

/** The order in which combinations are drawn for a seed (a permutation of all of them). */
function comboOrder(seed: number): Uint32Array {
	const order = new Uint32Array(COMBOS);
	for (let i = 0; i < COMBOS; i++) order[i] = i;
	const rng = new Rng(seed ^ 0x5bd1e995);
	for (let i = COMBOS - 1; i > 0; i--) {
		const j = rng.int(i + 1);
		[order[i], order[j]] = [order[j], order[i]];
	}
	return order;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Generated tool number `i` (0-based) for `seed`; `combo` is its verb × object × qualifier, `round` > 0 past all combinations. */
function buildTool(i: number, combo: number, round: number, seed: number): GeneratedTool {
	const rng = new Rng((seed * 0x9e3779b1) ^ (combo * 0x85ebca6b) ^ (round * 0xc2b2ae35));
	const verb = VERBS[combo % VERBS.length];
	const obj = OBJECTS[Math.floor(combo / VERBS.length) % OBJECTS.length];
	const qual = QUALIFIERS[Math.floor(combo / (VERBS.length * OBJECTS.length))];
	const name = [verb.slug, obj.slug, qual.slug, round ? String(round + 1) : ""].filter(Boolean).join("-");

	// Parameters: the object's input, then 0–3 extras.
	const input: Record<string, unknown> =
		obj.kind === "text"
			? { type: "string", description: obj.paramText }
			: obj.kind === "list"
				? { type: "array", items: { type: "string" }, minItems: 1, description: obj.paramText }
				: { type: "array", items: { type: "number" }, minItems: 1, description: obj.paramText };
	const properties: Record<string, unknown> = { [obj.param]: input };
	const extras = new Set<string>();
	const want = rng.int(4);
	for (let k = 0; k < want; k++) {
		const extra = rng.pick(EXTRAS);
		if (extras.has(extra.name) || extra.name === obj.param) continue;
		extras.add(extra.name);
		properties[extra.name] = extra.schema(rng);
	}
	const has = (p: string) => extras.has(p);

	// Description: an opening for the verb, the qualifier, sometimes a tail naming where it helps.
	const tail = rng.pick(TAILS).replace("{c}", obj.context);
	const description = `${capitalize(rng.pick(verb.says).replace("{o}", obj.phrase))}${qual.says}.${tail ? ` ${tail}` : ""}`;

	const logic = buildLogic(obj, verb, has, i);
	const sampleArgs: Record<string, unknown> = { [obj.param]: obj.sample };
	const version = 1 + rng.int(4);
	const created = new Date(EPOCH + i * 3_600_000);
	const tests: ToolTest[] | undefined = rng.int(3) === 0 ? undefined : [{ args: sampleArgs, expect: `"${verb.key}"` }];
	return {
		name,
		description,
		parametersSchema: { type: "object", properties, required: [obj.param] },
		logic,
		version,
		createdAt: created.toISOString(),
		updatedAt: new Date(created.getTime() + version * 86_400_000).toISOString(),
		tests,
		sampleArgs,
	};
}

/** Pure logic over the declared parameters only; returns `{ [verb.key]: …, total }` (as JSON text once normalised). */
function buildLogic(obj: Obj, verb: Verb, has: (p: string) => boolean, i: number): string {
	const p = `params.${obj.param}`;
	const lines: string[] = [];
	if (obj.kind === "numbers") {
		lines.push(`let items: number[] = (${p} as number[]).map(Number).filter((x) => Number.isFinite(x));`);
	} else if (obj.kind === "list") {
		lines.push(`let items: string[] = (${p} as unknown[]).map((s) => String(s).trim()).filter(Boolean);`);
	} else {
		lines.push(
			`let items: string[] = String(${p}).split(${JSON.stringify(obj.sep)}).map((s) => s.trim()).filter(Boolean);`,
		);
	}
	if (obj.kind !== "numbers") {
		if (has("caseSensitive")) lines.push(`if (!params.caseSensitive) items = items.map((s) => s.toLowerCase());`);
		if (has("contains"))
			lines.push(`if (params.contains) items = items.filter((s) => s.includes(String(params.contains)));`);
		if (has("minLength")) lines.push(`items = items.filter((s) => s.length >= (params.minLength ?? 0));`);
	}
	if (has("unique")) lines.push(`if (params.unique) items = [...new Set(items)];`);
	if (has("descending"))
		lines.push(
			obj.kind === "numbers"
				? `items.sort((a, b) => (params.descending ? b - a : a - b));`
				: `items.sort();\nif (params.descending) items.reverse();`,
		);
	if (has("limit")) lines.push(`items = items.slice(0, params.limit ?? ${10 + (i % 40)});`);
	const strs = obj.kind === "numbers" ? "items.map(String)" : "items";
	const result = (() => {
		switch (verb.shape) {
			case "count":
				return `items.length`;
			case "check":
				return `${strs}.every((s) => s.length <= ${60 + (i % 200)})`;
			case "encode":
				return `${strs}.map((s) => encodeURIComponent(s))`;
			case "stats":
				return obj.kind === "numbers"
					? `{ min: Math.min(...items), max: Math.max(...items), mean: items.reduce((a, b) => a + b, 0) / (items.length || 1) }`
					: `{ longest: Math.max(0, ...items.map((s) => s.length)), shortest: Math.min(...items.map((s) => s.length)) }`;
			default:
				return has("prefix") ? `${strs}.map((s) => String(params.prefix ?? "") + s)` : strs;
		}
	})();
	lines.push(
		`return { ${verb.key}: ${result}, total: items.length${has("format") ? ', format: params.format ?? "json"' : ""} };`,
	);
	return lines.join("\n");
}

/** The first `count` generated tools for `seed`, avoiding `avoid` names. */
export function generatedTools(count: number, seed = 1, avoid: ReadonlySet<string> = new Set()): GeneratedTool[] {
	const order = comboOrder(seed);
	const tools: GeneratedTool[] = [];
	for (let k = 0; tools.length < count; k++) {
		const tool = buildTool(tools.length, order[k % COMBOS], Math.floor(k / COMBOS), seed);
		if (!avoid.has(tool.name)) tools.push(tool);
	}
	return tools;
}

interface Written {
	meta: ToolMeta;
	source: string;
}

/** Writes `count` generated, varied, realistic tools (plus `plant`) into `toolboxDir` exactly in the on-disk format (forge-<name>.ts rendered from the template, forge-<name>.json, forge-registry.json with real stamps so open() finds it fresh). Deterministic for a seed. Returns all names written. */
export async function generateToolbox(
	toolboxDir: string,
	count: number,
	options: { seed?: number; plant?: PlantedTool[] } = {},
): Promise<string[]> {
	const plant = options.plant ?? [];
	const planted = new Set<string>();
	for (const tool of plant) {
		if (!isForgeableName(tool.name)) throw new Error(`planted tool name '${tool.name}' is not forgeable`);
		if (planted.has(tool.name)) throw new Error(`planted tool name '${tool.name}' is given twice`);
		planted.add(tool.name);
	}
	const template = loadTemplate();
	const generated = generatedTools(count, options.seed ?? 1, planted);
	const plantedAt = new Date(EPOCH - 30 * 86_400_000).toISOString();
	const all: Written[] = [];
	for (const tool of generated) {
		const { source } = renderTool(template, {
			name: tool.name,
			description: tool.description,
			parameters: tool.parametersSchema,
			logic: tool.logic,
		});
		const hash = hashSource(source);
		const tests = tool.tests ? { tests: tool.tests, verifiedHash: hash } : {};
		all.push({
			source,
			meta: {
				name: tool.name,
				description: tool.description,
				parameters: tool.parametersSchema,
				version: tool.version,
				hash,
				createdAt: tool.createdAt,
				updatedAt: tool.updatedAt,
				...tests,
			},
		});
	}
	for (const tool of plant) {
		const { source } = renderTool(template, {
			name: tool.name,
			description: tool.description,
			parameters: tool.parametersSchema,
			logic: tool.logic,
		});
		all.push({
			source,
			meta: {
				name: tool.name,
				description: tool.description,
				parameters: tool.parametersSchema,
				version: 1,
				hash: hashSource(source),
				createdAt: plantedAt,
				updatedAt: plantedAt,
			},
		});
	}

	await mkdir(toolboxDir, { recursive: true });
	const tools: Record<string, RegistryEntry> = {};
	const one = async ({ meta, source }: Written) => {
		const tsPath = join(toolboxDir, tsFileOf(meta.name));
		const jsonPath = join(toolboxDir, jsonFileOf(meta.name));
		await Promise.all([writeFile(tsPath, source), writeFile(jsonPath, serializeMeta(meta))]);
		const [ts, json] = await Promise.all([stat(tsPath), stat(jsonPath)]);
		tools[meta.name] = entryFromMeta(meta, {
			ts: { size: ts.size, mtimeMs: ts.mtimeMs },
			json: { size: json.size, mtimeMs: json.mtimeMs },
		});
	};
	for (let i = 0; i < all.length; i += 256) await Promise.all(all.slice(i, i + 256).map(one));
	await writeFile(join(toolboxDir, REGISTRY_FILE), serializeRegistry({ format: 1, tools }));
	return all.map((w) => w.meta.name);
}
