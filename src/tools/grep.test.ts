import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspaceEscapeError } from "../kernel/primitives.js";
import { createTempWorkspace, type TempWorkspace } from "../kernel/test-support/temp-workspace.js";
import { createGrepTool, grepTool } from "./grep.js";
import { DEFAULT_TOOL_LIMITS, type ToolContext, ToolError } from "./tool.js";

let ws: TempWorkspace;
let ctx: ToolContext;
beforeEach(() => {
	ws = createTempWorkspace();
	ctx = { kernel: ws.kernel, callId: "call-1", signal: ws.controller.signal, limits: DEFAULT_TOOL_LIMITS };
	ws.put({
		"src/a.ts": "import x from 'y';\n// NOTE: fix\nconst note = 1;\n",
		"src/b.ts": "// NOTE later\r\nplain\r\n",
		"docs/notes.md": "nothing here\n",
		"bin/blob.dat": new Uint8Array([0x54, 0x4f, 0x44, 0x4f, 0x00]),
		"node_modules/m/i.js": "// NOTE vendored\n",
		".git/HEAD": "NOTE in git\n",
	});
});
afterEach(() => ws.cleanup());

describe("grep", () => {
	it("is read-only with the search path as rule subject", () => {
		expect([grepTool.readOnly, grepTool.requiresConfirmation]).toEqual([true, false]);
		expect(grepTool.ruleSubject({ pattern: "x" })).toEqual({ kind: "path", value: "." });
		expect(grepTool.ruleSubject({ pattern: "x", path: "src" })).toEqual({ kind: "path", value: "src" });
	});

	it("reports file:line: text, skipping binary files, .git and node_modules", async () => {
		expect((await grepTool.execute({ pattern: "NOTE" }, ctx)).output).toBe("src/a.ts:2: // NOTE: fix\nsrc/b.ts:1: // NOTE later");
	});

	it("uses JavaScript regular expressions and searches under a given path or file", async () => {
		expect((await grepTool.execute({ pattern: "^const \\w+ = \\d;$", path: "src" }, ctx)).output).toBe("src/a.ts:3: const note = 1;");
		expect((await grepTool.execute({ pattern: "plain", path: "src/b.ts" }, ctx)).output).toBe("src/b.ts:2: plain");
	});

	it("says when nothing matched", async () => {
		const result = await grepTool.execute({ pattern: "absent", path: "docs" }, ctx);
		expect(result).toEqual({ output: "no matches for /absent/ under docs" });
	});

	it("caps matches and cuts long lines", async () => {
		ws.put({ "many.txt": `${"hit\n".repeat(10)}${"hit ".repeat(100)}\n` });
		const capped = createGrepTool({ maxMatches: 3 });
		expect((await capped.execute({ pattern: "hit", path: "many.txt" }, ctx)).output).toBe(
			"many.txt:1: hit\nmany.txt:2: hit\nmany.txt:3: hit\n[stopped after 3 matches]",
		);
		const short = createGrepTool({ maxLineChars: 8 });
		expect((await short.execute({ pattern: "hit hit", path: "many.txt" }, ctx)).output).toBe("many.txt:11: hit hit …");
	});

	it("skips files over the size limit and says so", async () => {
		ws.put({ "big/huge.txt": `needle\n${"x".repeat(100)}`, "big/small.txt": "needle\n" });
		const tool = createGrepTool({ maxFileBytes: 50 });
		expect((await tool.execute({ pattern: "needle", path: "big" }, ctx)).output).toBe(
			"big/small.txt:1: needle\n[skipped 1 files larger than 50 bytes]",
		);
	});

	it("fails on an invalid regular expression and refuses escapes", async () => {
		await expect(grepTool.execute({ pattern: "(unclosed" }, ctx)).rejects.toBeInstanceOf(ToolError);
		await expect(grepTool.execute({ pattern: "(unclosed" }, ctx)).rejects.toThrow(/not a valid JavaScript regular expression/);
		await expect(grepTool.execute({ pattern: "x", path: "../outside" }, ctx)).rejects.toBeInstanceOf(WorkspaceEscapeError);
	});
});
