import { describe, expect, it } from "vitest";
import { entryKey, GitConfigSyntaxError, parseGitConfig } from "./git-config-parse.js";

const keys = (text: string) => parseGitConfig(text).map((e) => [entryKey(e), e.value]);

describe("parseGitConfig", () => {
	it("reads sections, subsections and names, lower-casing what git compares without case", () => {
		expect(keys('[Core]\n\tHooksPath = .githooks\n[filter "Lfs"]\n\tclean = ./x %f\n[branch.Main]\nremote=origin\n')).toEqual([
			["core.hookspath", ".githooks"],
			["filter.Lfs.clean", "./x %f"],
			["branch.main.remote", "origin"],
		]);
	});

	it("reads a name without = as true (no value), and a variable on the header's line", () => {
		const [bare, same] = parseGitConfig("[core]\n\tbare\n[alias] st = status\n");
		expect(bare?.value).toBeUndefined();
		expect(same && [entryKey(same), same.value]).toEqual(["alias.st", "status"]);
	});

	it("drops comments outside quotes, keeps them inside, and applies escapes", () => {
		expect(keys('[a]\nb = one # two\nc = "x # y" ; z\nd = tab\\there\\\\ \\"q\\"\n')).toEqual([
			["a.b", "one"],
			["a.c", "x # y"],
			["a.d", 'tab\there\\ "q"'],
		]);
	});

	it("joins a value continued with a backslash at the end of the line, and counts lines through it", () => {
		const entries = parseGitConfig('[core]\n\tfsmonitor = ./a\\\nb\n\tpager = less\n');
		expect(entries.map((e) => [e.value, e.line])).toEqual([
			["./ab", 2],
			["less", 4],
		]);
	});

	it("keeps inner whitespace, trims the ends, and keeps quoted ends", () => {
		expect(keys('[a]\nb =   x   y   \nc = "  z "\n')).toEqual([
			["a.b", "x   y"],
			["a.c", "  z "],
		]);
	});

	it("reads subsection escapes", () => {
		expect(keys('[includeIf "gitdir:~/w\\"x/"]\npath = p\n')).toEqual([['includeif.gitdir:~/w"x/.path', "p"]]);
	});

	it.each([
		["[core\nx = 1\n", 1],
		['[a]\nb = "open\n', 2],
		["[a]\nb = \\q\n", 2],
		["[a]\n1b = 2\n", 2],
		["[a]\nb c\n", 2],
		["[a b]\n", 1],
	])("refuses what git refuses, naming the line: %j", (text, line) => {
		try {
			parseGitConfig(text);
			expect.unreachable();
		} catch (err) {
			expect(err).toBeInstanceOf(GitConfigSyntaxError);
			expect((err as GitConfigSyntaxError).line).toBe(line);
			expect((err as Error).message).toMatch(new RegExp(`^bad config line ${line}: `));
		}
	});

	it("accepts a BOM, CRLF line ends and an empty file", () => {
		expect(keys("\uFEFF[a]\r\nb = c\r\n")).toEqual([["a.b", "c"]]);
		expect(parseGitConfig("")).toEqual([]);
	});
});
