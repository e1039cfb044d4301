// The one error type: phase, details, copies with more details, and plain data for the registry.
import { describe, expect, it } from "vitest";
import { ForgeError, fail, fromData, isForgeError, ok, storedData, toData } from "../../src/contract/forge-error.ts";

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
		const data = storedData(toData(error));
		expect(data).toEqual({
			phase: "import",
			message: "import of 'os' is outside the core library.",
			location,
			hint: "use fs",
		});
		const back = fromData(JSON.parse(JSON.stringify(data)), { tool: "demo" });
		expect(back.phase).toBe("import");
		expect(back.message).toBe(error.message);
		expect(back.details).toEqual({ location, hint: "use fs", tool: "demo" });
	});

	it("crosses a boundary as plain data with every data detail, and the receiving side's details win", () => {
		const location = { file: "forge-demo.ts", line: 2, column: 5 };
		const error = new ForgeError("runtime", "ENOENT: no such file", {
			location,
			stack: ["at execute (forge-demo.ts:2:5)"],
			hint: "h",
			notes: ["n"],
			code: "ENOENT",
			origin: "input",
			console: "printed",
			source: "not data",
			tool: "demo",
		});
		const data = toData(error);
		expect(data).toEqual({
			phase: "runtime",
			message: "ENOENT: no such file",
			location,
			stack: ["at execute (forge-demo.ts:2:5)"],
			hint: "h",
			notes: ["n"],
			code: "ENOENT",
			origin: "input",
			console: "printed",
		});
		expect(Object.keys(toData(new ForgeError("name", "bad", { hint: undefined })))).toEqual(["phase", "message"]);
		const back = fromData(JSON.parse(JSON.stringify(data)), { tool: "demo", hint: "mine" });
		const { phase, message, ...carried } = data;
		expect([back.phase, back.message]).toEqual([phase, message]);
		expect(back.details).toEqual({ ...carried, tool: "demo", hint: "mine" });
		expect(storedData(data)).toEqual({ phase: "runtime", message: "ENOENT: no such file", location, hint: "h" });
	});
});

describe("Result helpers", () => {
	it("wrap a value or an error", () => {
		const error = new ForgeError("name", "bad");
		expect(ok(3)).toEqual({ ok: true, value: 3 });
		expect(fail(error)).toEqual({ ok: false, error });
	});
});
