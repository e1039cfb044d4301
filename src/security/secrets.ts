// Finds credentials pasted into a forged tool's source, so the forge can refuse to write them to disk.
// The rules are data, gitleaks-style: a kind, a pattern whose `secret` group (else the whole match) is the credential,
// and an optional check that weeds out placeholders and ordinary words.

export interface SecretFinding {
	kind: string;
	/** 1-based. */
	line: number;
	/** 1-based, in UTF-16 code units like the code frames. */
	column: number;
	/** The first few characters and an ellipsis ("sk-pr…"): never the whole secret. */
	preview: string;
}

/** A finding with the offsets of the credential in the text, for redaction. */
export interface LocatedSecret extends SecretFinding {
	start: number;
	end: number;
}

interface SecretRule {
	kind: string;
	/** How the refusal names it: "an OpenAI API key". */
	label: string;
	/** The environment variable the refusal suggests reading it from. */
	envVar: string;
	/** Flags `d` and `g`; a named group `secret`, when present, is the credential itself. */
	pattern: RegExp;
	/** Extra test on the credential (and the pattern's named groups); a rejected match is no finding. */
	check?: (secret: string, groups: Readonly<Record<string, string | undefined>>) => boolean;
}

/** Credentials run at least this many bits per character; English words and kebab-case names stay below. */
export const MIN_ENTROPY = 3.5;
/** Shorter literals are not flagged by the name-based rules (`password: "hunter2"` is a test fixture, not a leak). */
export const MIN_GENERIC_LENGTH = 16;

/** A line break inside a PEM block: a real one, or the `\n` escape of a string literal. */
const PEM_BREAK = String.raw`(?:\s|\\[rn])`;
const PEM_LABEL = "[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----";
/** What sits between a name and its value: a closing quote or bracket, then `=`, `:`, `:=`, `=>`, `===`… */
const ASSIGN = String.raw`["'\x60]?\]?\s*(?:===?|!==?|=>|:=|\?\?=|\|\|=|[:=])\s*`;
/** `process.env.API_KEY ?? "…"`: the literal fallback is what ends up on disk. Lengths are bounded here and in the
 * name so that a long run of word characters (minified code, base64) costs linear time, not quadratic. */
const FALLBACK = String.raw`(?:[\w$.]{1,80}(?:\[[^\]\n]{0,80}\])?\s*(?:\?\?|\|\|)\s*)?`;
const SECRET_NAME = "(?:api[_-]?key|secret|token|passw(?:or)?d|credential|auth[_-]?key|access[_-]?key|private[_-]?key)";
/** Names that merely mention a secret: `tokenUrl`, `secretName`, `passwordField`, `apiKeyHeader`, `tokenHash`… */
const NOT_A_SECRET_NAME =
	/(?:url|uri|endpoint|path|file|dir|name|type|field|header|prefix|suffix|pattern|regex|regexp|length|count|limit|index|id|ids|arn|env|var|label|format|mask|hash|digest|checksum|placeholder)$/i;

const PLACEHOLDER =
	/your|example|sample|placeholder|dummy|change[_-]?me|replace|redacted|insert|fake|xxxx|\*\*\*|\.\.\.|0123456|123456789|abcdefgh|(.)\1{5,}/i;

export const isPlaceholder = (value: string): boolean => PLACEHOLDER.test(value);
const hasDigit = (value: string): boolean => /\d/.test(value);

/** At least two of lower case, upper case and digits: rules out `my-app-database-creds`. */
function mixesCharacterClasses(value: string): boolean {
	return [/[a-z]/, /[A-Z]/, /\d/].filter((re) => re.test(value)).length >= 2;
}

/** A random-looking literal: long, high entropy, mixed, and not a placeholder. */
export function looksRandom(value: string, minLength = MIN_GENERIC_LENGTH): boolean {
	return (
		value.length >= minLength &&
		shannonEntropy(value) >= MIN_ENTROPY &&
		mixesCharacterClasses(value) &&
		!isPlaceholder(value)
	);
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
	if (value.length === 0) return 0;
	const counts = new Map<string, number>();
	for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
	let bits = 0;
	for (const count of counts.values()) {
		const p = count / value.length;
		bits -= p * Math.log2(p);
	}
	return bits;
}

/** Highest priority first: a match overlapping an earlier rule's finding is dropped. */
const SECRET_RULES: readonly SecretRule[] = [
	// PEM private key (RSA, EC, OPENSSH, PGP…): the header plus at least one line of base64 body, through the END line when
	// present. The header alone is no finding, so a tool that looks for keys in files may name it.
	{
		kind: "private-key",
		label: "a PEM private key",
		envVar: "PRIVATE_KEY",
		pattern: new RegExp(
			`-----BEGIN${PEM_LABEL}${PEM_BREAK}*[A-Za-z0-9+/=]{32,}(?:${PEM_BREAK}+[A-Za-z0-9+/=]{16,})*(?:(?:${PEM_BREAK}+[A-Za-z0-9+/=]{1,15})?${PEM_BREAK}*-----END${PEM_LABEL})?`,
			"dg",
		),
	},
	// Anthropic API key (sk-ant-api03-…, sk-ant-admin01-…): before OpenAI, whose `sk-` prefix it shares.
	{
		kind: "anthropic-api-key",
		label: "an Anthropic API key",
		envVar: "ANTHROPIC_API_KEY",
		pattern: /\bsk-ant-[A-Za-z0-9_-]{32,}/dg,
		check: (secret) => !isPlaceholder(secret),
	},
	// OpenAI API key: legacy sk-<48 characters>, project (sk-proj-…), service-account (sk-svcacct-…) and admin keys.
	{
		kind: "openai-api-key",
		label: "an OpenAI API key",
		envVar: "OPENAI_API_KEY",
		pattern: /\bsk-[A-Za-z0-9_-]{20,}/dg,
		check: (secret) => !secret.startsWith("sk-ant-") && hasDigit(secret) && !isPlaceholder(secret),
	},
	// AWS access key id: AKIA (long-term) or ASIA (temporary credentials) and 16 upper-case letters or digits.
	{
		kind: "aws-access-key-id",
		label: "an AWS access key id",
		envVar: "AWS_ACCESS_KEY_ID",
		pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/dg,
		check: (secret) => !isPlaceholder(secret),
	},
	// AWS secret access key: 40 base64 characters assigned to an aws_secret_access_key-like name (alone they look like
	// any other base64).
	{
		kind: "aws-secret-access-key",
		label: "an AWS secret access key",
		envVar: "AWS_SECRET_ACCESS_KEY",
		pattern: new RegExp(
			String.raw`(?:aws[_-]?secret(?:[_-]?access)?[_-]?key|secret[_-]?access[_-]?key|aws[_-]?secret)${ASSIGN}["'\x60]?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])`,
			"dgi",
		),
		check: (secret) => looksRandom(secret),
	},
	// GitHub tokens: classic personal (ghp_), OAuth (gho_), user-to-server (ghu_), server-to-server (ghs_), refresh
	// (ghr_) and fine-grained personal access tokens (github_pat_).
	{
		kind: "github-token",
		label: "a GitHub token",
		envVar: "GITHUB_TOKEN",
		pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/dg,
		check: (secret) => !isPlaceholder(secret),
	},
	// GitLab personal access token.
	{
		kind: "gitlab-token",
		label: "a GitLab personal access token",
		envVar: "GITLAB_TOKEN",
		pattern: /\bglpat-[A-Za-z0-9_-]{20,}/dg,
		check: (secret) => !isPlaceholder(secret),
	},
	// Slack tokens: bot (xoxb-), user (xoxp-), app (xoxa-), refresh (xoxr-) and legacy workspace (xoxs-); real ones
	// carry numeric team and user ids.
	{
		kind: "slack-token",
		label: "a Slack token",
		envVar: "SLACK_TOKEN",
		pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/dg,
		check: (secret) => hasDigit(secret) && !isPlaceholder(secret),
	},
	// Stripe live secret (sk_live_) and restricted (rk_live_) keys; test-mode keys move no money and are left alone.
	{
		kind: "stripe-live-key",
		label: "a Stripe live key",
		envVar: "STRIPE_SECRET_KEY",
		pattern: /\b[rs]k_live_[A-Za-z0-9]{20,}/dg,
		check: (secret) => !isPlaceholder(secret),
	},
	// Google API key: AIza and 35 characters.
	{
		kind: "google-api-key",
		label: "a Google API key",
		envVar: "GOOGLE_API_KEY",
		pattern: /\bAIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/dg,
		check: (secret) => !isPlaceholder(secret),
	},
	// npm access token: npm_ and 36 characters.
	{
		kind: "npm-token",
		label: "an npm access token",
		envVar: "NPM_TOKEN",
		pattern: /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/dg,
		check: (secret) => !isPlaceholder(secret),
	},
	// JSON Web Token: base64url header and payload that are JSON objects ("eyJ" encodes `{"`), then a signature. It
	// starts only where a run of base64url characters starts (not at every "eyJ" inside one, each of which would scan
	// the rest of the run: quadratic on "eyJ-eyJ-eyJ-…").
	{
		kind: "jwt",
		label: "a JSON Web Token",
		envVar: "AUTH_TOKEN",
		pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/dg,
	},
	// Bearer token written into an Authorization header value.
	{
		kind: "bearer-token",
		label: "a bearer token",
		envVar: "AUTH_TOKEN",
		pattern: /\bBearer\s+(?<secret>[A-Za-z0-9._~+/-]{20,}=*)/dg,
		check: (secret) => looksRandom(secret, 20),
	},
	// Generic: a long, high-entropy literal assigned to a secret-like name (`const apiKey = "…"`, `password: "…"`,
	// `"api_key": "…"`, `token ?? "…"`). Placeholders, template literals and names like `tokenUrl` are not flagged.
	{
		kind: "generic-secret",
		label: "a hard-coded secret",
		envVar: "NAME",
		pattern: new RegExp(
			String.raw`(?<![\w$])(?<name>(?=[A-Za-z_$])[\w$.-]{0,64}?${SECRET_NAME}[\w$-]{0,32})${ASSIGN}${FALLBACK}(?<quote>["'\x60])(?<secret>[^\s"'\x60\\(){}\[\]<>]{${MIN_GENERIC_LENGTH},})\k<quote>`,
			"dgi",
		),
		check: (secret, groups) =>
			!NOT_A_SECRET_NAME.test(groups.name ?? "") && !/^(?:\/|\.\/|~\/)|:\/\//.test(secret) && looksRandom(secret),
	},
];

const RULES_BY_KIND = new Map(SECRET_RULES.map((rule) => [rule.kind, rule]));

/** Every credential in `text`, in order of position. */
export function findSecrets(text: string): SecretFinding[] {
	return locateSecrets(text).map(({ kind, line, column, preview }) => ({ kind, line, column, preview }));
}

/** `findSecrets` with the offsets of each credential. */
export function locateSecrets(text: string): LocatedSecret[] {
	/** Sorted by start and disjoint: an overlap is found by binary search, so many findings cost n log n, not n². */
	let spans: Span[] = [];
	for (const rule of SECRET_RULES) {
		const added: Span[] = [];
		for (const match of text.matchAll(rule.pattern)) {
			const [start, end] = match.indices?.groups?.secret ?? [match.index, match.index + match[0].length];
			const secret = text.slice(start, end);
			if (rule.check && !rule.check(secret, match.groups ?? {})) continue;
			if (overlaps(spans, start, end)) continue;
			added.push({ kind: rule.kind, start, end });
		}
		if (added.length > 0) spans = mergeSpans(spans, added);
	}
	const lineStarts = lineStartsOf(text);
	return spans.map(({ kind, start, end }) => {
		const line = lineOf(lineStarts, start);
		return {
			kind,
			line,
			column: start - lineStarts[line - 1] + 1,
			preview: previewOf(text.slice(start, end)),
			start,
			end,
		};
	});
}

interface Span {
	kind: string;
	start: number;
	end: number;
}

/** Whether [start, end) overlaps a span of `spans` (sorted by start, disjoint). */
function overlaps(spans: Span[], start: number, end: number): boolean {
	let low = 0;
	let high = spans.length;
	while (low < high) {
		const mid = (low + high) >> 1;
		if (spans[mid].end <= start) low = mid + 1;
		else high = mid;
	}
	return low < spans.length && spans[low].start < end;
}

/** Two sorted lists of disjoint spans (disjoint from each other too) as one sorted list. */
function mergeSpans(a: Span[], b: Span[]): Span[] {
	const merged: Span[] = [];
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length)
		merged.push(j >= b.length || (i < a.length && a[i].start < b[j].start) ? a[i++] : b[j++]);
	return merged;
}

/** The refusal the forge sends back: what, where, and how to pass the credential instead. */
export function secretRefusal(
	findings: SecretFinding[],
	file: string,
): { message: string; notes: string[]; line: number; column: number } {
	const first = findings[0];
	if (!first) return { message: `No credentials found in ${file}.`, notes: [], line: 1, column: 1 };
	const describe = (finding: SecretFinding) =>
		`${RULES_BY_KIND.get(finding.kind)?.label ?? `a credential (${finding.kind})`} at ${file}:${finding.line}:${finding.column} ("${finding.preview}")`;
	const envVars = [
		...new Set(findings.map((finding) => `process.env.${RULES_BY_KIND.get(finding.kind)?.envVar ?? "NAME"}`)),
	];
	const fix = `Read ${findings.length === 1 ? "it" : "each"} from an environment variable at run time instead: ${envVars.join(", ")} — the forge never writes credentials to disk.`;
	const what =
		findings.length === 1 ? describe(first) : `${findings.length} credentials (the first: ${describe(first)})`;
	return {
		message: `Refusing to write ${file}: the logic contains ${what}. ${fix}`,
		notes: findings.map(
			(finding) => `${describe(finding)}: use process.env.${RULES_BY_KIND.get(finding.kind)?.envVar ?? "NAME"}`,
		),
		line: first.line,
		column: first.column,
	};
}

/** A few leading characters: enough to recognise the credential, never all of it. */
function previewOf(secret: string): string {
	return `${secret.slice(0, Math.min(5, Math.floor(secret.length / 4)))}…`;
}

function lineStartsOf(text: string): number[] {
	const starts = [0];
	for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
	return starts;
}

/** 1-based line holding `offset` (binary search over line starts). */
function lineOf(lineStarts: number[], offset: number): number {
	let low = 0;
	let high = lineStarts.length - 1;
	while (low < high) {
		const mid = (low + high + 1) >> 1;
		if (lineStarts[mid] <= offset) low = mid;
		else high = mid - 1;
	}
	return low + 1;
}
