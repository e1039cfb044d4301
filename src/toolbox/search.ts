// Full-text search over the toolbox (MiniSearch, BM25+): names, descriptions, parameter names and descriptions.
import MiniSearch from "minisearch";
import type { RegistryEntry } from "../store/registry.ts";

interface SearchDoc {
	id: string;
	name: string;
	words: string;
	description: string;
	params: string;
	examples: string;
}

export interface SearchHit {
	name: string;
	score: number;
}

export class ToolSearch {
	private readonly index = new MiniSearch<SearchDoc>({
		fields: ["name", "words", "description", "params", "examples"],
		searchOptions: { boost: { name: 4, words: 3, params: 1.5 }, prefix: true, fuzzy: 0.2, combineWith: "OR" },
	});

	upsert(entry: RegistryEntry): void {
		const doc = toDoc(entry);
		if (this.index.has(doc.id)) this.index.replace(doc);
		else this.index.add(doc);
	}

	remove(name: string): void {
		if (this.index.has(name)) this.index.discard(name);
	}

	search(query: string, limit: number): { hits: SearchHit[]; matched: number } {
		const results = this.index.search(query);
		return {
			hits: results.slice(0, limit).map((r) => ({ name: String(r.id), score: r.score })),
			matched: results.length,
		};
	}
}

function toDoc(entry: RegistryEntry): SearchDoc {
	const properties = (entry.parameters.properties ?? {}) as Record<string, { description?: unknown }>;
	const params = Object.entries(properties)
		.map(
			([key, schema]) =>
				`${key} ${splitWords(key)} ${typeof schema?.description === "string" ? schema.description : ""}`,
		)
		.join(" ");
	return {
		id: entry.name,
		name: entry.name,
		words: splitWords(entry.name),
		description: entry.description,
		params,
		examples: entry.examples ?? "",
	};
}

/** `sql-explorer` → `sql explorer`, `parseCsvRows` → `parse csv rows`. */
function splitWords(text: string): string {
	return text
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.replace(/[-_]+/g, " ")
		.toLowerCase();
}
