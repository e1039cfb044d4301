// A failed call read for its causes and for where the fault lies: the arguments, a refused permission, or the logic.
import { describe, expect, it } from "vitest";
import { causeLines, describe as describeError, diagnose } from "../../src/run/error-origin.ts";

const CWD = "/work/project";

function fsError(code: string, path: string): Error {
	return Object.assign(new Error(`${code}: no such file or directory, open '${path}'`), {
		code,
		path,
		syscall: "open",
	});
}

function fetchFailed(cause: Error): TypeError {
	return new TypeError("fetch failed", { cause });
}

const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), {
	code: "ECONNREFUSED",
	address: "127.0.0.1",
	port: 9,
});

describe("causeLines", () => {
	it("lists the causes under an error, with codes the message does not already say", () => {
		const inner = Object.assign(new Error("getaddrinfo failed"), { code: "ENOTFOUND" });
		expect(causeLines(fetchFailed(inner))).toEqual(["Caused by: Error: getaddrinfo failed [ENOTFOUND]"]);
		expect(causeLines(fetchFailed(refused))).toEqual(["Caused by: Error: connect ECONNREFUSED 127.0.0.1:9"]);
	});

	it("shows the members of an AggregateError (several addresses tried)", () => {
		const v6 = Object.assign(new Error("connect ECONNREFUSED ::1:9"), { code: "ECONNREFUSED" });
		const aggregate = Object.assign(new AggregateError([v6, refused], ""), { code: "ECONNREFUSED" });
		expect(causeLines(fetchFailed(aggregate))).toEqual([
			"Caused by: AggregateError [ECONNREFUSED]",
			"  (1 of 2) Error: connect ECONNREFUSED ::1:9",
			"  (2 of 2) Error: connect ECONNREFUSED 127.0.0.1:9",
		]);
	});

	it("stops at a cycle and at four levels, and survives a cause that throws when read", () => {
		const a = new Error("a");
		const b = new Error("b", { cause: a });
		Object.defineProperty(a, "cause", { value: b });
		expect(causeLines(a)).toEqual(["Caused by: Error: b"]);
		let deep: Error = new Error("level 0");
		for (let i = 1; i < 10; i++) deep = new Error(`level ${i}`, { cause: deep });
		expect(causeLines(deep)).toHaveLength(4);
		const hostile = new Error("outer");
		Object.defineProperty(hostile, "cause", {
			get: () => {
				throw new Error("no");
			},
		});
		expect(causeLines(hostile)).toEqual([]);
		expect(causeLines("a string")).toEqual([]);
		expect(describeError({ toString: () => "plain" })).toBe("plain");
	});
});

describe("diagnose", () => {
	it("a granted host name that resolved to a private address is the forge's refusal, not a fault of the logic", () => {
		const refused = Object.assign(
			new TypeError(
				"fetch: api.example.com resolved to 127.0.0.1, a loopback address; a grant of a host name reaches only public addresses",
			),
			{ cause: Object.assign(new Error("not public"), { code: "ERR_FORGE_NOT_PUBLIC", address: "127.0.0.1" }) },
		);
		const diagnosis = diagnose(refused, { params: { url: "http://api.example.com/" }, cwd: "/p" });
		expect(diagnosis.origin).toBe("permission");
		expect(diagnosis.hint).toMatch(/grant net:<address>\[:port\]; the logic need not change/);
	});

	it("blames the argument for a missing file it named, relative or absolute, and says what to change", () => {
		const relative = diagnose(fsError("ENOENT", `${CWD}/data/missing.csv`), {
			params: { file: "data/missing.csv" },
			cwd: CWD,
		});
		expect(relative.origin).toBe("input");
		expect(relative.hint).toBe(
			'The error comes from the arguments, not the logic: params.file ("data/missing.csv") names a file or folder that does not exist (ENOENT). Call the tool again with a params.file that exists (a relative path is taken from the project folder); the tool need not change.',
		);
		const absolute = diagnose(fsError("EISDIR", "/etc"), { params: { paths: ["/tmp/a", "/etc"] }, cwd: CWD });
		expect(absolute).toMatchObject({
			origin: "input",
			hint: expect.stringContaining('params.paths[1] ("/etc") names a folder where a file is expected (EISDIR)'),
		});
		const joined = diagnose(fsError("ENOENT", `${CWD}/notes/today.md`), { params: { name: "today.md" }, cwd: CWD });
		expect(joined.origin).toBe("input");
	});

	it("reads the path out of the message when the error has no path field (an error relayed by the broker)", () => {
		const relayed = Object.assign(new Error(`ENOENT: no such file or directory, open '${CWD}/x.txt'`), {
			code: "ENOENT",
		});
		expect(diagnose(relayed, { params: { p: "x.txt" }, cwd: CWD }).origin).toBe("input");
	});

	it("blames the logic for a missing file the arguments did not name, and when there are no arguments to compare", () => {
		expect(diagnose(fsError("ENOENT", `${CWD}/config.json`), { params: { file: "data.csv" }, cwd: CWD })).toEqual({
			origin: "logic",
		});
		expect(diagnose(fsError("ENOENT", `${CWD}/config.json`))).toEqual({ origin: "logic" });
		expect(diagnose(new TypeError("x is not a function"), { params: {}, cwd: CWD })).toEqual({ origin: "logic" });
	});

	it("blames the argument for an address it named that refuses connections, through fetch's cause", () => {
		const diagnosis = diagnose(fetchFailed(refused), { params: { url: "http://127.0.0.1:9/status" }, cwd: CWD });
		expect(diagnosis.origin).toBe("input");
		expect(diagnosis.hint).toContain(
			'params.url ("http://127.0.0.1:9/status") points at 127.0.0.1:9, where nothing accepts connections (ECONNREFUSED)',
		);
		const localhost = diagnose(fetchFailed(refused), { params: { url: "http://localhost:9" }, cwd: CWD });
		expect(localhost.origin).toBe("input");
		const otherPort = diagnose(fetchFailed(refused), { params: { url: "http://127.0.0.1:8080" }, cwd: CWD });
		expect(otherPort.origin).toBe("logic");
	});

	it("names the failed connection for an address in the logic, without blaming the arguments", () => {
		const unresolved = Object.assign(new Error("getaddrinfo ENOTFOUND api.exmaple.org"), {
			code: "ENOTFOUND",
			hostname: "api.exmaple.org",
		});
		const diagnosis = diagnose(fetchFailed(unresolved), { params: { q: "cats" }, cwd: CWD });
		expect(diagnosis.origin).toBe("logic");
		expect(diagnosis.hint).toContain("at api.exmaple.org the host name does not resolve (ENOTFOUND)");
		expect(diagnose(fetchFailed(unresolved), { params: { host: "api.exmaple.org" }, cwd: CWD }).origin).toBe("input");
	});

	it("recognises a refused permission, also wrapped by the tool, and keeps the refusal's own hint", () => {
		const refusal = Object.assign(new Error("'t' may not run commands: no UI to ask."), {
			name: "PermissionError",
			code: "ERR_FORGE_PERMISSION",
			data: { hint: "agent-forge grant t exec" },
		});
		expect(diagnose(refusal, { params: {}, cwd: CWD })).toEqual({
			origin: "permission",
			hint: "agent-forge grant t exec",
		});
		const wrapped = new Error("could not list the folder", { cause: refusal });
		expect(diagnose(wrapped, { params: {}, cwd: CWD })).toEqual({
			origin: "permission",
			hint: "agent-forge grant t exec",
		});
		const nodeDenied = Object.assign(new Error("Access to this API has been restricted"), {
			code: "ERR_ACCESS_DENIED",
		});
		expect(diagnose(nodeDenied).origin).toBe("permission");
	});
});
