import { mkdirSync, symlinkSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspaceEscapeError } from "../kernel/primitives.js";
import { createTempWorkspace, type TempWorkspace } from "../kernel/test-support/temp-workspace.js";
import { listDirTool } from "./list-dir.js";
import { DEFAULT_TOOL_LIMITS, type ToolContext, ToolError } from "./tool.js";

let ws: TempWorkspace;
let ctx: ToolContext;
beforeEach(() => {
	ws = createTempWorkspace();
	ctx = { kernel: ws.kernel, callId: "call-1", signal: ws.controller.signal, limits: DEFAULT_TOOL_LIMITS };
});
afterEach(() => ws.cleanup());

describe("list_dir", () => {
	it("is read-only with the path as rule subject", () => {
		expect([listDirTool.readOnly, listDirTool.requiresConfirmation]).toEqual([true, false]);
		expect(listDirTool.ruleSubject({ path: "." })).toEqual({ kind: "path", value: "." });
	});

	it("lists one entry per line, sorted, directories with a trailing slash", async () => {
		ws.put({ "b.txt": "b", "a/inner.txt": "i", ".hidden": "h" });
		symlinkSync("b.txt", path.join(ws.dir, "c-link"));
		expect((await listDirTool.execute({ path: "." }, ctx)).output).toBe(".hidden\na/\nb.txt\nc-link (symlink)");
		expect((await listDirTool.execute({ path: "a" }, ctx)).output).toBe("inner.txt");
	});

	it("says when a directory is empty", async () => {
		mkdirSync(path.join(ws.dir, "empty"));
		expect((await listDirTool.execute({ path: "empty" }, ctx)).output).toBe("(empty is an empty directory)");
	});

	it("fails as a tool error on a file or missing path and refuses escapes", async () => {
		ws.put({ "f.txt": "x" });
		await expect(listDirTool.execute({ path: "f.txt" }, ctx)).rejects.toBeInstanceOf(ToolError);
		await expect(listDirTool.execute({ path: "nope" }, ctx)).rejects.toThrow(new ToolError("nope does not exist"));
		await expect(listDirTool.execute({ path: ".." }, ctx)).rejects.toBeInstanceOf(WorkspaceEscapeError);
	});
});
