// The credentials the forge looks for, as data (gitleaks-style): a kind, a pattern whose `secret` group (else the
// whole match) is the credential, and an optional check that weeds out placeholders and ordinary words.

export interface SecretRule {
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
export const SECRET_RULES: readonly SecretRule[] = [
	// PEM private key (RSA, EC, OPENSSH, PGP…): the header plus at least one line of base64 body, through the END line
	// when present. The header alone is no finding, so a tool that looks for keys in files may name it.
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

export const RULES_BY_KIND = new Map(SECRET_RULES.map((rule) => [rule.kind, rule]));
