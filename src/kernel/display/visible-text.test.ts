import { describe, expect, it } from "vitest";
import { decodeVisibleText, hasHiddenCharacters, visibleText } from "./visible-text.js";

describe("visibleText", () => {
	it.each([
		["plain text passes through", "ls -la src", "ls -la src"],
		["an escape sequence is spelled, not run", "echo \u001b]0;pwned\u0007hi", "echo \\x1b]0;pwned\\x07hi"],
		["OSC 52 (clipboard) is spelled", "\u001b]52;c;Y3VybA==\u001b\\", "\\x1b]52;c;Y3VybA==\\x1b\\"],
		["concealed SGR 8 text stays readable", "echo hi\u001b[8m; touch x\u001b[0m", "echo hi\\x1b[8m; touch x\\x1b[0m"],
		["backspaces do not erase what came before", "touch a\b\b\b\b\b\b\becho ok", "touch a\\x08\\x08\\x08\\x08\\x08\\x08\\x08echo ok"],
		["a carriage return does not redraw the line", "rm -rf ~\recho safe", "rm -rf ~\\x0decho safe"],
		["a newline is spelled in a one-line field", "a\nb", "a\\x0ab"],
		["a tab is spelled by default", "a\tb", "a\\x09b"],
		["bidi overrides are spelled", "ls \u202efdp.exe", "ls \\u{202e}fdp.exe"],
		["zero-width characters are spelled", "r\u200bm", "r\\u{200b}m"],
		["a no-break space inside a word is spelled", "rm\u00a0-rf", "rm\\xa0-rf"],
		["a C1 control is spelled", "a\u009bb", "a\\x9bb"],
		["a tag character is spelled", "x\u{e0041}", "x\\u{e0041}"],
		["a lone surrogate is spelled", "a\ud800b", "a\\u{d800}b"],
		["everyday backslashes are kept", "printf 'a\\nb' | grep 'a\\.b'", "printf 'a\\nb' | grep 'a\\.b'"],
		["a backslash that would read as an escape is doubled", "echo \\x41 \\u{41} \\\\", "echo \\\\x41 \\\\u{41} \\\\\\"],
		["a backslash before an escaped character is doubled", "\\\u001b", "\\\\\\x1b"],
		["an emoji sequence keeps its joiner", "👩\u200d💻", "👩\u200d💻"],
		["a joiner outside an emoji is spelled", "a\u200db", "a\\u{200d}b"],
		["non-Latin text passes through", "grep 'Grüße' 日本語.txt", "grep 'Grüße' 日本語.txt"],
	])("%s", (_name, input, shown) => {
		expect(visibleText(input)).toBe(shown);
		expect(decodeVisibleText(shown)).toBe(input);
	});

	it("keeps newlines and tabs where the caller draws lines and columns", () => {
		expect(visibleText("a\tb\nc\rd", { newlines: "keep", tabs: "keep" })).toBe("a\tb\nc\\x0dd");
	});

	it("says whether anything is hidden", () => {
		expect(hasHiddenCharacters("echo greeting")).toBe(false);
		expect(hasHiddenCharacters("echo \u001b[8mgreeting")).toBe(true);
		expect(hasHiddenCharacters("a\nb", { newlines: "keep" })).toBe(false);
	});

	it("refuses an escape it never writes", () => {
		expect(() => decodeVisibleText("\\x4")).toThrow(/malformed \\x escape at offset 0/);
		expect(() => decodeVisibleText("ab\\u{zz}")).toThrow(/malformed \\u escape at offset 2/);
	});
});
