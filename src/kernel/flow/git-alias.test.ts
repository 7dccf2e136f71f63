import { describe, expect, it } from "vitest";
import { expandAlias, GIT_COMMANDS } from "./git-alias.js";

describe("expandAlias", () => {
	it("splits a git alias into its words, quotes removed", () => {
		expect(expandAlias("log -p --format='%h %s'\n")).toEqual({ kind: "git", words: ["log", "-p", "--format=%h %s"].map((value) => ({ value, static: true })) });
		expect(expandAlias('show "HEAD:my file"')).toEqual({ kind: "git", words: ["show", "HEAD:my file"].map((value) => ({ value, static: true })) });
	});

	it("an alias that starts with ! runs a shell", () => {
		expect(expandAlias("!cat .env")).toEqual({ kind: "shell" });
		expect(expandAlias("  !f() { git show $1; }; f")).toEqual({ kind: "shell" });
	});
});

describe("GIT_COMMANDS", () => {
	it("holds git's own reading commands, which no alias can shadow", () => {
		for (const sub of ["show", "log", "diff", "cat-file", "archive", "grep", "stash", "status"]) expect(GIT_COMMANDS.has(sub), sub).toBe(true);
		expect(GIT_COMMANDS.has("lg")).toBe(false);
	});
});
