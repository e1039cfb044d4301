// The next version's metadata, built in one place for a forge, a roll-back, an import and a hand edit taken in.
import { describe, expect, it } from "vitest";
import { serializeMeta } from "../../src/contract/tool-files.ts";
import { nextVersion } from "../../src/toolbox/next-version.ts";

const content = {
	name: "word-count",
	description: "Count words.",
	parameters: { type: "object", properties: { text: { type: "string" } } },
};

describe("nextVersion", () => {
	it("starts a new name at version 1, created and updated now", () => {
		expect(nextVersion(content, { hash: "sha256-a", at: "2026-01-02T00:00:00.000Z" })).toEqual({
			...content,
			version: 1,
			hash: "sha256-a",
			createdAt: "2026-01-02T00:00:00.000Z",
			updatedAt: "2026-01-02T00:00:00.000Z",
		});
	});

	it("continues the live version's number and keeps its creation time", () => {
		const next = nextVersion(content, {
			previous: { version: 4, createdAt: "2025-01-01T00:00:00.000Z" },
			hash: "sha256-b",
			at: "2026-01-02T00:00:00.000Z",
		});
		expect(next).toMatchObject({
			version: 5,
			createdAt: "2025-01-01T00:00:00.000Z",
			updatedAt: "2026-01-02T00:00:00.000Z",
		});
	});

	it("takes the given creation time when the live version has none (a roll-back keeps the stored one's)", () => {
		const next = nextVersion(content, {
			previous: { version: 2 },
			hash: "sha256-c",
			at: "2026-01-02T00:00:00.000Z",
			createdAt: "2024-05-05T00:00:00.000Z",
		});
		expect(next.createdAt).toBe("2024-05-05T00:00:00.000Z");
	});

	it("carries tests and a verified hash only when there are some, in the file's field order", () => {
		const none = nextVersion({ ...content, tests: [], verifiedHash: undefined }, { hash: "h", at: "t" });
		expect(Object.keys(none)).toEqual([
			"name",
			"description",
			"parameters",
			"version",
			"hash",
			"createdAt",
			"updatedAt",
		]);
		const tested = nextVersion({ ...content, tests: [{ args: {} }], verifiedHash: "h" }, { hash: "h", at: "t" });
		expect(serializeMeta(tested)).toBe(
			serializeMeta({
				...content,
				version: 1,
				hash: "h",
				createdAt: "t",
				updatedAt: "t",
				tests: [{ args: {} }],
				verifiedHash: "h",
			}),
		);
		expect(Object.keys(tested).slice(-2)).toEqual(["tests", "verifiedHash"]);
	});
});
