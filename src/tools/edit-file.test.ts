import { readFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../kernel/test-support/temp-workspace.js";
import { countOccurrences, editFileTool } from "./edit-file.js";
import { DEFAULT_TOOL_LIMITS, type ToolContext, ToolError } from "./tool.js";

let ws: TempWorkspace;
let ctx: ToolContext;
beforeEach(() => {
	ws = createTempWorkspace();
	ctx = { kernel: ws.kernel, callId: "call-1", signal: ws.controller.signal, limits: DEFAULT_TOOL_LIMITS };
	ws.put({ "app.js": "const a = 1;\nconst b = 2;\nconst b2 = 2;\n" });
});
afterEach(() => ws.cleanup());

const content = () => readFileSync(path.join(ws.dir, "app.js"), "utf8");

describe("edit_file", () => {
	it("is a confirmed write whose rule subject is the path", () => {
		expect([editFileTool.readOnly, editFileTool.requiresConfirmation]).toEqual([false, true]);
		expect(editFileTool.ruleSubject({ path: "app.js", old: "a", new: "b" })).toEqual({ kind: "path", value: "app.js" });
	});

	it("replaces the one occurrence, writes through fs.write and shows the diff", async () => {
		const { output } = await editFileTool.execute({ path: "app.js", old: "const a = 1;", new: "const a = 10;" }, ctx);
		expect(content()).toBe("const a = 10;\nconst b = 2;\nconst b2 = 2;\n");
		expect(output).toContain("edited app.js: replaced 1 occurrence");
		expect(output).toContain("-const a = 1;\n+const a = 10;\n");
		expect(ws.effects.map((e) => e.resource)).toEqual(["fs:app.js"]);
		expect(ws.effects[0]?.data.diff).toContain("+const a = 10;");
	});

	it("keeps $-patterns in the new text literal", async () => {
		await editFileTool.execute({ path: "app.js", old: "const a = 1;", new: "const a = '$&$1';" }, ctx);
		expect(content().split("\n")[0]).toBe("const a = '$&$1';");
	});

	it("fails when old is not found, leaving the file alone", async () => {
		await expect(editFileTool.execute({ path: "app.js", old: "const z", new: "x" }, ctx)).rejects.toThrow(
			new ToolError("old text not found in app.js"),
		);
		expect(ws.effects).toEqual([]);
	});

	it("fails when old is ambiguous, saying how many times it occurs", async () => {
		await expect(editFileTool.execute({ path: "app.js", old: " = 2;", new: " = 3;" }, ctx)).rejects.toThrow(
			/^old text occurs 2 times in app\.js/,
		);
		expect(content()).toContain("const b = 2;\nconst b2 = 2;");
		expect(ws.effects).toEqual([]);
	});

	it("fails on an empty old, identical old and new, and a missing file", async () => {
		await expect(editFileTool.execute({ path: "app.js", old: "", new: "x" }, ctx)).rejects.toThrow("old is empty");
		await expect(editFileTool.execute({ path: "app.js", old: "a", new: "a" }, ctx)).rejects.toThrow("identical");
		await expect(editFileTool.execute({ path: "none.js", old: "a", new: "b" }, ctx)).rejects.toThrow(
			new ToolError("none.js does not exist"),
		);
	});

	it("counts overlapping occurrences as ambiguous", () => {
		expect(countOccurrences("aaa", "aa")).toBe(2);
		expect(countOccurrences("abc", "d")).toBe(0);
	});
});
