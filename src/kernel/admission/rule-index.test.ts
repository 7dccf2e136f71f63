import { describe, expect, it } from "vitest";
import { rulesFor } from "./rule-index.js";
import { parseRule } from "./rules.js";
import type { Decision, PermissionRule } from "./types.js";

const rule = (text: string, outcome: Decision = "allow"): PermissionRule => parseRule(text, outcome, "test");
const texts = (rules: readonly PermissionRule[]): string[] => rules.map((r) => r.text);

describe("rule index", () => {
	const rules = [
		rule("shell(git push *)", "deny"),
		rule("read_*"),
		rule("shell(*)", "ask"),
		rule("shell(ls *)"),
		rule("shell"),
		rule("shell(g?t status)"),
		rule("shell(/usr/bin/git log *)"),
		rule("*('x)", "deny"),
		rule("*(make all)", "deny"),
		rule("write_file(src/**)"),
	];

	it("keeps, for a program, its own rules and those of any program, in the list's order", () => {
		expect(texts(rulesFor(rules, "shell").forProgram("git"))).toEqual([
			"shell(git push *)",
			"shell(*)",
			"shell",
			"shell(g?t status)",
			"shell(/usr/bin/git log *)",
			"*('x)",
		]);
	});

	it("leaves out the rules that name another literal program", () => {
		expect(texts(rulesFor(rules, "shell").forProgram("ls"))).toEqual(["shell(*)", "shell(ls *)", "shell", "shell(g?t status)", "*('x)"]);
	});

	it("gives a program no literal rule names only the rules of any program", () => {
		expect(texts(rulesFor(rules, "shell").forProgram("cargo"))).toEqual(["shell(*)", "shell", "shell(g?t status)", "*('x)"]);
		// A tool glob's pattern is read as a command pattern too: `*(make all)` names make.
		expect(texts(rulesFor(rules, "shell").forProgram("make"))).toEqual(["shell(*)", "shell", "shell(g?t status)", "*('x)", "*(make all)"]);
	});

	it("keeps for a tool only the rules whose tool name or glob matches it", () => {
		expect(texts(rulesFor(rules, "read_file").all)).toEqual(["read_*", "*('x)", "*(make all)"]);
		expect(texts(rulesFor(rules, "write_file").all)).toEqual(["*('x)", "*(make all)", "write_file(src/**)"]);
		expect(rulesFor(rules, "shell").first?.text).toBe("shell(git push *)");
		expect(rulesFor([], "shell").first).toBeUndefined();
	});

	it("indexes a list again when it was changed in place", () => {
		const list = [rule("shell(ls *)")];
		expect(texts(rulesFor(list, "shell").forProgram("rm"))).toEqual([]);
		list.unshift(rule("shell(rm *)", "deny"));
		expect(texts(rulesFor(list, "shell").forProgram("rm"))).toEqual(["shell(rm *)"]);
		list[0] = rule("shell(*)", "deny");
		expect(texts(rulesFor(list, "shell").forProgram("rm"))).toEqual(["shell(*)"]);
	});

	it("tries only a program's own rules among a thousand for other programs", () => {
		const many = Array.from({ length: 1000 }, (_, i) => rule(`shell(tool${i} *)`));
		many.push(rule("shell(git status *)"));
		expect(texts(rulesFor(many, "shell").forProgram("git"))).toEqual(["shell(git status *)"]);
		expect(texts(rulesFor(many, "shell").forProgram("tool7"))).toEqual(["shell(tool7 *)"]);
	});
});
