// The one error type: phase, details, copies with more details, and plain data for the registry.
import { describe, expect, it } from "vitest";
import { ForgeError, fail, isForgeError, ok } from "../../src/contract/forge-error.ts";

describe("ForgeError", () => {
	it("is an Error with a phase and details", () => {
		const error = new ForgeError("syntax", "Unexpected ';'", { tool: "demo" });
		expect(error).toBeInstanceOf(Error);
		expect(error.name).toBe("ForgeError");
		expect(error.phase).toBe("syntax");
		expect(error.message).toBe("Unexpected ';'");
		expect(error.details).toEqual({ tool: "demo" });
		expect(isForgeError(error)).toBe(true);
		expect(isForgeError(new Error("x"))).toBe(false);
	});

	it("makes a copy with more details, keeping phase, message and cause", () => {
		const cause = new Error("root");
		const error = new ForgeError("runtime", "boom", { tool: "demo", hint: "old" }, { cause });
		const copy = error.with({ source: "src", hint: "new" });
		expect(copy).not.toBe(error);
		expect(copy.phase).toBe("runtime");
		expect(copy.message).toBe("boom");
		expect(copy.cause).toBe(cause);
		expect(copy.details).toEqual({ tool: "demo", source: "src", hint: "new" });
		expect(error.details).toEqual({ tool: "demo", hint: "old" });
	});

	it("round-trips through plain data, keeping only what the registry stores", () => {
		const location = { file: "forge-demo.ts", line: 3, column: 7 };
		const error = new ForgeError("import", "import of 'os' is outside the core library.", {
			location,
			hint: "use fs",
			source: "big",
			notes: ["n"],
		});
		const data = error.toData();
		expect(data).toEqual({
			phase: "import",
			message: "import of 'os' is outside the core library.",
			location,
			hint: "use fs",
		});
		const back = ForgeError.fromData(JSON.parse(JSON.stringify(data)), { tool: "demo" });
		expect(back.phase).toBe("import");
		expect(back.message).toBe(error.message);
		expect(back.details).toEqual({ location, hint: "use fs", tool: "demo" });
	});
});

describe("Result helpers", () => {
	it("wrap a value or an error", () => {
		const error = new ForgeError("name", "bad");
		expect(ok(3)).toEqual({ ok: true, value: 3 });
		expect(fail(error)).toEqual({ ok: false, error });
	});
});
