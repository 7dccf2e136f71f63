import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspaceEscapeError } from "../kernel/primitives.js";
import { createTempWorkspace, type TempWorkspace } from "../kernel/test-support/temp-workspace.js";
import { readFileTool } from "./read-file.js";
import { DEFAULT_TOOL_LIMITS, type ToolContext, ToolError } from "./tool.js";

let ws: TempWorkspace;
let ctx: ToolContext;
beforeEach(() => {
	ws = createTempWorkspace();
	ctx = { kernel: ws.kernel, callId: "call-1", signal: ws.controller.signal, limits: DEFAULT_TOOL_LIMITS };
});
afterEach(() => ws.cleanup());

describe("read_file", () => {
	it("is read-only, needs no confirmation, and matches rules on its path", () => {
		expect(readFileTool.readOnly).toBe(true);
		expect(readFileTool.requiresConfirmation).toBe(false);
		expect(readFileTool.ruleSubject({ path: "a.md" })).toEqual({ kind: "path", value: "a.md" });
	});

	it("returns the file's text and records no effect", async () => {
		ws.put({ "notes/a.md": "# Title\nbody\n" });
		expect(await readFileTool.execute({ path: "notes/a.md" }, ctx)).toEqual({ output: "# Title\nbody\n" });
		expect(ws.effects).toEqual([]);
	});

	it("truncates to the result limit with a visible marker", async () => {
		ws.put({ "long.txt": "x".repeat(500) });
		const { output } = await readFileTool.execute({ path: "long.txt" }, { ...ctx, limits: { ...ctx.limits, maxResultChars: 100 } });
		expect(output.length).toBeLessThanOrEqual(100);
		expect(output).toMatch(/\[truncated: showing the first \d+ of 500 characters\]$/);
	});

	it("says when a file is empty", async () => {
		ws.put({ "empty.txt": "" });
		expect((await readFileTool.execute({ path: "empty.txt" }, ctx)).output).toBe("(empty.txt is empty)");
	});

	it("fails as a tool error on missing, binary and oversized files", async () => {
		ws.put({ "bin.dat": new Uint8Array([1, 0, 2]), "big.txt": "0123456789" });
		await expect(readFileTool.execute({ path: "missing.txt" }, ctx)).rejects.toBeInstanceOf(ToolError);
		await expect(readFileTool.execute({ path: "missing.txt" }, ctx)).rejects.toThrow("missing.txt does not exist");
		await expect(readFileTool.execute({ path: "bin.dat" }, ctx)).rejects.toThrow(new ToolError("bin.dat is a binary file (3 bytes)"));
		await expect(
			readFileTool.execute({ path: "big.txt" }, { ...ctx, limits: { ...ctx.limits, maxReadBytes: 5 } }),
		).rejects.toBeInstanceOf(ToolError);
	});

	it("lets a workspace escape through unchanged", async () => {
		await expect(readFileTool.execute({ path: "../outside/x" }, ctx)).rejects.toBeInstanceOf(WorkspaceEscapeError);
	});
});
