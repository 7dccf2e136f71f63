import { describe, expect, it } from "vitest";
import { TOOL_VIEWS, viewToolCall } from "./tool-call-view.js";

const W = "/work/space";

describe("tool call views, one row per tool", () => {
	const rows: [string, Record<string, unknown>, { title: string; kind: string; path?: string }][] = [
		["read_file", { path: "src/a.ts" }, { title: "Read src/a.ts", kind: "read", path: `${W}/src/a.ts` }],
		["write_file", { path: "a.txt", content: "x" }, { title: "Write a.txt", kind: "edit", path: `${W}/a.txt` }],
		["edit_file", { path: "a.txt", old: "x", new: "y" }, { title: "Edit a.txt", kind: "edit", path: `${W}/a.txt` }],
		["list_dir", { path: "." }, { title: "List .", kind: "read", path: W }],
		["glob", { pattern: "**/*.ts" }, { title: "Find files **/*.ts", kind: "search" }],
		["grep", { pattern: "TODO", path: "src" }, { title: 'Search "TODO" in src', kind: "search" }],
		["shell", { command: "npm test -- --run" }, { title: "npm test -- --run", kind: "execute" }],
		["web_fetch", { url: "https://example.com/" }, { title: "Fetch https://example.com/", kind: "fetch" }],
		["agent", { task: "look around\nand report" }, { title: "Sub-agent: look around", kind: "think" }],
		["register_tool", { name: "count_lines" }, { title: "Register tool count_lines", kind: "other" }],
		["todo_write", { items: [] }, { title: "Update the plan", kind: "think" }],
		["memory_search", { query: "deploy" }, { title: 'Recall "deploy"', kind: "search" }],
		["memory_write", { title: "build steps", content: "make" }, { title: 'Remember "build steps"', kind: "other" }],
	];
	it("covers every row of the table", () => {
		expect(rows.map((r) => r[0]).sort()).toEqual(Object.keys(TOOL_VIEWS).sort());
	});
	for (const [tool, args, want] of rows) {
		it(`${tool}: ${want.title}`, () => {
			const view = viewToolCall(tool, args, W);
			expect(view.title).toBe(want.title);
			expect(view.kind).toBe(want.kind);
			expect(view.locations).toEqual(want.path ? [{ path: want.path }] : []);
		});
	}

	it("a write shows the whole new content as a new file's diff; an edit its old and new text", () => {
		expect(viewToolCall("write_file", { path: "a.txt", content: "new\n" }, W).content).toEqual([{ type: "diff", path: `${W}/a.txt`, oldText: null, newText: "new\n" }]);
		expect(viewToolCall("edit_file", { path: "a.txt", old: "x", new: "y" }, W).content).toEqual([{ type: "diff", path: `${W}/a.txt`, oldText: "x", newText: "y" }]);
		expect(viewToolCall("read_file", { path: "a.txt" }, W).content).toEqual([]);
	});

	it("a tool without a row (JIT, MCP) is shown by its name as other; malformed arguments do not throw", () => {
		expect(viewToolCall("mcp__github__create_issue", { title: "x" }, W)).toEqual({ title: "mcp__github__create_issue", kind: "other", locations: [], content: [] });
		expect(viewToolCall("write_file", "not an object", W)).toEqual({ title: "Write ", kind: "edit", locations: [], content: [] });
	});
});
