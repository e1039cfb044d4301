import { describe, expect, it } from "vitest";
import { mostSimilar, similarity, words } from "../../src/toolbox/similar.ts";

const existing = [
	{ name: "csv-summary", description: "Summarise a CSV file: row count, columns, and the sum of every numeric column." },
	{ name: "todo-scan", description: "Find TODO and FIXME comments in the project's source files." },
];

describe("similar tools", () => {
	it("splits names and descriptions into meaningful words", () => {
		expect([...words("parseCsvRows: count the rows of a CSV file")]).toEqual(["parse", "csv", "row", "count", "file"]);
	});

	it("names the existing tool a new one duplicates", () => {
		const match = mostSimilar("csv-stats", "Summarise a CSV file: count rows and sum each numeric column.", existing);
		expect(match?.name).toBe("csv-summary");
		expect(match!.score).toBeGreaterThan(0.6);
	});

	it("stays quiet for a different job, and never compares a tool with itself", () => {
		expect(mostSimilar("http-ping", "Check that a URL answers within a timeout.", existing)).toBeUndefined();
		expect(mostSimilar("csv-summary", existing[0].description, existing)).toBeUndefined();
	});

	it("similarity is 0 for nothing in common and 1 for the same words", () => {
		expect(similarity(words("alpha beta"), words("gamma delta"))).toBe(0);
		expect(similarity(words("alpha beta"), words("beta alpha"))).toBe(1);
	});
});
