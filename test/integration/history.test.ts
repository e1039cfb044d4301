// Version history, roll-back, diff, removal and quarantine, through the Toolbox.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { host, tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";

const versionsOf = (logic: string[]) => logic.map((l) => toolRequest("calc", l));

async function boxWithVersions(env: Record<string, string> = {}) {
	const box = await tempToolbox(env);
	for (const request of versionsOf(['return "one";', 'return "two";', 'return "three";'])) {
		const result = await box.toolbox.forge(request, new Map());
		if (!result.ok) throw result.error;
	}
	return box;
}

const output = async (box: Awaited<ReturnType<typeof tempToolbox>>, name = "calc") => {
	const used = await box.toolbox.use(name, { text: "" }, { host });
	return used.ok ? (used.value.content[0] as { text: string }).text : `error: ${used.error.message}`;
};

describe("history", () => {
	it("keeps every version", async () => {
		const { toolbox } = await boxWithVersions();
		expect((await toolbox.versions("calc")).map((e) => `${e.event} v${e.version}`)).toEqual([
			"forged v1",
			"forged v2",
			"forged v3",
		]);
	});

	it("rolls back to an earlier version as a new version, after the same checks", async () => {
		const box = await boxWithVersions();
		const result = await box.toolbox.rollback("calc", 1);
		expect(result.ok && result.value.meta.version).toBe(4);
		expect(await output(box)).toBe("one");
		expect((await box.toolbox.versions("calc")).at(-1)).toMatchObject({ event: "rolled-back", version: 4, from: 1 });
		expect(await readFile(join(box.dir, "forge-calc.ts.bak"), "utf8")).toContain('return "three";');
	});

	it("refuses to roll back to a version it does not have, listing the ones it has", async () => {
		const { toolbox } = await boxWithVersions();
		const result = await toolbox.rollback("calc", 9);
		expect(!result.ok && result.error.phase).toBe("not-found");
		expect(!result.ok && result.error.details.notes).toEqual(["Stored: v1, v2, v3"]);
	});

	it("diffs two versions", async () => {
		const { toolbox } = await boxWithVersions();
		const diff = await toolbox.diff("calc", 1, 3);
		expect(diff.ok && diff.value).toContain('-return "one";');
		expect(diff.ok && diff.value).toContain('+return "three";');
		expect(diff.ok && diff.value).toContain("forge-calc.ts v1");
	});

	it("keeps at most PI_FORGE_HISTORY_LIMIT versions, and their files", async () => {
		const box = await tempToolbox({ PI_FORGE_HISTORY_LIMIT: "2" });
		for (const request of versionsOf(['return "a";', 'return "b";', 'return "c";', 'return "d";']))
			await box.toolbox.forge(request, new Map());
		expect((await box.toolbox.versions("calc")).map((e) => e.version)).toEqual([3, 4]);
		const files = await readdir(join(box.dir, ".history", "calc"));
		expect(files.filter((f) => f.endsWith(".ts"))).toHaveLength(2);
	});

	it("removes a tool: files gone, not listed, history kept, restorable by roll-back", async () => {
		const box = await boxWithVersions();
		const removed = await box.toolbox.remove("calc");
		expect(removed.ok).toBe(true);
		expect((await readdir(box.dir)).filter((f) => f.startsWith("forge-calc"))).toEqual([]);
		expect(box.toolbox.list().total).toBe(0);
		expect((await box.toolbox.versions("calc")).at(-1)?.event).toBe("removed");
		const restored = await box.toolbox.rollback("calc", 2);
		expect(restored.ok).toBe(true);
		expect(await output(box)).toBe("two");
	});

	it("quarantines a tool after K consecutive failures, until it is re-forged", async () => {
		const box = await tempToolbox({ PI_FORGE_QUARANTINE_AFTER: "3" });
		await box.toolbox.forge(toolRequest("flaky", "throw new Error('down');"), new Map());
		for (let i = 0; i < 3; i++) await box.toolbox.use("flaky", { text: "" }, { host });
		expect(box.toolbox.view("flaky")?.state).toBe("quarantined");
		await box.toolbox.forge(toolRequest("flaky", "return 'up';"), new Map());
		expect(box.toolbox.view("flaky")?.state).toBe("ok");
		expect(await output(box, "flaky")).toBe("up");
	});
});
