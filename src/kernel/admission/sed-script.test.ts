import { describe, expect, it } from "vitest";
import { sedScriptRisk } from "./sed-script.js";

describe("sedScriptRisk", () => {
	it.each([
		"1,5p", "p", "$p", "/needle/p", "/pattern/d", "s/old/new/", "s/error/warning/g", "s/a/*/", "s/a/woutput/", "s#x#s/a/b/woutput#",
		"s#x#foo;woutput#", "p;d", "s/a/new value/", "s/w /x/", "/p;w output/p", "s/a/;w output/", "1~2p", "0,/re/d", "\\,x,p", "/a/,/b/{s/x/y/;p}",
		"y/abc/xyz/", "$!N;P;D", ":a;N;$!ba;s/\\n/ /g", "1itext", "install", "/x/I p", "s/a/b/2g", "=", "l 40", "q5", "# a comment\np",
	])("%j only edits the stream", (script) => {
		expect(sedScriptRisk(script)).toBeUndefined();
	});

	it.each([
		["s/a/b/e", "e flag"],
		["e date", "e command"],
		["1etouch marker", "e command"],
		["s/a/printf hacked > marker/ep", "e flag"],
		["s#a#printf hacked > marker#pe", "e flag"],
		["s/foo/bar/w output.txt", "w flag"],
		["s/a/b/woutput", "w flag"],
		["s/a/b/w", "w flag"],
		["w backup.txt", "w command"],
		["woutput", "w command"],
		["1woutput", "w command"],
		["/pattern/woutput", "w command"],
		["w", "w command"],
		["W output", "W command"],
		["1W output", "W command"],
		["p;w output", "w command"],
		["s/a/b/;w output", "w command"],
		["s/a/;/;w output", "w command"],
		["r header.txt", "r command"],
		["R input", "R command"],
		["s/foo/bar/r input.txt", "unknown flag"],
		["-i", "command"],
		["s/[/]/c/;w f", "unknown flag"],
		["s/a/b", "does not parse"],
	])("%j is refused (%s)", (script, reason) => {
		expect(sedScriptRisk(script)).toContain(reason);
	});
});
