import { beforeAll, describe, expect, it } from "vitest";
import { HOME, WORKSPACE } from "./test-support/policy-fixtures.js";
import { parseRule, RuleSyntaxError, type RuleTarget, ruleMatches } from "./rules.js";
import { ShellParser } from "./shell/shell-parser.js";
import { canonicalPath } from "./workspace-path.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const scope = { workspace: WORKSPACE, home: HOME };
const pathTarget = (value: string): RuleTarget => ({ kind: "path", path: canonicalPath(value, WORKSPACE, HOME) });
const commandTarget = (source: string): RuleTarget => {
	const { commands } = parser.parse(source);
	expect(commands).toHaveLength(1);
	return { kind: "command", command: commands[0]! };
};

describe("parseRule", () => {
	it.each([
		["shell", { tool: "shell", pattern: undefined }],
		["shell(git push *)", { tool: "shell", pattern: "git push *" }],
		["shell(npm test)", { tool: "shell", pattern: "npm test" }],
		["write_file(src/**)", { tool: "write_file", pattern: "src/**" }],
		["read_file(*.md)", { tool: "read_file", pattern: "*.md" }],
		["*", { tool: "*", pattern: undefined }],
		["mcp__server__*", { tool: "mcp__server__*", pattern: undefined }],
		["  shell( ls -la )  ", { tool: "shell", pattern: "ls -la" }],
	])("parses %s", (text, expected) => {
		const rule = parseRule(text, "allow", "test");
		expect(rule.tool).toBe(expected.tool);
		expect(rule.pattern).toBe(expected.pattern);
		expect(rule).toMatchObject({ outcome: "allow", source: "test", text: text.trim() });
	});

	it.each(["", "shell(", "shell()", "sh ell", "(ls)", "shell(echo 'x)", "shell)x("])("rejects %j with a one-line error", (text) => {
		expect(() => parseRule(text, "deny", "--deny")).toThrow(RuleSyntaxError);
		try {
			parseRule(text, "deny", "--deny");
		} catch (err) {
			expect((err as Error).message).toContain(`"${text}"`);
			expect((err as Error).message).not.toContain("\n");
		}
	});

	it("rejects an unknown outcome", () => {
		expect(() => parseRule("shell", "maybe" as "allow", "x")).toThrow(/outcome/);
	});
});

describe("ruleMatches", () => {
	it("matches tool names by glob", () => {
		expect(ruleMatches(parseRule("mcp__github__*", "allow", "t"), "mcp__github__issues", undefined, scope, "exact")).toBe(true);
		expect(ruleMatches(parseRule("mcp__github__*", "allow", "t"), "mcp__gitlab__issues", undefined, scope, "exact")).toBe(false);
		expect(ruleMatches(parseRule("*", "allow", "t"), "anything", undefined, scope, "exact")).toBe(true);
	});

	it("never matches a patterned rule against a call without a subject", () => {
		expect(ruleMatches(parseRule("write_file(src/**)", "deny", "t"), "write_file", undefined, scope, "broad")).toBe(false);
	});

	it("matches path patterns against canonical workspace paths", () => {
		const rule = parseRule("write_file(src/**)", "allow", "t");
		const matches = (path: string) => ruleMatches(rule, "write_file", pathTarget(path), scope, "exact");
		expect(matches("src/a.ts")).toBe(true);
		expect(matches("./src/deep/b.ts")).toBe(true);
		expect(matches(`${WORKSPACE}/src/a.ts`)).toBe(true);
		expect(matches("./lib/../src/c.ts")).toBe(true);
		expect(matches("src/.hidden")).toBe(true);
		expect(matches("lib/a.ts")).toBe(false);
		expect(matches("/elsewhere/src/a.ts")).toBe(false);
		expect(matches("../src/a.ts")).toBe(false);
	});

	it("matches absolute and home-relative path patterns", () => {
		const tmp = parseRule("write_file(/tmp/**)", "allow", "t");
		expect(ruleMatches(tmp, "write_file", pathTarget("/tmp/x/y"), scope, "exact")).toBe(true);
		expect(ruleMatches(tmp, "write_file", pathTarget("src/x"), scope, "exact")).toBe(false);
		const notes = parseRule("read_file(~/notes/*.md)", "allow", "t");
		expect(ruleMatches(notes, "read_file", pathTarget(`${HOME}/notes/a.md`), scope, "exact")).toBe(true);
		const absInside = parseRule(`read_file(${WORKSPACE}/docs/*)`, "allow", "t");
		expect(ruleMatches(absInside, "read_file", pathTarget("docs/a.md"), scope, "exact")).toBe(true);
		const md = parseRule("read_file(*.md)", "allow", "t");
		expect(ruleMatches(md, "read_file", pathTarget("README.md"), scope, "exact")).toBe(true);
		expect(ruleMatches(md, "read_file", pathTarget("docs/README.md"), scope, "exact")).toBe(false);
	});

	it("matches pattern subjects as a glob over the string", () => {
		const rule = parseRule("glob(src/*)", "allow", "t");
		expect(ruleMatches(rule, "glob", { kind: "pattern", value: "src/**/*.ts" }, scope, "exact")).toBe(true);
		expect(ruleMatches(rule, "glob", { kind: "pattern", value: "lib/*.ts" }, scope, "exact")).toBe(false);
	});

	it("matches command patterns against normalized sub-commands", () => {
		const rule = parseRule("shell(rm -rf *)", "deny", "t");
		for (const source of ["rm -fr x", "rm -r -f x", "/bin/rm --recursive --force x", "env nice rm -rf x", "rm -rf"]) {
			expect(ruleMatches(rule, "shell", commandTarget(source), scope, "broad"), source).toBe(true);
		}
		expect(ruleMatches(rule, "shell", commandTarget("rm x"), scope, "broad")).toBe(false);
		const push = parseRule("shell(git push *)", "allow", "t");
		for (const source of ["git push", "git push origin main", "git push --force", "FOO=1 git push"]) {
			expect(ruleMatches(push, "shell", commandTarget(source), scope, "exact"), source).toBe(true);
		}
		expect(ruleMatches(push, "shell", commandTarget("git pull"), scope, "exact")).toBe(false);
	});
});
