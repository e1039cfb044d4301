// The one digest: sha256 as hex, and a tool's hash as that digest of its source with its prefix.
import { describe, expect, it } from "vitest";
import { hashSource, sha256Hex } from "../../src/contract/hash.ts";
import { hashSource as fromToolFiles } from "../../src/contract/tool-files.ts";

describe("hash", () => {
	it("is sha256 as lowercase hex, and a tool's hash carries it after sha256-", () => {
		const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
		expect(sha256Hex("")).toBe(empty);
		expect(hashSource("")).toBe(`sha256-${empty}`);
		expect(fromToolFiles("x")).toBe(hashSource("x"));
	});
});
