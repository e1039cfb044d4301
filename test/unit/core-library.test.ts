// The core library: the only modules a forged tool may import.
import { describe, expect, it } from "vitest";
import { ALLOWED_MODULES, isAllowedModule, TYPE_ONLY_MODULES } from "../../src/contract/allowed-modules.ts";

describe("isAllowedModule", () => {
	it("allows fs, path and child_process, bare and with node:, and their /promises and posix/win32 forms", () => {
		for (const name of ["fs", "fs/promises", "path", "path/posix", "path/win32", "child_process"]) {
			expect(isAllowedModule(name), name).toBe(true);
			expect(isAllowedModule(`node:${name}`), `node:${name}`).toBe(true);
		}
	});

	it("allows typebox under both names", () => {
		expect(isAllowedModule("@sinclair/typebox")).toBe(true);
		expect(isAllowedModule("typebox")).toBe(true);
	});

	it("refuses everything else, pi included (it is type-only)", () => {
		for (const name of [
			"os",
			"node:os",
			"http",
			"net",
			"vm",
			"module",
			"worker_threads",
			"child_process/x",
			"FS",
			"./fs",
			"node:typebox",
			"@mariozechner/pi-coding-agent",
		]) {
			expect(isAllowedModule(name), name).toBe(false);
		}
		expect(TYPE_ONLY_MODULES.has("@mariozechner/pi-coding-agent")).toBe(true);
	});

	it("lists exactly 14 spellings", () => {
		expect(ALLOWED_MODULES.size).toBe(14);
	});
});
