// Live reload: hand edits (valid and broken) and removals picked up by the watcher; the forge's own writes ignored.
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ToolboxWatcher } from "../../src/store/watcher.ts";
import { host, tempToolbox, toolRequest } from "../helpers/toolbox-fixture.ts";

let watcher: ToolboxWatcher | undefined;
afterEach(async () => {
	await watcher?.stop();
	watcher = undefined;
});

async function watchedBox() {
	const box = await tempToolbox();
	for (const [name, logic] of [
		["upper", "return params.text.toUpperCase();"],
		["lower", "return params.text.toLowerCase();"],
	]) {
		const result = await box.toolbox.forge(toolRequest(name, logic), new Map());
		if (!result.ok) throw result.error;
	}
	watcher = new ToolboxWatcher(box.toolbox, 50);
	await watcher.start();
	const events: string[] = [];
	box.toolbox.onEvent((event) => {
		if (event.type === "reloaded") events.push(`${event.name}:${event.entry?.status ?? "gone"}`);
	});
	return { ...box, events };
}

const waitFor = async (check: () => boolean, timeoutMs = 5000) => {
	const started = Date.now();
	while (!check()) {
		if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
		await new Promise((resolve) => setTimeout(resolve, 20));
		await watcher?.settle();
	}
};

describe("the toolbox watcher", () => {
	it("takes a valid hand edit: re-checked, new version, the new code runs", async () => {
		const { toolbox, dir, events } = await watchedBox();
		const path = join(dir, "forge-upper.ts");
		await writeFile(path, (await readFile(path, "utf8")).replace("toUpperCase()", "toUpperCase() + '!'"));
		await waitFor(() => events.includes("upper:ok"));
		expect(toolbox.get("upper")?.version).toBe(2);
		const used = await toolbox.use("upper", { text: "hi" }, { host });
		expect(used.ok && used.value.content[0]).toEqual({ type: "text", text: "HI!" });
	});

	it("marks a broken hand edit broken with its error, and leaves the others alone", async () => {
		const { toolbox, dir, events } = await watchedBox();
		const path = join(dir, "forge-upper.ts");
		await writeFile(path, (await readFile(path, "utf8")).replace("toUpperCase();", "toUpperCase(;"));
		await waitFor(() => events.includes("upper:broken"));
		expect(toolbox.get("upper")?.error).toMatchObject({ phase: "syntax", location: { file: "forge-upper.ts" } });
		const lower = await toolbox.use("lower", { text: "OK" }, { host });
		expect(lower.ok && lower.value.content[0]).toEqual({ type: "text", text: "ok" });
	});

	it("notices a tool whose files were deleted by hand", async () => {
		const { toolbox, dir, events } = await watchedBox();
		await Promise.all([rm(join(dir, "forge-lower.ts")), rm(join(dir, "forge-lower.json"))]);
		await waitFor(() => events.includes("lower:gone"));
		expect(toolbox.get("lower")).toBeUndefined();
	});

	it("debounces a burst of writes into one reload", async () => {
		const { dir, events } = await watchedBox();
		const path = join(dir, "forge-upper.ts");
		const original = await readFile(path, "utf8");
		for (let i = 0; i < 10; i++) await writeFile(path, original.replace("toUpperCase()", `toUpperCase() + "${i}"`));
		await waitFor(() => events.length > 0);
		await new Promise((resolve) => setTimeout(resolve, 200));
		await watcher!.settle();
		expect(events).toEqual(["upper:ok"]);
	});

	it("ignores the forge's own writes", async () => {
		const { toolbox, events } = await watchedBox();
		await toolbox.forge(toolRequest("upper", "return params.text.toUpperCase() + '?';"), new Map());
		await new Promise((resolve) => setTimeout(resolve, 300));
		await watcher!.settle();
		expect(events).toEqual([]);
		expect(toolbox.get("upper")?.version).toBe(2);
	});
});
