// Full-text search over the toolbox: names first, then words of names, descriptions and parameters.
import { describe, expect, it } from "vitest";
import { entryFromMeta, type RegistryEntry } from "../../src/store/registry.ts";
import { ToolSearch } from "../../src/toolbox/search.ts";

function entry(
	name: string,
	description: string,
	properties: Record<string, { type: string; description?: string }> = {},
): RegistryEntry {
	return entryFromMeta(
		{
			name,
			description,
			parameters: { type: "object", properties },
			version: 1,
			hash: `sha256-${name}`,
			createdAt: "",
			updatedAt: "",
		},
		{},
	);
}

function searchWith(...entries: RegistryEntry[]): ToolSearch {
	const search = new ToolSearch();
	for (const e of entries) search.upsert(e);
	return search;
}

const names = (search: ToolSearch, query: string, limit = 10) =>
	search.search(query, limit).hits.map((hit) => hit.name);

describe("ToolSearch", () => {
	it("ranks a name match above a description match", () => {
		const search = searchWith(
			entry("word-stats", "Statistics about a log file."),
			entry("log-parser", "Parses structured lines."),
			entry("grep-lite", "Searches text for a pattern."),
		);
		expect(names(search, "log")).toEqual(["log-parser", "word-stats"]);
	});

	it("splits kebab-case, snake_case and camelCase into words", () => {
		const search = searchWith(
			entry("sql-explorer", "Runs queries."),
			entry("csv_rows", "Reads tables."),
			entry("other", "Something else.", { parseCsvRows: { type: "boolean" } }),
		);
		expect(names(search, "explorer")).toEqual(["sql-explorer"]);
		expect(names(search, "rows")).toEqual(["csv_rows", "other"]);
	});

	it("finds tools by parameter names and parameter descriptions", () => {
		const search = searchWith(
			entry("fetcher", "Gets things.", {
				endpointUrl: { type: "string", description: "Where to send the request" },
			}),
			entry("counter", "Counts things.", { text: { type: "string" } }),
		);
		expect(names(search, "endpoint")).toEqual(["fetcher"]);
		expect(names(search, "request")).toEqual(["fetcher"]);
	});

	it("matches prefixes and small typos", () => {
		const search = searchWith(entry("markdown-table", "Formats rows as a table."), entry("counter", "Counts."));
		expect(names(search, "mark")).toEqual(["markdown-table"]);
		expect(names(search, "markdwn")).toEqual(["markdown-table"]);
	});

	it("returns at most limit hits but counts every match", () => {
		const search = searchWith(...["a", "b", "c", "d"].map((n) => entry(`json-${n}`, "JSON helper.")));
		const { hits, matched } = search.search("json", 2);
		expect(hits).toHaveLength(2);
		expect(matched).toBe(4);
		for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
	});

	it("finds nothing for an unrelated query", () => {
		expect(searchWith(entry("counter", "Counts words.")).search("zebra", 5)).toEqual({ hits: [], matched: 0 });
	});

	it("forgets a removed tool and ignores removing an unknown one", () => {
		const search = searchWith(entry("log-parser", "Parses logs."), entry("log-viewer", "Shows logs."));
		search.remove("log-parser");
		search.remove("never-added");
		expect(names(search, "log")).toEqual(["log-viewer"]);
	});

	it("replaces a tool on upsert, also after it was removed", () => {
		const search = searchWith(entry("helper", "Formats dates."));
		search.upsert(entry("helper", "Converts currencies."));
		expect(names(search, "dates")).toEqual([]);
		expect(names(search, "currencies")).toEqual(["helper"]);
		search.remove("helper");
		search.upsert(entry("helper", "Resizes images."));
		expect(names(search, "images")).toEqual(["helper"]);
	});
});
