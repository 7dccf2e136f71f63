import { readFileSync, symlinkSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspaceEscapeError } from "../kernel/primitives.js";
import { createTempWorkspace, type TempWorkspace } from "../kernel/test-support/temp-workspace.js";
import { DEFAULT_TOOL_LIMITS, type ToolContext } from "./tool.js";
import { writeFileTool } from "./write-file.js";

let ws: TempWorkspace;
let ctx: ToolContext;
beforeEach(() => {
	ws = createTempWorkspace();
	ctx = { kernel: ws.kernel, callId: "call-1", signal: ws.controller.signal, limits: DEFAULT_TOOL_LIMITS };
});
afterEach(() => ws.cleanup());

describe("write_file", () => {
	it("is a confirmed write whose rule subject is the path", () => {
		expect(writeFileTool.readOnly).toBe(false);
		expect(writeFileTool.requiresConfirmation).toBe(true);
		expect(writeFileTool.ruleSubject({ path: "src/x.ts", content: "" })).toEqual({ kind: "path", value: "src/x.ts" });
	});

	it("creates a file and reports bytes, path and the diff", async () => {
		const { output, isError } = await writeFileTool.execute({ path: "out/hello.txt", content: "hi\n" }, ctx);
		expect(isError).toBeUndefined();
		expect(output).toBe("wrote 3 bytes to out/hello.txt (created)\n--- a/out/hello.txt\n+++ b/out/hello.txt\n@@ -0,0 +1,1 @@\n+hi\n");
		expect(readFileSync(path.join(ws.dir, "out/hello.txt"), "utf8")).toBe("hi\n");
		expect(ws.effects.map((e) => [e.effect, e.resource, e.data.created])).toEqual([["fs.write", "fs:out/hello.txt", true]]);
	});

	it("updates a file and the effect carries the same diff the model sees", async () => {
		ws.put({ "a.txt": "one\ntwo\n" });
		const { output } = await writeFileTool.execute({ path: "a.txt", content: "one\nTWO\n" }, ctx);
		expect(output.split("\n")[0]).toBe("wrote 8 bytes to a.txt (updated)");
		expect(output).toContain("-two\n+TWO\n");
		expect(output.endsWith(String(ws.effects[0]?.data.diff))).toBe(true);
	});

	it("truncates a long diff in its result", async () => {
		const { output } = await writeFileTool.execute(
			{ path: "big.txt", content: "line\n".repeat(1000) },
			{ ...ctx, limits: { ...ctx.limits, maxResultChars: 200 } },
		);
		expect(output.length).toBeLessThanOrEqual(200);
		expect(output).toContain("[truncated:");
	});

	it("refuses a path through a symlinked directory that leads outside", async () => {
		symlinkSync(ws.outside, path.join(ws.dir, "out"));
		await expect(writeFileTool.execute({ path: "out/x.txt", content: "x" }, ctx)).rejects.toBeInstanceOf(WorkspaceEscapeError);
		expect(ws.effects).toEqual([]);
	});
});
