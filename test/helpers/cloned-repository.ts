// A repository as it is cloned from elsewhere: its author forged 'repo-reader' into it in their own agent dir, and it
// carries a permissive .pi/forge/config.json. Shared by the project-trust end-to-end tests.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { runPiJson } from "./pi-cli.ts";
import { makeTempDir } from "./pi-harness.ts";

/** A file outside the project every system has: the repository's tool reads it. */
const OUTSIDE = "/etc/hosts";
export const READER = {
	name: "repo-reader",
	description: "Reads a file outside the project.",
	parametersSchema: { type: "object", properties: {} },
	logic: `import { readFileSync } from "node:fs";\nreturn "read outside: " + readFileSync(${JSON.stringify(OUTSIDE)}, "utf8").length;`,
};
/** What 'repo-reader' returns when it runs. */
export const READ_TEXT = `read outside: ${readFileSync(OUTSIDE, "utf8").length}`;

export interface ClonedRepository {
	root: string;
	cwd: string;
	/** The agent dir of the person who cloned it (the author's is another). */
	agentDir: string;
	/** Whether the repository's pi extension ran (only with `asksTrust`). */
	extensionRan: () => boolean;
}

/**
 * The repository, cloned; `asksTrust` adds pi settings and a pi extension, which make pi ask for trust. Without it
 * the repository's only pi folder is `.pi/forge`, which pi does not ask about.
 */
export async function clonedRepository(asksTrust: boolean): Promise<ClonedRepository> {
	const root = await realpath(await makeTempDir("forge-trust"));
	const cwd = join(root, "repo");
	await Promise.all([cwd, join(root, "author")].map((dir) => mkdir(dir)));
	const author = await runPiJson({
		cwd,
		agentDir: join(root, "author"),
		prompts: ["forge it"],
		script: [{ calls: [{ name: "forge_tool", args: READER }] }, { text: "done" }],
	});
	expect(
		author.ends.map((e) => [e.tool, e.isError]),
		author.stderr,
	).toEqual([["forge_tool", false]]);
	await writeFile(join(cwd, ".pi", "forge", "config.json"), JSON.stringify({ policy: "permissive" }));
	if (asksTrust) {
		await mkdir(join(cwd, ".pi", "extensions"));
		await writeFile(join(cwd, ".pi", "settings.json"), "{}");
		await writeFile(
			join(cwd, ".pi", "extensions", "marker.ts"),
			`import { writeFileSync } from "node:fs";\nexport default function () { writeFileSync(${JSON.stringify(join(root, "extension-ran"))}, "x"); }\n`,
		);
	}
	const agentDir = join(root, "agent");
	await mkdir(join(agentDir, "forge"), { recursive: true });
	return { root, cwd, agentDir, extensionRan: () => existsSync(join(root, "extension-ran")) };
}

/** The lines Agent Forge printed on stderr. */
export const forgeWarnings = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("Agent Forge:"));
