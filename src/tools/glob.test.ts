import { symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../kernel/test-support/temp-workspace.js";
import { createGlobTool, globTool } from "./glob.js";
import { DEFAULT_TOOL_LIMITS, type ToolContext, ToolError } from "./tool.js";

let ws: TempWorkspace;
let ctx: ToolContext;
beforeEach(() => {
	ws = createTempWorkspace();
	ctx = { kernel: ws.kernel, callId: "call-1", signal: ws.controller.signal, limits: DEFAULT_TOOL_LIMITS };
	ws.put({
		"src/b.ts": "",
		"src/a.ts": "",
		"src/deep/c.ts": "",
		"src/readme.md": "",
		"top.ts": "",
		".git/config.ts": "",
		"node_modules/pkg/index.ts": "",
	});
});
afterEach(() => ws.cleanup());

describe("glob", () => {
	it("is read-only with the pattern as rule subject", () => {
		expect([globTool.readOnly, globTool.requiresConfirmation]).toEqual([true, false]);
		expect(globTool.ruleSubject({ pattern: "**/*.ts" })).toEqual({ kind: "pattern", value: "**/*.ts" });
	});

	it("returns sorted matches, skipping .git and node_modules", async () => {
		expect((await globTool.execute({ pattern: "**/*.ts" }, ctx)).output).toBe("src/a.ts\nsrc/b.ts\nsrc/deep/c.ts\ntop.ts");
		expect((await globTool.execute({ pattern: "src/*.ts" }, ctx)).output).toBe("src/a.ts\nsrc/b.ts");
		expect((await globTool.execute({ pattern: "./src/*.md" }, ctx)).output).toBe("src/readme.md");
	});

	it("does not follow a symlink out of the workspace", async () => {
		symlinkSync(ws.outside, path.join(ws.dir, "out"));
		writeFileSync(path.join(ws.outside, "leak.ts"), "");
		expect((await globTool.execute({ pattern: "**/leak.ts" }, ctx)).output).toBe("no files match **/leak.ts");
	});

	it("caps the matches and says how many there were", async () => {
		const capped = createGlobTool({ maxMatches: 2 });
		expect((await capped.execute({ pattern: "**/*.ts" }, ctx)).output).toBe("src/a.ts\nsrc/b.ts\n[showing the first 2 of 4 matches]");
	});

	it("says when the scan stopped early", async () => {
		const small = createGlobTool({ maxScannedFiles: 2 });
		const { output } = await small.execute({ pattern: "**" }, ctx);
		expect(output).toBe("src/a.ts\nsrc/b.ts\n[stopped after scanning 2 files: matches may be missing]");
	});

	it("refuses patterns that point outside the workspace", async () => {
		await expect(globTool.execute({ pattern: "../*" }, ctx)).rejects.toBeInstanceOf(ToolError);
		await expect(globTool.execute({ pattern: "/etc/*" }, ctx)).rejects.toBeInstanceOf(ToolError);
	});
});
