// The macOS sandbox profile made from a SandboxSpec, read back as SBPL and asked what it allows (the last matching rule
// wins, as in Seatbelt; regexes through JavaScript's RegExp as a proxy): no sandbox-exec runs here.
import { describe, expect, it } from "vitest";
import { INSTRUCTION_FILES, nestedPathsAt } from "../../src/policy/protected.ts";
import {
	caseless,
	literal,
	nameDenies,
	type SeatbeltNames,
	type SeatbeltSpec,
	sandboxedSeatbelt,
	seatbeltProfile,
	string,
} from "../../src/run/isolated/parent/seatbelt.ts";
import { decide, readSbpl, stringsOf } from "../helpers/sbpl.ts";

const same = { canonical: (path: string) => path };
const P = "/Users/me/proj";
const T = "/private/var/folders/ab/T/forge-1";

/** The names the policy protects at any depth, as the command sandbox passes them. */
function policyNames(): SeatbeltNames {
	const single = new Set<string>([".pi", ".git", ".husky", ".claude", ".cursor", ...INSTRUCTION_FILES]);
	const inFolder = new Map<string, Set<string>>();
	for (const path of nestedPathsAt("/r")) {
		const parts = path.slice(3).toLowerCase().split("/");
		if (parts.length === 1) single.add(parts[0]!);
		else inFolder.set(parts[0]!, new Set([...(inFolder.get(parts[0]!) ?? []), parts[1]!]));
	}
	return { single, inFolder };
}

function commandSpec(extra: Partial<SeatbeltSpec> = {}): SeatbeltSpec {
	return {
		writable: [P, T],
		readOnly: [`${P}/.pi`, `${P}/.git`, `${T}/jiti`],
		network: false,
		hidden: ["/Users/me", "/private/tmp"],
		visible: ["/Users/me/.nvm/versions/node/v24", "/Users/me/.cargo"],
		placeholders: [`${P}/CLAUDE.md`],
		masked: [{ dir: "/Users/me/.cargo", keep: ["/Users/me/.cargo/bin", "/Users/me/.cargo/registry"] }],
		protectedNames: policyNames(),
		...extra,
	};
}

const write = (profile: string, path: string, operation = "file-write-create") => decide(profile, { operation, path });
const read = (profile: string, path: string, type: "file" | "directory" = "file") =>
	decide(profile, { operation: "file-read-data", path, type });

describe("the profile as SBPL", () => {
	it("reads as balanced forms of allow and deny, everything denied first", () => {
		const profile = seatbeltProfile(commandSpec(), same);
		const forms = readSbpl(profile);
		expect(forms[0]).toEqual(["version", "1"]);
		expect(forms[1]).toEqual(["deny", "default"]);
		expect(
			forms.every((form) => Array.isArray(form) && ["version", "allow", "deny"].includes(form[0] as string)),
		).toBe(true);
		// sandbox-exec refuses a string literal over 1025 bytes.
		expect(Math.max(...stringsOf(profile).map((text) => Buffer.byteLength(JSON.stringify(text))))).toBeLessThan(1025);
	});

	it("a path with quotes, backslashes and regex characters is matched as it is", () => {
		const odd = '/Users/me/a[b]*.c "q" \\ (x)+';
		const profile = seatbeltProfile(
			commandSpec({ writable: [odd], readOnly: [`${odd}/.pi`], placeholders: [] }),
			same,
		);
		expect(stringsOf(profile)).toContain(odd);
		expect(write(profile, `${odd}/src/a.ts`)).toBe("allow");
		expect(write(profile, `${odd}/.pi/x`)).toBe("deny");
		expect(write(profile, `${odd}/sub/.git/config`)).toBe("deny");
		// Read as patterns, `[b]*` and `.` and `+` would match these; as literals they do not.
		const patterns = nameDenies({ single: new Set([".git"]), inFolder: new Map() }, [odd]).join("\n");
		const git = new RegExp(stringsOf(patterns).find((source) => source.includes("[gG][iI][tT]"))!);
		expect(git.test(`${odd}/x/.git`)).toBe(true);
		expect(git.test('/Users/me/abbb.c "q" \\ (x)+/x/.git')).toBe(false);
		expect(git.test('/Users/me/a[b]*Xc "q" \\ (x)+/x/.git')).toBe(false);
		expect(git.test('/Users/me/a[b]*.c "q" \\ (x)/x/.git')).toBe(false);
	});

	it("escapes for SBPL strings and regexes, and refuses what a profile cannot hold", () => {
		expect(string('a"b\\c')).toBe('"a\\"b\\\\c"');
		expect(literal("a[b]*.c+?^$|(){}\\")).toBe("a\\[b\\]\\*\\.c\\+\\?\\^\\$\\|\\(\\)\\{\\}\\\\");
		expect(new RegExp(`^${caseless(".Git[1]")}$`).test(".gIT[1]")).toBe(true);
		expect(() => seatbeltProfile(commandSpec({ writable: ["/p\nq"] }), same)).toThrow(/control character/);
		expect(() => seatbeltProfile(commandSpec({ writable: [`/${"x".repeat(1100)}`] }), same)).toThrow(/too long/);
	});

	it("uses the kernel's path for every folder (macOS's /var is /private/var)", () => {
		const canonical = (path: string) => path.replace(/^\/var\//, "/private/var/");
		const profile = seatbeltProfile(commandSpec({ writable: ["/var/folders/x/T"], readOnly: [] }), { canonical });
		expect(write(profile, "/private/var/folders/x/T/a")).toBe("allow");
		expect(stringsOf(profile)).not.toContain("/var/folders/x/T");
	});
});

describe("writes", () => {
	const profile = seatbeltProfile(commandSpec(), same);

	it("are allowed in the writable folders only", () => {
		expect(write(profile, `${P}/src/index.ts`)).toBe("allow");
		expect(write(profile, `${T}/out.txt`, "file-write-data")).toBe("allow");
		expect(write(profile, "/Users/me/.zshrc")).toBe("deny");
		expect(write(profile, "/etc/hosts", "file-write-data")).toBe("deny");
		expect(decide(profile, { operation: "file-write-data", path: "/dev/null", type: "character-device" })).toBe(
			"allow",
		);
		expect(decide(profile, { operation: "file-write-data", path: "/dev/stderr" })).toBe("allow");
		expect(decide(profile, { operation: "file-write-data", path: "/dev/disk0" })).toBe("deny");
	});

	it("deny the protected paths in them, in any case, and what the placeholders hold", () => {
		expect(write(profile, `${P}/.pi/extensions/x.ts`)).toBe("deny");
		expect(write(profile, `${P}/.PI/extensions/x.ts`)).toBe("deny");
		expect(write(profile, `${P}/.git`, "file-write-unlink")).toBe("deny");
		expect(write(profile, `${T}/jiti/cache.js`)).toBe("deny");
		expect(write(profile, `${P}/CLAUDE.md`)).toBe("deny");
		expect(write(profile, `${P}/.pirate`)).toBe("allow");
	});

	it("deny the protected names at any depth, and only those names", () => {
		for (const path of [
			"sub/.git/hooks/pre-commit",
			"sub/.git",
			"docs/AGENTS.md",
			"docs/agents.MD",
			"a/b/CLAUDE.md",
			"a/.pi/extensions/x.ts",
			"pkg/.vscode/tasks.json",
			"pkg/.vscode",
			"x/.github/instructions/a.md",
			"x/.mcp.json",
			"x/.envrc",
		])
			expect([path, write(profile, `${P}/${path}`)]).toEqual([path, "deny"]);
		for (const path of [
			"docs/AGENTS.md.txt",
			"my.git",
			"my.git/x",
			"x.pi/y",
			"pkg/.vscode/extensions.json",
			"x/.github/workflows/ci.yml",
			"node_modules/pkg/CLAUDE.md",
			"node_modules/.bin/tsc",
			"a/node_modules/pkg/.github/FUNDING.yml",
		])
			expect([path, write(profile, `${P}/${path}`)]).toEqual([path, "allow"]);
		// The temp dir's too.
		expect(write(profile, `${T}/clone/.git/config`)).toBe("deny");
	});

	it("the project may itself sit in a folder named like a protected one", () => {
		const inside = seatbeltProfile(commandSpec({ writable: ["/w/.git/proj"], readOnly: [], placeholders: [] }), same);
		expect(write(inside, "/w/.git/proj/src/a.ts")).toBe("allow");
		expect(write(inside, "/w/.git/proj/src/.git")).toBe("deny");
	});

	it("deny removing or renaming a folder above a protected path, not writing in it", () => {
		const nested = seatbeltProfile(commandSpec({ readOnly: [`${P}/a/b/.pi`] }), same);
		expect(write(nested, `${P}/a`, "file-write-unlink")).toBe("deny");
		expect(write(nested, `${P}/a/b`, "file-write-unlink")).toBe("deny");
		expect(write(nested, `${P}/a/new.txt`)).toBe("allow");
	});

	it("deny a pinned program and a masked folder", () => {
		const pinned = seatbeltProfile(commandSpec({ pinned: [{ path: `${P}/run.sh`, fd: 3 }] }), same);
		expect(write(pinned, `${P}/run.sh`, "file-write-data")).toBe("deny");
		expect(write(pinned, `${P}/run2.sh`, "file-write-data")).toBe("allow");
		const masked = seatbeltProfile(commandSpec({ masked: [{ dir: `${P}/.forge`, keep: [`${P}/.forge/a`] }] }), same);
		expect(write(masked, `${P}/.forge/a`, "file-write-data")).toBe("deny");
	});
});

describe("reads", () => {
	const profile = seatbeltProfile(commandSpec(), same);

	it("are allowed but in the hidden folders, which show only the visible paths", () => {
		expect(read(profile, "/usr/lib/libSystem.B.dylib")).toBe("allow");
		expect(read(profile, "/Users/me/.ssh/id_ed25519")).toBe("deny");
		expect(read(profile, "/users/ME/.ssh/id_ed25519")).toBe("deny");
		expect(read(profile, "/private/tmp/other-session/log")).toBe("deny");
		expect(read(profile, "/Users/me/.nvm/versions/node/v24/bin/node")).toBe("allow");
		expect(read(profile, `${P}/src/index.ts`)).toBe("allow");
		expect(read(profile, `${P}/.git/config`)).toBe("allow");
		// A folder's metadata on the way to a visible path, not its listing.
		expect(decide(profile, { operation: "file-read-metadata", path: "/Users/me", type: "directory" })).toBe("allow");
		expect(read(profile, "/Users/me", "directory")).toBe("deny");
	});

	it("the visible paths come after the hidden folders (the last matching rule wins)", () => {
		const lines = profile.split("\n");
		const hiddenAt = lines.findIndex(
			(line, i) => line === "(deny file-read*" && lines[i + 1]?.includes('"/Users/me"'),
		);
		const visibleAt = lines.findIndex((line) => line.includes('(subpath "/Users/me/.nvm/versions/node/v24")'));
		expect(hiddenAt).toBeGreaterThan(0);
		expect(visibleAt).toBeGreaterThan(hiddenAt);
	});

	it("a masked folder shows only what it keeps", () => {
		expect(read(profile, "/Users/me/.cargo/bin/cargo")).toBe("allow");
		expect(read(profile, "/Users/me/.cargo/registry/index/x")).toBe("allow");
		expect(read(profile, "/Users/me/.cargo/credentials.toml")).toBe("deny");
		expect(read(profile, "/Users/me/.cargo/new-file")).toBe("deny");
	});

	it("without hidden folders every path is readable", () => {
		const open = seatbeltProfile({ writable: [], readOnly: [], network: false }, same);
		expect(read(open, "/Users/me/.ssh/id_ed25519")).toBe("allow");
		expect(write(open, "/Users/me/x")).toBe("deny");
	});
});

describe("the network and processes", () => {
	it("no network unless the spec keeps it", () => {
		const closed = seatbeltProfile(commandSpec(), same);
		const open = seatbeltProfile(commandSpec({ network: true }), same);
		expect(decide(closed, { operation: "network-outbound" })).toBe("deny");
		expect(decide(closed, { operation: "mach-lookup" })).toBe("deny");
		expect(decide(open, { operation: "network-outbound" })).toBe("allow");
		expect(open).toContain('(global-name "com.apple.dnssd.service")');
		expect(closed).not.toContain("com.apple.dnssd.service");
	});

	it("programs may run, signals reach only the sandbox", () => {
		const profile = seatbeltProfile(commandSpec(), same);
		expect(decide(profile, { operation: "process-exec" })).toBe("allow");
		expect(profile).toContain("(allow signal (target same-sandbox))");
		expect(profile).not.toMatch(/\(allow signal\)/);
	});
});

describe("sandboxedSeatbelt", () => {
	it("runs the command under sandbox-exec with the profile", () => {
		const { command, args } = sandboxedSeatbelt(
			{ path: "/usr/bin/sandbox-exec" },
			{ writable: [], readOnly: [], network: false },
			"/usr/bin/node",
			["-e", "0"],
		);
		expect(command).toBe("/usr/bin/sandbox-exec");
		expect(args[0]).toBe("-p");
		expect(readSbpl(args[1]!)[1]).toEqual(["deny", "default"]);
		expect(args.slice(2)).toEqual(["--", "/usr/bin/node", "-e", "0"]);
	});
});
