// Redaction runs on whatever a tool throws or prints (a 1 MB message included) in pi's main thread: it must take time
// linear in the text. Each input below is built to make a quadratic rule (or a quadratic rewrite of the text) take
// seconds to minutes; linear code takes milliseconds.
import { describe, expect, it } from "vitest";
import { redactForModel, redactSecrets } from "../../src/security/redact.ts";
import { locateSecrets } from "../../src/security/secrets.ts";

const SIZE = 1024 * 1024;
const BOUND_MS = 1500;
const context = {
	projectDir: "/home/ada/project",
	homeDir: "/home/ada",
	tempDir: "/tmp",
	secretValues: ["s3cr3t-value-of-a-key"],
};

/** `unit` repeated up to about SIZE characters. */
const fill = (unit: string, tail = "") => unit.repeat(Math.ceil(SIZE / unit.length)) + tail;

const ADVERSARIAL: Array<[string, string]> = [
	["JWT headers run together (each one used to scan the rest of the run)", fill("eyJ-")],
	["JWT-like segments with a dot but no signature", fill("eyJaaaaaaaaaaaa.eyJ-")],
	[
		"thousands of real-looking JWTs (one rewrite of the text per finding used to be quadratic)",
		fill("eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.c2lnbmF0dXJlMTIz "),
	],
	["thousands of API keys", fill("sk-proj-Ab3dE5gH7jK9mN1pQ3sT ")],
	["an unterminated secret literal", `token="${fill("a")}`],
	["assignments to secret names with no value", fill('apikey = "Ab1')],
	["Bearer with no token", fill("Bearer ")],
	["bearer tokens", fill("Bearer aB3dE5gH7jK9mN1pQ3sT5vX7z ")],
	["a PEM header with an endless body", `-----BEGIN RSA PRIVATE KEY-----\n${fill("A")}`],
	["PEM headers only", fill("-----BEGIN PRIVATE KEY-----\n")],
	["AWS secret names with no value", fill("aws_secret_access_key = ")],
	["Slack and GitHub prefixes", fill("xoxb-ghp_sk-")],
	["env fallbacks with no literal", fill("process.env.API_KEY ?? ")],
	["one-segment paths", fill("/a")],
	["regex-looking paths", fill("/a/b[")],
	["file URLs", fill("file://")],
	["the secret value many times", fill("s3cr3t-value-of-a-key ")],
];

describe("redaction takes linear time on adversarial text", () => {
	it.each(ADVERSARIAL)("%s", (_label, text) => {
		const started = performance.now();
		locateSecrets(text);
		redactSecrets(text, context.secretValues);
		redactForModel(text, context);
		expect(performance.now() - started).toBeLessThan(BOUND_MS);
	});

	it("still finds every one of thousands of secrets", () => {
		const jwt = "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.c2lnbmF0dXJlMTIz";
		const text = `${jwt} `.repeat(5000);
		expect(locateSecrets(text)).toHaveLength(5000);
		expect(redactSecrets(text, [])).toBe("[redacted jwt] ".repeat(5000));
	});

	it("finds a JWT after a non-base64 character and not inside a longer base64url run", () => {
		const jwt = "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.c2lnbmF0dXJlMTIz";
		expect(locateSecrets(`token: ${jwt}`).map((s) => s.kind)).toEqual(["jwt"]);
		expect(locateSecrets(`"${jwt}"`).map((s) => s.kind)).toEqual(["jwt"]);
		expect(locateSecrets(`x${jwt}`)).toEqual([]);
	});
});
