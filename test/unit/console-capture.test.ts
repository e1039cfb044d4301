// What a forged tool prints: kept per call in a bounded buffer, through a console that writes where the call runs.
import { AsyncLocalStorage } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import {
	CONSOLE_HEAD_CHARS,
	CONSOLE_TAIL_CHARS,
	ConsoleBuffer,
	createCapturingConsole,
} from "../../src/run/console-capture.ts";

describe("ConsoleBuffer", () => {
	it("is undefined when nothing was printed, and drops the final newline", () => {
		const buffer = new ConsoleBuffer();
		expect(buffer.text()).toBeUndefined();
		buffer.append("one\n");
		buffer.append("two\n");
		expect(buffer.text()).toBe("one\ntwo");
	});

	it("hands the head on as it is written, and nothing past it", () => {
		const handed: string[] = [];
		const buffer = new ConsoleBuffer((text) => handed.push(text));
		buffer.append("first\n");
		buffer.append("x".repeat(CONSOLE_HEAD_CHARS));
		buffer.append("after the head\n");
		expect(handed.join("")).toBe(`first\n${"x".repeat(CONSOLE_HEAD_CHARS - 6)}`);
	});

	it("keeps the head and the tail of a flood and says how much it left out", () => {
		const buffer = new ConsoleBuffer();
		for (let i = 0; i < 5000; i++) buffer.append(`line ${i}\n`);
		const text = buffer.text()!;
		expect(text.startsWith("line 0\nline 1\n")).toBe(true);
		expect(text.endsWith("line 4998\nline 4999")).toBe(true);
		const total = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join("").length;
		expect(text).toContain(
			`… (${total - CONSOLE_HEAD_CHARS - CONSOLE_TAIL_CHARS} characters of console output left out) …`,
		);
		expect(text.length).toBeLessThan(CONSOLE_HEAD_CHARS + CONSOLE_TAIL_CHARS + 100);
	});
});

describe("createCapturingConsole", () => {
	it("formats as console does (objects, format strings, tables, groups) into the current buffer", () => {
		const buffer = new ConsoleBuffer();
		const console = createCapturingConsole(() => buffer);
		console.log("count: %d", 3, { a: [1, 2] });
		console.error("bad");
		console.group("group");
		console.warn("inside");
		console.groupEnd();
		console.table([{ x: 1 }]);
		expect(buffer.text()).toContain("count: 3 { a: [ 1, 2 ] }\nbad\ngroup\n  inside\n");
		expect(buffer.text()).toMatch(/│ x │/);
	});

	it("keeps methods usable when taken off the object", () => {
		const buffer = new ConsoleBuffer();
		const { log } = createCapturingConsole(() => buffer);
		log("detached");
		expect(buffer.text()).toBe("detached");
	});

	it("writes each call's output into that call's buffer, across awaits and timers, and drops output outside any call", async () => {
		const calls = new AsyncLocalStorage<ConsoleBuffer>();
		const console = createCapturingConsole(() => calls.getStore());
		const a = new ConsoleBuffer();
		const b = new ConsoleBuffer();
		const run = (buffer: ConsoleBuffer, name: string) =>
			calls.run(buffer, async () => {
				for (let i = 0; i < 3; i++) {
					console.log(`${name} ${i}`);
					await new Promise((resolve) => setTimeout(resolve, 1));
				}
			});
		console.log("nobody's");
		await Promise.all([run(a, "a"), run(b, "b")]);
		expect(a.text()).toBe("a 0\na 1\na 2");
		expect(b.text()).toBe("b 0\nb 1\nb 2");
	});
});
