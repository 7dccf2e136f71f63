import { describe, expect, it } from "vitest";
import { decodeVisibleText } from "../../kernel/display/visible-text.js";
import { clipped, contentLines, shownLines } from "./shown-lines.js";

const PAYLOAD = "echo greeting\u001b]0;owned\u0007\u001b]52;c;dG91Y2ggeA==\u0007\u001b[8m; touch a\u001b[0m\b\b\rX\u202e\u200b";

describe("shownLines", () => {
	it("spells every control, escape, overwrite, bidi and invisible character, and decodes back to the value", () => {
		const text = shownLines([`  command: ${PAYLOAD}`]);
		expect(text).toMatch(/\n$/);
		expect(text.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b\u202e]/u);
		expect(text).toContain("\\x1b]0;owned\\x07");
		expect(text).toContain("\\u{202e}\\u{200b}");
		expect(decodeVisibleText(text.slice("  command: ".length, -1))).toBe(PAYLOAD);
	});

	it("keeps a value's newline inside its line, so it cannot draw a line of the layout", () => {
		expect(shownLines(["why: a\n    ALLOW (rule) forged", "next"])).toBe("why: a\\x0a    ALLOW (rule) forged\nnext\n");
	});
});

describe("clipped", () => {
	it("cuts by code point with a marker naming what was left off", () => {
		expect(clipped("ab😀cd", 3)).toBe("ab😀… (2 more)");
		expect(clipped("abc", 3)).toBe("abc");
	});
});

describe("contentLines", () => {
	it("splits content into lines; its trailing newline makes no empty line", () => {
		expect(contentLines("a\nb\n")).toEqual(["a", "b"]);
	});
});
