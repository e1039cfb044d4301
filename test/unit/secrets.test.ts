// Credentials in a forged tool's source: one true positive per rule, the placeholders and ordinary code that must not
// trigger, 1-based positions, previews that never hold the secret, and the refusal the model reads.
import { describe, expect, it } from "vitest";
import { shannonEntropy } from "../../src/security/secret-rules.ts";
import { findSecrets, locateSecrets, type SecretFinding, secretRefusal } from "../../src/security/secrets.ts";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const BASE64 = `${ALNUM}+/`;

/** Deterministic random-looking text: no real (or real-looking, to push protection) credential sits in this file. */
function randomish(length: number, seed: number, alphabet = ALNUM): string {
	let state = seed;
	let out = "";
	for (let i = 0; i < length; i++) {
		state = (state * 1103515245 + 12345) % 2147483648;
		out += alphabet[Math.floor(state / 65536) % alphabet.length];
	}
	return out;
}

const pemBody = Array.from({ length: 4 }, (_, i) => randomish(64, 100 + i, BASE64)).join("\n");
const jwt = [
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
	"eyJzdWIiOiI0MiIsIm5hbWUiOiJBZGEifQ",
	randomish(43, 7, `${ALNUM}-_`),
].join(".");

/** [kind, the credential, how it appears in source (`$` stands for the credential)]. */
const TRUE_POSITIVES: [string, string, string][] = [
	["private-key", `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----`, "const key = `$`;"],
	[
		"private-key",
		`-----BEGIN PRIVATE KEY-----\\n${randomish(64, 3, BASE64)}\\n${randomish(20, 4, BASE64)}\\n-----END PRIVATE KEY-----`,
		'const key = "$";',
	],
	["private-key", `-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody}`, "const key = `$"],
	["anthropic-api-key", `sk-ant-api03-${randomish(93, 11, `${ALNUM}-_`)}`, 'const key = "$";'],
	["openai-api-key", `sk-${randomish(48, 12)}`, 'const key = "$";'],
	["openai-api-key", `sk-proj-${randomish(120, 13, `${ALNUM}-_`)}`, 'const key = "$";'],
	["aws-access-key-id", `AKIA${randomish(16, 14, UPPER_DIGITS)}`, 'const id = "$";'],
	["aws-access-key-id", `ASIA${randomish(16, 15, UPPER_DIGITS)}`, "accessKeyId: '$',"],
	["aws-secret-access-key", randomish(40, 16, BASE64), 'aws_secret_access_key = "$"'],
	["aws-secret-access-key", randomish(40, 17, BASE64), "secretAccessKey: '$',"],
	["aws-secret-access-key", randomish(40, 18, BASE64), "AWS_SECRET_ACCESS_KEY=$"],
	["github-token", `ghp_${randomish(36, 19)}`, 'const t = "$";'],
	["github-token", `gho_${randomish(36, 20)}`, 'const t = "$";'],
	["github-token", `ghu_${randomish(36, 21)}`, 'const t = "$";'],
	["github-token", `ghs_${randomish(36, 22)}`, 'const t = "$";'],
	["github-token", `ghr_${randomish(36, 23)}`, 'const t = "$";'],
	["github-token", `github_pat_${randomish(22, 24)}_${randomish(59, 25)}`, 'const t = "$";'],
	["gitlab-token", `glpat-${randomish(20, 26, `${ALNUM}-_`)}`, 'const t = "$";'],
	[
		"slack-token",
		`xoxb-${randomish(12, 27, "0123456789")}-${randomish(13, 28, "0123456789")}-${randomish(24, 29)}`,
		'const t = "$";',
	],
	["slack-token", `xoxp-${randomish(12, 30, "0123456789")}-${randomish(24, 31)}`, 'const t = "$";'],
	["stripe-live-key", `sk_live_${randomish(24, 32)}`, 'const k = "$";'],
	["stripe-live-key", `rk_live_${randomish(24, 33)}`, 'const k = "$";'],
	["google-api-key", `AIza${randomish(35, 34, `${ALNUM}-_`)}`, 'const k = "$";'],
	["npm-token", `npm_${randomish(36, 35)}`, 'const k = "$";'],
	["jwt", jwt, 'const session = "$";'],
	["bearer-token", randomish(32, 36), 'headers: { Authorization: "Bearer $" },'],
	["generic-secret", randomish(20, 37), 'const apiKey = "$";'],
	["generic-secret", randomish(24, 38, `${ALNUM}!#%&*`), 'password: "$",'],
	["generic-secret", randomish(32, 39), '"api_key": "$"'],
	["generic-secret", randomish(20, 40), "let passwd = '$';"],
	["generic-secret", randomish(20, 41), "this.clientSecret = `$`;"],
	["generic-secret", randomish(20, 42), 'const token = process.env.TOKEN ?? "$";'],
	["generic-secret", randomish(20, 43), 'headers["x-api-key"] = "$";'],
];

describe("findSecrets: one true positive per rule", () => {
	it.each(TRUE_POSITIVES)("finds %s in %j", (kind, secret, template) => {
		const text = template.replace("$", secret);
		const findings = findSecrets(text);
		expect(findings).toHaveLength(1);
		const [finding] = findings;
		expect(finding.kind).toBe(kind);
		expect(finding.line).toBe(1);
		expect(finding.column).toBe(text.indexOf(secret) + 1);
		expect(finding.preview.endsWith("…")).toBe(true);
		expect(secret.startsWith(finding.preview.slice(0, -1))).toBe(true);
	});

	it("gives every rule of the table at least one case", () => {
		const kinds = new Set(TRUE_POSITIVES.map(([kind]) => kind));
		expect([...kinds].sort()).toEqual(
			[
				"anthropic-api-key",
				"aws-access-key-id",
				"aws-secret-access-key",
				"bearer-token",
				"generic-secret",
				"github-token",
				"gitlab-token",
				"google-api-key",
				"jwt",
				"npm-token",
				"openai-api-key",
				"private-key",
				"slack-token",
				"stripe-live-key",
			].sort(),
		);
	});

	it("covers the whole PEM block, through the END line", () => {
		const [, secret, template] = TRUE_POSITIVES[0];
		const text = template.replace("$", secret);
		const [located] = locateSecrets(text);
		expect(text.slice(located.start, located.end)).toBe(secret);
	});
});

describe("findSecrets: previews", () => {
	it("never contain the whole secret, only a few leading characters", () => {
		for (const [, secret, template] of TRUE_POSITIVES) {
			const [finding] = findSecrets(template.replace("$", secret));
			const shown = finding.preview.slice(0, -1);
			expect(shown.length).toBeLessThanOrEqual(5);
			expect(shown.length).toBeLessThan(secret.length / 3);
		}
	});

	it("show the recognisable prefix, e.g. sk-pr…", () => {
		expect(findSecrets(`const k = "sk-proj-${randomish(64, 50)}";`)[0].preview).toBe("sk-pr…");
	});
});

describe("findSecrets: positions", () => {
	it("are 1-based lines and columns on multi-line input, in order of position", () => {
		const github = `ghp_${randomish(36, 60)}`;
		const aws = `AKIA${randomish(16, 61, UPPER_DIGITS)}`;
		const text = [
			"const a = 1;",
			"",
			`\tconst token = "${github}";`,
			"// nothing here",
			`\t\tconst ids = ["x", "${aws}"];`,
		].join("\n");
		expect(findSecrets(text)).toEqual([
			{ kind: "github-token", line: 3, column: 17, preview: `${github.slice(0, 5)}…` },
			{ kind: "aws-access-key-id", line: 5, column: 22, preview: `${aws.slice(0, 5)}…` },
		]);
	});

	it("report the secret at column 1 of the first line", () => {
		const secret = `npm_${randomish(36, 62)}`;
		expect(findSecrets(secret)).toEqual([
			{ kind: "npm-token", line: 1, column: 1, preview: `${secret.slice(0, 5)}…` },
		]);
	});

	it("point a generic assignment at the literal, not the name", () => {
		const text = `x;\nconst apiKey = "${randomish(20, 63)}";`;
		expect(findSecrets(text)).toMatchObject([{ kind: "generic-secret", line: 2, column: 17 }]);
	});

	it("report an assignment of a known kind once, under the specific rule", () => {
		const text = `const apiKey = "sk-proj-${randomish(64, 64)}";`;
		expect(findSecrets(text)).toMatchObject([{ kind: "openai-api-key", line: 1, column: 17 }]);
	});
});

describe("findSecrets: placeholders and ordinary code", () => {
	const placeholders = [
		'password: "hunter"',
		'password: "hunter2hunter2hunter2"',
		'const apiKey = "your-api-key-here";',
		'const apiKey = "YOUR_API_KEY_HERE_1234";',
		'const token = "xxxxxxxxxxxxxxxxxxxxxxxx";',
		'const token = "<token>";',
		'const apiKey = "<your api key goes here>";',
		"const apiKey = process.env.OPENAI_API_KEY;",
		"const token = process.env.GITHUB_TOKEN ?? '';",
		"const secret = `${process.env.SECRET}`;",
		'const key = "sk-...";',
		'const key = "sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";',
		'const key = "sk-your-openai-key-goes-here-please";',
		'const t = "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";',
		'const slack = "xoxb-your-bot-token-here";',
		'const id = "AKIAIOSFODNN7EXAMPLE";',
		'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
		'const k = "sk_test_4eC39HqLyjWDarjtT1zdp7dc";',
		'const tokenUrl = "https://auth.example.org/oauth2/v1/token";',
		'const secretName = "prod/Db-Credentials-2024";',
		'const passwordField = "input#Password_Confirm2";',
		'const tokenCount = "Tokens4096PerRequest";',
		'const secretPath = "/var/run/secrets/k8s-Token1";',
		'const password = "my-app-database-creds";',
		'const header = "-----BEGIN RSA PRIVATE KEY-----";',
		'if (text.includes("-----BEGIN PRIVATE KEY-----")) throw new Error("key found");',
		"const auth = `Bearer ${token}`;",
		'const task = "risk-assessment-2024-quarterly";',
	];

	it.each(placeholders)("does not flag %s", (text) => {
		expect(findSecrets(text)).toEqual([]);
	});

	it("does not flag a normal tool body full of regexes, division, URLs, a UUID and a sha256 hash", () => {
		const body = [
			'import { readFileSync } from "node:fs";',
			"export async function execute(params: any) {",
			"\tconst text = readFileSync(params.path, 'utf8');",
			"\tconst words = text.split(/\\s+/).filter((w) => /^[A-Za-z0-9_-]{3,}$/.test(w));",
			"\tconst ratio = words.length / Math.max(1, text.length / 80); // words per line",
			'\tconst api = "https://api.github.com/repos/earendil-works/pi-mono/issues?per_page=100&state=open";',
			'\tconst requestId = "550e8400-e29b-41d4-a716-446655440000";',
			'\tconst expected = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";',
			'\tconst tokenHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";',
			"\tconst maxTokens = 4096;",
			"\tconst token = params.token;",
			'\tconst b64 = Buffer.from(text).toString("base64").replace(/=+$/, "");',
			"\treturn { ratio, api, requestId, expected, tokenHash, maxTokens, token, b64 };",
			"}",
		].join("\n");
		expect(findSecrets(body)).toEqual([]);
	});

	it("flags a sha256 hex digest assigned to a secret-like name (an HMAC key looks like that)", () => {
		const digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
		expect(findSecrets(`const webhookSecret = "${digest}";`)).toMatchObject([{ kind: "generic-secret", column: 24 }]);
	});

	it("does not flag a UUID even under a secret-like name: hex and dashes stay below 3.5 bits per character", () => {
		const uuid = "550e8400-e29b-41d4-a716-446655440000";
		expect(shannonEntropy(uuid)).toBeLessThan(3.5);
		expect(findSecrets(`const apiKey = "${uuid}";`)).toEqual([]);
	});

	it("needs 16 characters for a generic secret", () => {
		const literal = randomish(16, 70);
		expect(findSecrets(`const apiKey = "${literal.slice(0, 15)}";`)).toEqual([]);
		expect(findSecrets(`const apiKey = "${literal}";`)).toHaveLength(1);
	});
});

describe("findSecrets: cost", () => {
	it("stays linear on long runs of word characters (minified code, base64 blobs)", () => {
		const started = performance.now();
		expect(findSecrets("token".repeat(40_000))).toEqual([]);
		expect(findSecrets("a.".repeat(100_000))).toEqual([]);
		expect(performance.now() - started).toBeLessThan(2000);
	});
});

describe("shannonEntropy", () => {
	it("counts bits per character", () => {
		expect(shannonEntropy("")).toBe(0);
		expect(shannonEntropy("aaaa")).toBe(0);
		expect(shannonEntropy("abab")).toBe(1);
		expect(shannonEntropy("abcd")).toBe(2);
	});
});

describe("secretRefusal", () => {
	const openai = `sk-proj-${randomish(64, 80)}`;
	const github = `ghp_${randomish(36, 81)}`;

	it("says what was found, where, and how to pass it instead, without the secret", () => {
		const source = `export async function execute() {\n\tconst key = "${openai}";\n}`;
		const refusal = secretRefusal(findSecrets(source), "forge-weather.ts");
		expect(refusal.message).toContain("an OpenAI API key at forge-weather.ts:2:15");
		expect(refusal.message).toContain("process.env.OPENAI_API_KEY");
		expect(refusal.message).toContain("the forge never writes credentials to disk");
		expect(refusal.message).not.toContain(openai);
		expect(refusal.notes).toEqual([
			'an OpenAI API key at forge-weather.ts:2:15 ("sk-pr…"): use process.env.OPENAI_API_KEY',
		]);
		expect({ line: refusal.line, column: refusal.column }).toEqual({ line: 2, column: 15 });
	});

	it("lists every finding in the notes and points at the first", () => {
		const findings = findSecrets(`const a = 1;\nconst t = "${github}";\nconst k = "${openai}";`);
		const refusal = secretRefusal(findings, "forge-x.ts");
		expect(refusal.message).toContain("2 credentials (the first: a GitHub token at forge-x.ts:2:12");
		expect(refusal.message).toContain("process.env.GITHUB_TOKEN, process.env.OPENAI_API_KEY");
		expect(refusal.notes).toHaveLength(2);
		expect(refusal.notes[1]).toContain("an OpenAI API key at forge-x.ts:3:12");
		expect(refusal.notes.join("\n")).not.toContain(github);
		expect({ line: refusal.line, column: refusal.column }).toEqual({ line: 2, column: 12 });
	});

	it("names a generic secret and suggests process.env.NAME", () => {
		const refusal = secretRefusal(findSecrets(`const apiKey = "${randomish(20, 82)}";`), "forge-x.ts");
		expect(refusal.message).toContain("a hard-coded secret at forge-x.ts:1:17");
		expect(refusal.message).toContain("process.env.NAME");
	});

	it("falls back to the kind for a finding it has no rule for", () => {
		const finding: SecretFinding = { kind: "mystery", line: 4, column: 2, preview: "ab…" };
		expect(secretRefusal([finding], "forge-x.ts").message).toContain(
			'a credential (mystery) at forge-x.ts:4:2 ("ab…")',
		);
	});
});
