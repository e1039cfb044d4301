// /forge remove says who calls the tool it removed.
import { describe, expect, it } from "vitest";
import { callersNote } from "../../src/pi/forge-command.ts";

describe("callersNote", () => {
	it("says who calls a removed tool, and nothing when no one does", () => {
		expect(callersNote("word-count", ["a-tool", "b-tool"])).toEqual([
			"'word-count' is called by a-tool, b-tool (through pi.useTool): their calls of it fail until it is back (/forge rollback word-count).",
		]);
		expect(callersNote("word-count", [])).toEqual([]);
	});
});
