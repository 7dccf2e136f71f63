import { describe, expect, it } from "vitest";
import { braceExpand } from "./shell-words.js";

describe("braceExpand", () => {
	it("expands comma lists, nested lists and ranges", () => {
		expect(braceExpand("/{etc,usr}")).toEqual(["/etc", "/usr"]);
		expect(braceExpand("a{b,c{d,e}}f")).toEqual(["abf", "acdf", "acef"]);
		expect(braceExpand("f{1..3}")).toEqual(["f1", "f2", "f3"]);
		expect(braceExpand("{c..a}")).toEqual(["c", "b", "a"]);
	});

	it("leaves words without a brace expression alone", () => {
		expect(braceExpand("{}")).toEqual(["{}"]);
		expect(braceExpand("{x}")).toEqual(["{x}"]);
		expect(braceExpand("plain")).toEqual(["plain"]);
	});

	it("refuses expansions that would be too large", () => {
		expect(braceExpand("{1..100000}")).toBeUndefined();
		expect(braceExpand("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toBeUndefined();
	});
});
