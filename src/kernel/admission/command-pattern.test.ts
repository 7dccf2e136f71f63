import { beforeAll, describe, expect, it } from "vitest";
import { matchCommand, parseCommandPattern, splitPatternWords } from "./command-pattern.js";
import { ShellParser } from "./shell/shell-parser.js";
import type { SimpleCommand } from "./shell/shell-types.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const last = (source: string): SimpleCommand => parser.parse(source).commands.at(-1)!;
const exact = (pattern: string, source: string) => matchCommand(parseCommandPattern(pattern), last(source), "exact");
const broad = (pattern: string, source: string) => matchCommand(parseCommandPattern(pattern), last(source), "broad");

describe("parseCommandPattern", () => {
	it("normalizes the pattern like a command and notes a trailing *", () => {
		expect(parseCommandPattern("rm -rf *")).toEqual({ any: false, program: "rm", flags: ["-f", "-r"], operands: [], rest: true });
		expect(parseCommandPattern("/usr/bin/git push --force")).toMatchObject({ program: "git", flags: ["-f"], operands: ["push"], rest: false });
		expect(parseCommandPattern("*").any).toBe(true);
	});

	it("splits words with shell quoting", () => {
		expect(splitPatternWords(`git commit -m "a b" 'c d' e\\ f`)).toEqual(["git", "commit", "-m", "a b", "c d", "e f"]);
		expect(() => splitPatternWords(`echo "x`)).toThrow(/unterminated/);
	});
});

describe("exact matching (allow rules)", () => {
	it("requires the same flags and operands without a trailing *", () => {
		expect(exact("npm test", "npm test")).toBe(true);
		expect(exact("npm test", "npm test --watch")).toBe(false);
		expect(exact("npm test", "npm run test")).toBe(false);
		expect(exact("rm -rf build", "rm -fr build")).toBe(true);
	});

	it("lets a trailing * take any further flags and operands", () => {
		expect(exact("git push *", "git push")).toBe(true);
		expect(exact("git push *", "git push origin main")).toBe(true);
		expect(exact("git push *", "git push --force")).toBe(true);
		expect(exact("git push *", "git -C repo push")).toBe(true);
		expect(exact("git push *", "git pull")).toBe(false);
	});

	it("globs inside words", () => {
		expect(exact("cat *.md", "cat README.md")).toBe(true);
		expect(exact("cat *.md", "cat notes.txt")).toBe(false);
		expect(exact("npm run test:*", "npm run test:unit")).toBe(true);
	});

	it("does not let run-time words satisfy fixed pattern words", () => {
		expect(exact("git push origin main", "git push $REMOTE main")).toBe(false);
		expect(exact("git push *", "git push $REMOTE")).toBe(true);
		expect(exact("rm build", "xargs rm build")).toBe(false);
		expect(exact("ls", "$(echo ls)")).toBe(false);
	});
});

describe("broad matching (ask and deny rules)", () => {
	it("tolerates extra flags and operands", () => {
		expect(broad("rm -rf /", "rm -rfv /")).toBe(true);
		expect(broad("rm -rf build", "rm -rf src build")).toBe(true);
		expect(broad("git push origin main", "git push --verbose origin main")).toBe(true);
		expect(broad("rm -rf build", "rm -r build")).toBe(false);
	});

	it("lets run-time words and input arguments stand for anything", () => {
		expect(broad("rm -rf /", "rm $FLAGS /")).toBe(true);
		expect(broad("rm -rf build", "rm -rf $DIR")).toBe(true);
		expect(broad("rm -rf build", "find . | xargs rm -rf")).toBe(true);
		expect(broad("rm -rf build", "find . | xargs rm")).toBe(true);
		expect(broad("rm -rf build", "rm -rf src")).toBe(false);
	});
});
