// Numbered source listings: the code frame around one location and the bounded listing of a whole file.
import { describe, expect, it } from "vitest";
import { codeFrame, numberedListing } from "../../src/contract/code-frame.ts";

const source = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n");

describe("codeFrame", () => {
	it("shows two lines either side, marks the line and puts the caret under the column", () => {
		expect(codeFrame(source, 5, 3)).toBe(
			["  3 | line 3", "  4 | line 4", "> 5 | line 5", "    |   ^", "  6 | line 6", "  7 | line 7"].join("\n"),
		);
	});

	it("stops at the first line", () => {
		expect(codeFrame(source, 1, 1)).toBe(["> 1 | line 1", "    | ^", "  2 | line 2", "  3 | line 3"].join("\n"));
	});

	it("stops at the last line and pads numbers to the widest shown", () => {
		expect(codeFrame(source, 12, 6)).toBe(
			["  10 | line 10", "  11 | line 11", "> 12 | line 12", "     |      ^"].join("\n"),
		);
		expect(codeFrame(source, 9, 1)).toBe(
			["   7 | line 7", "   8 | line 8", ">  9 | line 9", "     | ^", "  10 | line 10", "  11 | line 11"].join("\n"),
		);
	});

	it("clamps a line outside the source to its first or last line", () => {
		expect(codeFrame(source, 99, 1).split("\n")).toContain("> 12 | line 12");
		expect(codeFrame(source, 0, 1).split("\n")[0]).toBe("> 1 | line 1");
	});

	it("honours the context option and a column of 0", () => {
		expect(codeFrame(source, 5, 0, { context: 0 })).toBe(["> 5 | line 5", "    | ^"].join("\n"));
	});
});

describe("numberedListing", () => {
	it("numbers every line of a short source, ignoring one trailing newline", () => {
		expect(numberedListing("a\nb\n")).toBe("1 | a\n2 | b");
	});

	it("pads line numbers to the width of the last one", () => {
		const listing = numberedListing(source).split("\n");
		expect(listing).toHaveLength(12);
		expect(listing[0]).toBe(" 1 | line 1");
		expect(listing[11]).toBe("12 | line 12");
	});

	it("elides around the focus line and says how many lines were hidden", () => {
		const long = Array.from({ length: 100 }, (_, i) => `l${i + 1}`).join("\n");
		const listing = numberedListing(long, { maxLines: 10, focusLine: 50 }).split("\n");
		expect(listing).toEqual([
			"    | … 44 line(s) above not shown",
			" 45 | l45",
			" 46 | l46",
			" 47 | l47",
			" 48 | l48",
			" 49 | l49",
			" 50 | l50",
			" 51 | l51",
			" 52 | l52",
			" 53 | l53",
			" 54 | l54",
			"    | … 46 line(s) below not shown",
		]);
	});

	it("keeps the start when the focus is near the top, and the end when it is near the bottom", () => {
		const long = Array.from({ length: 100 }, (_, i) => `l${i + 1}`).join("\n");
		const top = numberedListing(long, { maxLines: 5, focusLine: 2 }).split("\n");
		expect(top[0]).toBe("  1 | l1");
		expect(top.at(-1)).toBe("    | … 95 line(s) below not shown");
		const bottom = numberedListing(long, { maxLines: 5, focusLine: 100 }).split("\n");
		expect(bottom[0]).toBe("    | … 95 line(s) above not shown");
		expect(bottom.at(-1)).toBe("100 | l100");
	});

	it("shows the first lines when there is no focus line", () => {
		const long = Array.from({ length: 300 }, (_, i) => `l${i + 1}`).join("\n");
		const listing = numberedListing(long).split("\n");
		expect(listing).toHaveLength(201);
		expect(listing[0]).toBe("  1 | l1");
		expect(listing[199]).toBe("200 | l200");
		expect(listing[200]).toBe("    | … 100 line(s) below not shown");
	});
});

describe("carets under tab-indented code", () => {
	it("reuse the line's tabs", () => {
		const frame = codeFrame("\t\tfoo();", 1, 3);
		expect(frame.split("\n")[1]).toBe("    | \t\t^");
	});
});
