import { describe, expect, it } from "vitest";
import { SKILL_TOOL_ALIASES, splitAllowedTools, wardenRuleText } from "./skill-tool-names.js";

describe("allowed-tools names", () => {
	// One row per alias: the Warden tool it means.
	const rows: [string, string][] = [
		["Bash", "shell"],
		["Read", "read_file"],
		["Write", "write_file"],
		["Edit", "edit_file"],
		["MultiEdit", "edit_file"],
		["Glob", "glob"],
		["Grep", "grep"],
		["LS", "list_dir"],
		["WebFetch", "web_fetch"],
		["Task", "agent"],
		["TodoWrite", "todo_write"],
	];
	it("has a row here for every alias", () => {
		expect(rows.map(([a]) => a).sort()).toEqual(Object.keys(SKILL_TOOL_ALIASES).sort());
	});
	it.each(rows)("%s means %s", (alias, tool) => {
		expect(wardenRuleText(alias)).toBe(tool);
	});

	it("keeps Warden names and globs, rewrites the prefix form, and keeps patterns", () => {
		expect(wardenRuleText("read_file")).toBe("read_file");
		expect(wardenRuleText("mcp__github__*")).toBe("mcp__github__*");
		expect(wardenRuleText("Bash(npm run:*)")).toBe("shell(npm run *)");
		expect(wardenRuleText("write_file(docs/**)")).toBe("write_file(docs/**)");
	});

	it("splits on spaces and commas outside parentheses only", () => {
		expect(splitAllowedTools("Read  Bash(git log *), write_file(docs/**)")).toEqual(["Read", "Bash(git log *)", "write_file(docs/**)"]);
		expect(splitAllowedTools("shell(git")).toBeUndefined();
		expect(splitAllowedTools("a)")).toBeUndefined();
		expect(splitAllowedTools("  ")).toEqual([]);
	});
});
