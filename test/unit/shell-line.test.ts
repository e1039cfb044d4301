// A shell line read as sh reads its words: which words run (command, script, input), and the lines that decide what
// they run only when they run (cd, $…, `…`, eval, patterns), which no grant for good can bind.
import { describe, expect, it } from "vitest";
import { parseGrantKey } from "../../src/policy/grant-key.ts";
import { readShellLine, UNBOUND } from "../../src/run/isolated/shell-line.ts";

const roles = (line: string) => readShellLine(line).words.map(({ text, role }) => `${role}:${text}`);

describe("the words of a shell line", () => {
	it("joins quoted parts as the shell does", () => {
		expect(roles(`sh buil""d.sh`)).toEqual(["command:sh", "script:build.sh"]);
		expect(roles(`sh 'scripts/b'uild.sh`)).toEqual(["command:sh", "script:scripts/build.sh"]);
		expect(roles(`sh scripts/bu\\ild.sh`)).toEqual(["command:sh", "script:scripts/build.sh"]);
		expect(roles(`git commit -m "fix: the build"`)).toEqual([
			"command:git",
			"argument:commit",
			"argument:-m",
			"argument:fix: the build",
		]);
	});

	it("names what runs: commands after operators, an interpreter's script, a file read in", () => {
		expect(roles("npm test && ./scripts/check.sh | tee log")).toEqual([
			"command:npm",
			"argument:test",
			"command:./scripts/check.sh",
			"command:tee",
			"argument:log",
		]);
		expect(roles("FOO=1 timeout 5 node --no-warnings tools/x.js a")).toEqual([
			"argument:FOO=1",
			"command:timeout",
			"argument:5",
			"command:node",
			"argument:--no-warnings",
			"script:tools/x.js",
			"argument:a",
		]);
		expect(roles("sh < build.sh > out.txt")).toEqual(["command:sh", "input:build.sh", "argument:out.txt"]);
		expect(roles("python3 -m pytest tests")).toEqual([
			"command:python3",
			"argument:-m",
			"argument:pytest",
			"argument:tests",
		]);
	});

	it("reads the line a shell is given with -c", () => {
		expect(roles(`bash -lc 'sh scripts/build.sh'`)).toEqual([
			"command:bash",
			"argument:-lc",
			"argument:sh scripts/build.sh",
			"command:sh",
			"script:scripts/build.sh",
		]);
	});

	it.each([
		"git status | head -5",
		"sh scripts/build.sh",
		`sh buil""d.sh`,
		"grep -rn 'a$' src",
		"awk '{print $1}' data.txt",
		"ls *.ts",
		"npm run build 2>&1",
		"echo done # cd elsewhere",
		"echo a; [ -f x ] && echo b",
		"sh < scripts/build.sh",
		"cat notes.txt | sh scripts/build.sh",
		"node --version",
		"find . -name '*.ts' -exec grep -l TODO {} +",
	])("%s: what it runs is in its text", (line) => {
		expect(readShellLine(line).unbound).toBeUndefined();
		expect(parseGrantKey(`shell:${line}`).ok).toBe(true);
	});

	it.each([
		["cd scripts && sh build.sh", UNBOUND.folder("cd")],
		["(cd scripts; sh build.sh)", UNBOUND.folder("cd")],
		["pushd scripts && sh build.sh", UNBOUND.folder("pushd")],
		["bash -c 'cd scripts && sh build.sh'", UNBOUND.folder("cd")],
		["sh $PWD/scripts/build.sh", UNBOUND.expansion],
		[`sh "$(pwd)/build.sh"`, UNBOUND.expansion],
		["sh `pwd`/build.sh", UNBOUND.expansion],
		["sh ${PWD}/build.sh", UNBOUND.expansion],
		[`bash -c "sh \\$PWD/build.sh"`, UNBOUND.expansion],
		["eval sh build.sh", UNBOUND.eval],
		["sh scripts/*.sh", UNBOUND.pattern("scripts/*.sh")],
		["sh ~/build.sh", UNBOUND.pattern("~/build.sh")],
		["./scripts/b?ild.sh", UNBOUND.pattern("./scripts/b?ild.sh")],
		["sh 'build.sh", UNBOUND.quoting],
		["cat scripts/build.sh | sh", UNBOUND.piped("sh")],
		["cat x.js | node", UNBOUND.piped("node")],
		["ls scripts | xargs sh", UNBOUND.piped("sh")],
		["find scripts -name '*.sh' -exec sh {} \\;", UNBOUND.pattern("{}")],
	])("%s: not bound (%s), and no grant of it is taken", (line, reason) => {
		expect(readShellLine(line).unbound).toBe(reason);
		const parsed = parseGrantKey(`shell:${line}`);
		expect(parsed.ok).toBe(false);
		expect(!parsed.ok && parsed.error).toContain("not bound to the content of the files it runs");
	});

	it("a grant key with its content and environment suffixes is read as its line", () => {
		const content = ` content#${"a".repeat(64)}`;
		expect(parseGrantKey(`shell:sh scripts/build.sh${content}`).ok).toBe(true);
		expect(parseGrantKey(`shell:cd x && sh build.sh${content} env:A#0123456789ab`).ok).toBe(false);
	});
});
