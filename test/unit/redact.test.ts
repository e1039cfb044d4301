// What the model may see: secret values and credentials hidden, host paths made project-relative or elided, and
// URLs, locations and code left exactly as they were.
import { describe, expect, it } from "vitest";
import { type RedactionContext, redactForModel, sensitiveEnvValues } from "../../src/security/redact.ts";

const context: RedactionContext = { projectDir: "/home/u/proj", homeDir: "/home/u", tempDir: "/tmp", secretValues: [] };
const redact = (text: string, overrides: Partial<RedactionContext> = {}) =>
	redactForModel(text, { ...context, ...overrides });

describe("redactForModel: paths inside the project", () => {
	it("makes them project-relative, keeping a line:column suffix", () => {
		expect(redact("at /home/u/proj/src/a.ts:12:3")).toBe("at src/a.ts:12:3");
		expect(redact("(/home/u/proj/src/deep/b-c.test.ts:1:2)")).toBe("(src/deep/b-c.test.ts:1:2)");
	});

	it("turns the project dir itself into .", () => {
		expect(redact("cwd: /home/u/proj")).toBe("cwd: .");
		expect(redact('{"cwd":"/home/u/proj"}')).toBe('{"cwd":"."}');
		expect(redact("cd /home/u/proj/ && ls")).toBe("cd ./ && ls");
	});

	it("leaves a full stop that ends the sentence, without turning the project into ..", () => {
		expect(redact("Wrote /home/u/proj/notes.txt.")).toBe("Wrote notes.txt.");
		expect(redact("Ran in /home/u/proj.")).toBe("Ran in ./.");
	});

	it("redacts file:// URLs of project files too", () => {
		expect(redact("at file:///home/u/proj/src/a.ts:3:4")).toBe("at src/a.ts:3:4");
	});

	it("accepts a project dir given with a trailing slash", () => {
		expect(redact("/home/u/proj/src/a.ts", { projectDir: "/home/u/proj/" })).toBe("src/a.ts");
	});

	it("does not let /proj claim its sibling /proj2", () => {
		expect(redact("/home/u/proj2/src/a.ts")).toBe("<home>/…/a.ts");
		expect(redact("/home/u/proj-old/a.ts")).toBe("<home>/…/a.ts");
		expect(redact("/home/u/proj.bak/a.ts")).toBe("<home>/…/a.ts");
		expect(redact("/srv/proj2/a.ts", { projectDir: "/srv/proj" })).toBe("<outside the project>/a.ts");
	});

	it("makes a project inside the temp dir relative, and leaves the rest of temp alone", () => {
		const overrides = { projectDir: "/tmp/forge-abc/proj", homeDir: "/home/u" };
		expect(redact("/tmp/forge-abc/proj/src/a.ts:1:1", overrides)).toBe("src/a.ts:1:1");
		expect(redact("/tmp/forge-abc/other/x.json", overrides)).toBe("/tmp/forge-abc/other/x.json");
	});
});

describe("redactForModel: paths outside the project", () => {
	it("leaves paths in the temp dir as they are", () => {
		expect(redact("wrote /tmp/forge-out/report.csv")).toBe("wrote /tmp/forge-out/report.csv");
		expect(redact("/tmp")).toBe("/tmp");
	});

	it("elides the directories of paths under home", () => {
		expect(redact("read /home/u/.ssh/id_rsa")).toBe("read <home>/…/id_rsa");
		expect(redact("read /home/u/.bashrc")).toBe("read <home>/.bashrc");
		expect(redact("HOME=/home/u")).toBe("HOME=<home>");
	});

	it("prefers the more specific of temp and home", () => {
		const overrides = { projectDir: "/work/proj", homeDir: "/tmp/home", tempDir: "/tmp" };
		expect(redact("/tmp/home/.config/app/settings.json", overrides)).toBe("<home>/…/settings.json");
		expect(redact("/tmp/other/settings.json", overrides)).toBe("/tmp/other/settings.json");
	});

	it("keeps only the base name of any other absolute path", () => {
		expect(redact("EACCES: open '/etc/shadow'")).toBe("EACCES: open '<outside the project>/shadow'");
		expect(redact("/opt/x/y")).toBe("<outside the project>/y");
		expect(redact("PATH=/usr/local/bin:/home/u/bin")).toBe("PATH=<outside the project>/bin:<home>/bin");
	});

	it("leaves one-segment paths and well-known devices alone: they tell nothing about the host", () => {
		expect(redact("ls /etc")).toBe("ls /etc");
		expect(redact("cmd 2>/dev/null; cat > /dev/null")).toBe("cmd 2>/dev/null; cat > /dev/null");
	});

	it("handles Windows paths, case-insensitively", () => {
		const windows = {
			projectDir: "C:\\Users\\u\\proj",
			homeDir: "C:\\Users\\u",
			tempDir: "C:\\Users\\u\\AppData\\Local\\Temp",
		};
		expect(redact("at C:\\Users\\u\\proj\\src\\a.ts:3:4", windows)).toBe("at src\\a.ts:3:4");
		expect(redact("at c:\\users\\u\\proj\\src\\a.ts:3:4", windows)).toBe("at src\\a.ts:3:4");
		expect(redact("C:\\Users\\u\\Documents\\notes\\todo.txt", windows)).toBe("<home>/…/todo.txt");
		expect(redact("D:\\data\\private\\dump.sql", windows)).toBe("<outside the project>/dump.sql");
	});

	it("ignores a filesystem root or empty dir in the context rather than swallowing every path", () => {
		expect(redact("/etc/hosts", { projectDir: "/", homeDir: "" })).toBe("<outside the project>/hosts");
	});
});

describe("redactForModel: what is not a host path", () => {
	const untouched = [
		"see https://example.com/a/b/c?x=/y",
		"GET http://localhost:3000/api/v1/users",
		"file://server/share/x",
		'import { readFile } from "node:fs/promises";',
		'import { Type } from "@sinclair/typebox";',
		"at forge-log-parser.ts:12:3",
		"./src/a.ts and ../lib/b.ts and ~/notes/todo.md and src/a/b.ts",
		"Agent Forge: runtime error in tool 'x' (phase: runtime)",
		"50/50 and 1/2/3 and a/b",
	];

	it.each(untouched)("leaves %j unchanged", (text) => {
		expect(redact(text)).toBe(text);
	});

	it("leaves a code frame with division, regex literals and comments unchanged", () => {
		const frame = [
			"  3 | \tconst words = text.split(/\\s+/g); // split on whitespace",
			"> 4 | \tconst ratio = (a + b)/c/d + total / count;",
			"    | \t              ^",
			"  5 | \tif (/error/i.test(line) || /warn/.test(line)) return words.map((w) => w.replace(/abc/g, x));",
			"  6 | \t/* block comment */ const half = size /2/ 1;",
			"  7 | \tconst re = /^\\/home\\/[a-z]+$/; const parts = p.split('/');",
			"  8 | }",
		].join("\n");
		expect(redact(frame)).toBe(frame);
	});

	it("returns text without anything sensitive unchanged", () => {
		const text = "Agent Forge: tests failed in tool 'csv' (phase: tests)\nexpected 3, got 4 at forge-csv.ts:9:5";
		expect(redact(text, { secretValues: ["not-in-the-text-1"] })).toBe(text);
	});
});

describe("redactForModel: secrets", () => {
	it("replaces every occurrence of a secret environment value", () => {
		const value = "s3cr3t-Value-42";
		expect(redact(`token=${value}; again ${value}.`, { secretValues: [value] })).toBe(
			"token=[redacted]; again [redacted].",
		);
	});

	it("replaces the longest value first, so no tail of a longer one is left", () => {
		const short = "Qm9vLx8Zr1";
		const long = `${short}-extended-77`;
		expect(redact(`a=${long} b=${short}`, { secretValues: [short, long] })).toBe("a=[redacted] b=[redacted]");
	});

	it("ignores values shorter than 8 characters", () => {
		expect(redact("the cat sat", { secretValues: ["cat", ""] })).toBe("the cat sat");
	});

	it("replaces what findSecrets flags with its kind", () => {
		const key = `sk-proj-${"Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3"}`;
		const github = ["ghp", "_", "Zq8Lw2Xc4Vb6Nm1Ks3Dh5Fj7Gp9Rt0Ey2Uo4Ia6"].join("");
		expect(redact(`Error: 401 for key ${key}\nconst t = "${github}";`)).toBe(
			'Error: 401 for key [redacted openai-api-key]\nconst t = "[redacted github-token]";',
		);
	});

	it("does all three at once and is idempotent", () => {
		const text = "at /home/u/proj/src/a.ts:1:2 reading /home/u/.aws/credentials with s3cr3t-Value-42";
		const once = redact(text, { secretValues: ["s3cr3t-Value-42"] });
		expect(once).toBe("at src/a.ts:1:2 reading <home>/…/credentials with [redacted]");
		expect(redact(once, { secretValues: ["s3cr3t-Value-42"] })).toBe(once);
	});
});

describe("sensitiveEnvValues", () => {
	it("keeps values of KEY/TOKEN/SECRET/PASSWORD/PASSWD/CREDENTIAL/AUTH names, at least 8 characters, longest first", () => {
		const env = {
			OPENAI_API_KEY: "sk-value-123456",
			GITHUB_TOKEN: "gh-value-12",
			DB_PASSWORD: "pw-value-1",
			MYSQL_PASSWD: "passwd-value-1",
			CLIENT_SECRET: "  secret-value-1\n",
			GOOGLE_APPLICATION_CREDENTIALS: "/home/u/creds.json",
			NPM_AUTH: "auth-value-1",
			SHORT_TOKEN: "abc",
			EMPTY_KEY: undefined,
			HOME: "/home/u/somewhere",
			PATH: "/usr/bin:/bin:/usr/local/bin",
			GIT_AUTHOR_NAME: "Ada Lovelace",
		};
		expect(sensitiveEnvValues(env)).toEqual([
			"sk-value-123456",
			"passwd-value-1",
			"secret-value-1",
			"auth-value-1",
			"gh-value-12",
			"pw-value-1",
		]);
	});

	it("leaves absolute paths to the path rules, so the project dir is never hidden whole", () => {
		const env = {
			GOOGLE_APPLICATION_CREDENTIALS: "/home/u/proj/creds.json",
			SSH_AUTH_SOCK: "/tmp/ssh-x/agent.1",
			WIN_KEY_FILE: "C:\\keys\\a.pem",
		};
		expect(sensitiveEnvValues(env)).toEqual([]);
	});

	it("lists a value shared by two variables once", () => {
		expect(sensitiveEnvValues({ A_TOKEN: "same-value-1", B_TOKEN: "same-value-1" })).toEqual(["same-value-1"]);
	});
});
