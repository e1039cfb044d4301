// forge_tool calls of one message, waited for by calls of the same tool.
import { describe, expect, it } from "vitest";
import { ForgesInFlight } from "../../src/pi/forges-in-flight.ts";

describe("ForgesInFlight", () => {
	it("a call of a tool with no forge in the message does not wait", async () => {
		const forges = new ForgesInFlight();
		forges.announce("c1", "other");
		expect(await forges.waitFor("pager")).toBeUndefined();
	});

	it("waits for every forge of the name and gives the last outcome", async () => {
		const forges = new ForgesInFlight();
		forges.announce("c1", "pager");
		forges.announce("c2", "pager");
		const waited = forges.waitFor("pager");
		forges.settle("c2", { ok: true, version: 4 });
		let done = false;
		void waited.then(() => (done = true));
		await Promise.resolve();
		expect(done).toBe(false);
		forges.settle("c1", { ok: false, phase: "syntax" });
		expect(await waited).toEqual({ ok: true, version: 4 });
	});

	it("a forge that never ran settles as nothing; the first settle wins", async () => {
		const forges = new ForgesInFlight();
		forges.announce("c1", "pager");
		forges.settle("c1", { ok: true, version: 2 });
		forges.settle("c1", undefined);
		expect(await forges.waitFor("pager")).toEqual({ ok: true, version: 2 });
		forges.announce("c2", "blocked");
		forges.settle("c2", undefined);
		expect(await forges.waitFor("blocked")).toBeUndefined();
	});

	it("stops waiting when the call is aborted, and forgets the message's forges at its end", async () => {
		const forges = new ForgesInFlight();
		forges.announce("c1", "pager");
		const controller = new AbortController();
		const waited = forges.waitFor("pager", controller.signal);
		controller.abort();
		expect(await waited).toBeUndefined();
		forges.clear();
		expect(await forges.waitFor("pager")).toBeUndefined();
	});

	it("ignores a forge_tool call without a usable name", async () => {
		const forges = new ForgesInFlight();
		forges.announce("c1", 42);
		expect(await forges.waitFor("42")).toBeUndefined();
	});
});
