import { describe, expect, it } from "vitest";
import { parseSkillFile } from "./skill-frontmatter.js";

const skill = (front: string, body = "Do the thing.\n") => `---\n${front}\n---\n${body}`;

describe("SKILL.md frontmatter", () => {
	it("reads every field the format has and the body after the frontmatter", () => {
		const parsed = parseSkillFile(
			skill('name: pdf-forms\ndescription: Fill PDF forms.\nlicense: MIT\ncompatibility: needs python3\nmetadata:\n  author: ana\n  version: "2"\nallowed-tools: read_file shell(python3 scripts/*)', "# Forms\nRun the script.\n"),
			"pdf-forms",
		);
		expect(parsed).toMatchObject({ ok: true, body: "# Forms\nRun the script.", fields: { name: "pdf-forms", description: "Fill PDF forms.", license: "MIT", compatibility: "needs python3", metadata: { author: "ana", version: "2" } } });
		if (!parsed.ok) throw new Error("not parsed");
		expect(parsed.fields.allowedTools?.entries).toEqual(["read_file", "shell(python3 scripts/*)"]);
		expect(parsed.fields.allowedTools?.rules.map((r) => [r.tool, r.pattern, r.outcome])).toEqual([
			["read_file", undefined, "allow"],
			["shell", "python3 scripts/*", "allow"],
		]);
	});

	it("takes allowed-tools as a YAML list, and Claude Code's names and prefix form as Warden's", () => {
		const parsed = parseSkillFile(skill("name: git-log\ndescription: Read history.\nallowed-tools:\n  - Read\n  - Bash(git log:*)"), "git-log");
		if (!parsed.ok) throw new Error(parsed.message);
		expect(parsed.fields.allowedTools?.rules.map((r) => r.text)).toEqual(["read_file", "shell(git log *)"]);
	});

	// One row per rule of the format: the field named, and what the warning says.
	it.each([
		["no frontmatter", "# Just markdown\n", "frontmatter", "must start with YAML frontmatter"],
		["frontmatter not closed", "---\nname: a\n", "frontmatter", "must start with YAML frontmatter"],
		["bad YAML", skill("name: [a\ndescription: x"), "frontmatter", "not valid YAML"],
		["a list, not a mapping", skill("- a\n- b"), "frontmatter", "must be a mapping"],
		["duplicate key", skill("name: a\nname: a\ndescription: x"), "frontmatter", "not valid YAML"],
		["an unknown field", skill("name: a\ndescription: x\nmodel: opus"), "model", "is not a SKILL.md field"],
		["no name", skill("description: x"), "name", "is required"],
		["an upper-case name", skill("name: Deploy\ndescription: x"), "name", "a-z, 0-9 and -"],
		["a name with a space", skill("name: my skill\ndescription: x"), "name", "a-z, 0-9 and -"],
		["a name of 65 characters", skill(`name: ${"a".repeat(65)}\ndescription: x`), "name", "1 to 64"],
		["a name unlike its folder", skill("name: other\ndescription: x"), "name", 'must equal its folder\'s name "a"'],
		["no description", skill("name: a"), "description", "is required"],
		["an empty description", skill('name: a\ndescription: "  "'), "description", "non-empty"],
		["a description of 1,025 characters", skill(`name: a\ndescription: ${"d".repeat(1025)}`), "description", "at most 1024 characters, got 1025"],
		["a license that is a number", skill("name: a\ndescription: x\nlicense: 3"), "license", "must be a string"],
		["compatibility as a list", skill("name: a\ndescription: x\ncompatibility: [linux]"), "compatibility", "must be a string"],
		["metadata as a string", skill("name: a\ndescription: x\nmetadata: v1"), "metadata", "mapping of strings"],
		["a metadata value that is a number", skill("name: a\ndescription: x\nmetadata:\n  version: 2"), "metadata", "version must be a string"],
		["allowed-tools as a number", skill("name: a\ndescription: x\nallowed-tools: 7"), "allowed-tools", "space-separated string or a list"],
		["allowed-tools empty", skill('name: a\ndescription: x\nallowed-tools: ""'), "allowed-tools", "is empty"],
		["allowed-tools with an open parenthesis", skill("name: a\ndescription: x\nallowed-tools: shell(git"), "allowed-tools", "unbalanced"],
		["allowed-tools naming no tool", skill('name: a\ndescription: x\nallowed-tools: "(x)"'), "allowed-tools", 'entry "(x)"'],
	])("%s: skipped, naming %s", (_case, text, field, message) => {
		const parsed = parseSkillFile(text, "a");
		expect(parsed.ok).toBe(false);
		if (parsed.ok) return;
		expect(parsed.field).toBe(field);
		expect(parsed.message).toContain(message);
	});

	it("accepts a name of exactly 64 characters and a description of exactly 1,024", () => {
		const name = "a".repeat(64);
		expect(parseSkillFile(skill(`name: ${name}\ndescription: ${"d".repeat(1024)}`), name).ok).toBe(true);
	});
});
