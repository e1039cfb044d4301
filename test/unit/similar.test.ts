import { describe, expect, it } from "vitest";
import { mostSimilar, similarity, words } from "../../src/toolbox/similar.ts";

/** A realistic toolbox of unrelated tools, described as models describe them. */
const toolbox = [
	{ name: "word-count", description: "Count the words in a text." },
	{ name: "line-count", description: "Count the lines in a text file." },
	{ name: "char-count", description: "Count the characters in a text." },
	{
		name: "csv-summary",
		description: "Summarise a CSV file of the project: row count, column names and the sum of every numeric column.",
	},
	{ name: "json-pick", description: "Pick a value out of a JSON file by a dotted path (e.g. a.b.0.c)." },
	{
		name: "todo-scan",
		description: "Find TODO and FIXME comments in the project's source files, with file and line.",
	},
	{ name: "http-status", description: "Fetch a URL and return the HTTP status code and the response time." },
	{ name: "slugify", description: "Turn a title into a URL slug: lowercase, words joined by dashes." },
	{ name: "file-size", description: "Return the size of a file in bytes and in a human-readable form." },
	{ name: "yaml-to-json", description: "Convert YAML text to JSON." },
	{ name: "json-to-yaml", description: "Convert JSON text to YAML." },
	{ name: "env-check", description: "Check that the environment variables a project needs are set." },
	{ name: "git-log-summary", description: "Summarise the recent git log: commits per author." },
	{ name: "dep-list", description: "List the dependencies in package.json with their versions." },
	{ name: "markdown-toc", description: "Build a table of contents from the headings of a Markdown file." },
	{ name: "write-json", description: "Write a JSON value to a file, pretty-printed." },
	{ name: "list-files", description: "List the files in a directory of the project, recursively." },
	{ name: "find-large-files", description: "Find the largest files in the project." },
	{ name: "csv-to-json", description: "Convert a CSV file to a JSON array of objects." },
	{ name: "json-validate", description: "Check that a JSON file is valid and report the first error with its line." },
	{ name: "uppercase", description: "Convert a text to upper case." },
	{ name: "lowercase", description: "Convert a text to lower case." },
	{ name: "base64-encode", description: "Encode a text as base64." },
	{ name: "base64-decode", description: "Decode base64 into text." },
	{ name: "port-check", description: "Check whether a TCP port on a host is open." },
	{ name: "url-parse", description: "Split a URL into its protocol, host, path and query parameters." },
	{ name: "file-read", description: "Read a text file of the project and return its content." },
	{ name: "file-write", description: "Write text to a file of the project." },
	{ name: "sum-numbers", description: "Sum a list of numbers." },
	{ name: "avg-numbers", description: "Average a list of numbers." },
	{ name: "sort-lines", description: "Sort the lines of a text alphabetically." },
	{ name: "dedupe-lines", description: "Remove duplicate lines from a text, keeping the first." },
	{ name: "zip-files", description: "Zip files of the project into an archive." },
	{ name: "unzip-archive", description: "Unzip an archive into a folder of the project." },
];

const existing = [
	{
		name: "csv-summary",
		description: "Summarise a CSV file: row count, columns, and the sum of every numeric column.",
	},
	{ name: "todo-scan", description: "Find TODO and FIXME comments in the project's source files." },
];

describe("similar tools", () => {
	it("splits names and descriptions into meaningful words", () => {
		expect([...words("parseCsvRows: count the rows of a CSV file")]).toEqual([
			"parse",
			"csv",
			"row",
			"count",
			"file",
		]);
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

	it("stays quiet for every tool of a realistic toolbox of unrelated tools", () => {
		const noted = toolbox.flatMap((tool) => {
			const match = mostSimilar(tool.name, tool.description, toolbox);
			return match ? [`${tool.name} ~ ${match.name}`] : [];
		});
		expect(noted).toEqual([]);
	});

	it.each([
		[
			"opposite verbs",
			{ name: "file-write", description: "Write text to a file of the project." },
			{ name: "file-read", description: "Read a text file of the project and return its content." },
		],
		[
			"opposite directions",
			{ name: "json-to-yaml", description: "Convert JSON text to YAML." },
			{ name: "yaml-to-json", description: "Convert YAML text to JSON." },
		],
		[
			"encode and decode",
			{ name: "base64-decode", description: "Decode base64 into text." },
			{ name: "base64-encode", description: "Encode a text as base64." },
		],
		[
			"upper and lower case",
			{ name: "lowercase", description: "Convert a text to lower case." },
			{ name: "uppercase", description: "Convert a text to upper case." },
		],
		[
			"the same verb on different things",
			{ name: "count-lines", description: "Count the lines of a file." },
			{ name: "count-words", description: "Count the words of a file." },
		],
	])("%s are different jobs, though they share most words", (_label, forged, existing) => {
		expect(
			similarity(words(`${forged.name} ${forged.description}`), words(`${existing.name} ${existing.description}`)),
		).toBeGreaterThanOrEqual(0.6);
		expect(mostSimilar(forged.name, forged.description, [existing])).toBeUndefined();
	});

	it.each([
		["csv-stats", "Summarise a CSV file: count rows and sum each numeric column.", "csv-summary"],
		["count-words", "Count how many words a text has.", "word-count"],
		["todo-finder", "Scan source files for TODO and FIXME comments.", "todo-scan"],
		["slug", "Make a URL slug from a title (lowercase, dashes between words).", "slugify"],
		["toc", "Generate a Markdown table of contents from a file's headings.", "markdown-toc"],
		["json-get", "Get a value from a JSON file by its dotted path.", "json-pick"],
	])("a new %s is noted as the same job as the existing tool", (name, description, existing) => {
		expect(mostSimilar(name, description, toolbox)?.name).toBe(existing);
	});

	it("similarity is 0 for nothing in common and 1 for the same words", () => {
		expect(similarity(words("alpha beta"), words("gamma delta"))).toBe(0);
		expect(similarity(words("alpha beta"), words("beta alpha"))).toBe(1);
	});
});
