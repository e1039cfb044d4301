// Start-up problems reach the person in every mode: notifications with a UI, stderr lines without one.
import { describe, expect, it } from "vitest";
import type { ConfigProblem } from "../../src/config.ts";
import { reportStartProblems } from "../../src/pi/start-report.ts";

const POLICY: ConfigProblem = {
	origin: { variable: "PI_FORGE_POLICY" },
	message: "PI_FORGE_POLICY=stirct is not one of strict, prompt, permissive; using strict",
};
const FILE: ConfigProblem = {
	origin: { file: "/p/.pi/forge/config.json", key: "pinned" },
	message: '/p/.pi/forge/config.json: "pinned": 3 is not a list of tool names; ignored',
};

function fakeCtx(hasUI: boolean) {
	const notes: Array<[string, string | undefined]> = [];
	return {
		notes,
		ctx: { hasUI, ui: { notify: (message: string, level?: string) => notes.push([message, level]) } } as never,
	};
}

describe("reportStartProblems", () => {
	it("with a UI, notifies each config problem as a warning and an open failure as an error, and writes nothing to stderr", () => {
		const { ctx, notes } = fakeCtx(true);
		const stderr: string[] = [];
		reportStartProblems(
			ctx,
			{ config: [POLICY, FILE], openError: new Error("Agent Forge: the toolbox could not be opened\nEACCES\nmore") },
			(t) => stderr.push(t),
		);
		expect(notes).toEqual([
			[`Agent Forge: ${POLICY.message}`, "warning"],
			[`Agent Forge: ${FILE.message}`, "warning"],
			["Agent Forge: the toolbox could not be opened EACCES", "error"],
		]);
		expect(stderr).toEqual([]);
	});

	it("without a UI (print and json modes), writes one stderr line per problem, in one write", () => {
		const { ctx, notes } = fakeCtx(false);
		const stderr: string[] = [];
		reportStartProblems(ctx, { config: [POLICY, FILE], openError: new Error("cannot open\nEACCES") }, (t) =>
			stderr.push(t),
		);
		expect(notes).toEqual([]);
		expect(stderr).toEqual([
			`Agent Forge: warning: ${POLICY.message}\nAgent Forge: warning: ${FILE.message}\nAgent Forge: error: cannot open EACCES\n`,
		]);
	});

	it("says nothing when nothing is wrong", () => {
		for (const hasUI of [true, false]) {
			const { ctx, notes } = fakeCtx(hasUI);
			const stderr: string[] = [];
			reportStartProblems(ctx, { config: [] }, (t) => stderr.push(t));
			expect([...notes, ...stderr]).toEqual([]);
		}
	});
});
