// How the sockets a granted command must not reach are found (system-sockets.ts), in a tree made for each case: down to
// MAX_DEPTH, not through links, not in the writable or skipped folders nor in installed code (node_modules), again when
// a folder changed, within bounds.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { real } from "../../src/run/isolated/parent/paths.ts";
import { MAX_DEPTH, SocketIndex } from "../../src/run/isolated/parent/system-sockets.ts";

const made: string[] = [];
const servers: Server[] = [];

afterEach(() => {
	for (const server of servers.splice(0)) server.close();
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(): string {
	const dir = real(mkdtempSync(join(tmpdir(), "sock-tree-")));
	made.push(dir);
	return dir;
}

async function listen(path: string): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(path, resolve));
	servers.push(server);
	return path;
}

describe("the socket index", () => {
	it("finds sockets below, not in writable or skipped folders, and not through links", async () => {
		const root = tree();
		mkdirSync(join(root, "a", "b", "c"), { recursive: true });
		mkdirSync(join(root, "project"));
		mkdirSync(join(root, "hidden"));
		const deep = await listen(join(root, "a", "b", "c", "deep.sock"));
		const top = await listen(join(root, "top.sock"));
		await listen(join(root, "project", "own.sock"));
		await listen(join(root, "hidden", "masked.sock"));
		const outside = tree();
		const linked = await listen(join(outside, "linked.sock"));
		symlinkSync(outside, join(root, "link-to-dir"));
		symlinkSync(linked, join(root, "link.sock"));
		const found = new SocketIndex().find({
			roots: [root],
			skip: [join(root, "hidden")],
			writable: [join(root, "project")],
		});
		expect(found.complete).toBe(true);
		expect(found.sockets.sort()).toEqual([deep, top].sort());
	});

	it("looks down to MAX_DEPTH folders, and not into installed code", async () => {
		const root = tree();
		const levels = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`);
		mkdirSync(join(root, ...levels(MAX_DEPTH + 1)), { recursive: true });
		mkdirSync(join(root, "pkg", "node_modules", "x"), { recursive: true });
		const deepest = await listen(join(root, ...levels(MAX_DEPTH), "found.sock"));
		await listen(join(root, ...levels(MAX_DEPTH + 1), "too-deep.sock"));
		await listen(join(root, "pkg", "node_modules", "x", "installed.sock"));
		expect(new SocketIndex().find({ roots: [root], skip: [], writable: [] }).sockets).toEqual([deepest]);
	});

	it("names a socket by its path (through a link) unless it is in a writable folder", async () => {
		const root = tree();
		const socket = await listen(join(root, "named.sock"));
		symlinkSync(socket, join(root, "alias.sock"));
		const index = new SocketIndex();
		expect(index.find({ roots: [], skip: [], writable: [], named: [join(root, "alias.sock")] }).sockets).toEqual([
			socket,
		]);
		expect(index.find({ roots: [], skip: [], writable: [root], named: [socket] }).sockets).toEqual([]);
	});

	it("sees a socket made, and forgets one removed, since the last look", async () => {
		const root = tree();
		mkdirSync(join(root, "x"));
		const index = new SocketIndex();
		expect(index.find({ roots: [root], skip: [], writable: [] }).sockets).toEqual([]);
		const later = await listen(join(root, "x", "later.sock"));
		expect(index.find({ roots: [root], skip: [], writable: [] }).sockets).toEqual([later]);
		servers.pop()!.close();
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(index.find({ roots: [root], skip: [], writable: [] }).sockets).toEqual([]);
	});

	it("stops at its bounds, says so, and reads further at the next look", async () => {
		const root = tree();
		for (let i = 0; i < 6; i++) {
			mkdirSync(join(root, `d${i}`));
			for (const name of ["a", "b", "c"]) writeFileSync(join(root, `d${i}`, name), "");
		}
		const last = await listen(join(root, "d5", "last.sock"));
		// As for a tree made long ago: what was read is kept (a folder changed lately is read each time).
		const index = new SocketIndex(() => Date.now() + 60_000);
		const scope = { roots: [root], skip: [], writable: [], bounds: { folders: 100, entries: 9 } };
		const first = index.find(scope);
		expect(first.complete).toBe(false);
		let next = index.find(scope);
		for (let i = 0; i < 5 && !next.complete; i++) next = index.find(scope);
		expect(next).toEqual({ sockets: [last], complete: true });
		expect(index.find({ ...scope, bounds: { folders: 3, entries: 100 } }).complete).toBe(false);
	});
});
