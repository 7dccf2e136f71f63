import { existsSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../kernel/test-support/temp-workspace.js";
import { shellTool } from "./shell.js";
import { DEFAULT_TOOL_LIMITS, type ToolContext, ToolError } from "./tool.js";

let ws: TempWorkspace;
let ctx: ToolContext;
beforeEach(() => {
	ws = createTempWorkspace({ env: { PATH: process.env.PATH, FAKE_API_KEY: "sk-not-real", SHOWN: "visible" } });
	ctx = { kernel: ws.kernel, callId: "call-1", signal: ws.controller.signal, limits: DEFAULT_TOOL_LIMITS };
});
afterEach(() => ws.cleanup());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("shell", () => {
	it("is a confirmed, non-read-only tool whose rule subject is the command", () => {
		expect([shellTool.readOnly, shellTool.requiresConfirmation]).toEqual([false, true]);
		expect(shellTool.ruleSubject({ command: "git status" })).toEqual({ kind: "command", value: "git status" });
	});

	it("reports exit code, stdout and stderr, and records the effect", async () => {
		const result = await shellTool.execute({ command: "echo out; echo err >&2" }, ctx);
		expect(result).toEqual({ output: "exit code: 0\nstdout:\nout\nstderr:\nerr", isError: false });
		expect(ws.effects.map((e) => [e.effect, e.resource, e.data.exit_code])).toEqual([["shell.exec", "shell:echo out; echo err >&2", 0]]);
	});

	it("runs in the workspace", async () => {
		ws.put({ "here.txt": "" });
		expect((await shellTool.execute({ command: "ls" }, ctx)).output).toContain("stdout:\nhere.txt\n");
	});

	it("marks a non-zero exit as an error", async () => {
		const result = await shellTool.execute({ command: "exit 7" }, ctx);
		expect(result.isError).toBe(true);
		expect(result.output).toBe("exit code: 7\nstdout:\n(empty)\nstderr:\n(empty)");
	});

	it("kills the whole process tree at the timeout", async () => {
		const marker = path.join(ws.dir, "marker");
		const started = Date.now();
		const result = await shellTool.execute({ command: `(sleep 1; touch ${marker}) & sleep 100`, timeout_ms: 300 }, ctx);
		expect(Date.now() - started).toBeLessThan(3_000);
		expect(result.isError).toBe(true);
		expect(result.output).toContain("[timed out after 300 ms: the command and its children were killed]");
		expect(ws.effects[0]?.data).toMatchObject({ timed_out: true });
		await sleep(1_500);
		expect(existsSync(marker)).toBe(false);
	});

	it("bounds timeout_ms by the host's maximum", async () => {
		const limits = { ...DEFAULT_TOOL_LIMITS, shellMaxTimeoutMs: 200 };
		const result = await shellTool.execute({ command: "sleep 30", timeout_ms: 60_000 }, { ...ctx, limits });
		expect(result.output).toContain("[timed out after 200 ms");
	});

	it("caps captured output and says so", async () => {
		const limits = { ...DEFAULT_TOOL_LIMITS, shellMaxOutputBytes: 100 };
		const result = await shellTool.execute({ command: "head -c 5000 /dev/zero | tr '\\0' x" }, { ...ctx, limits });
		expect(result.output).toContain("[output truncated: only the first 100 bytes were captured]");
		expect(result.output).toContain(`stdout:\n${"x".repeat(100)}\nstderr:`);
		expect(ws.effects[0]?.data.truncated).toBe(true);
	});

	it("keeps stderr visible when stdout floods the result budget", async () => {
		const limits = { ...DEFAULT_TOOL_LIMITS, maxResultChars: 400 };
		const result = await shellTool.execute({ command: "head -c 5000 /dev/zero | tr '\\0' x; echo 'the real error' >&2; exit 1" }, { ...ctx, limits });
		expect(result.output.length).toBeLessThanOrEqual(400);
		expect(result.output).toContain("stderr:\nthe real error");
	});

	it("is cancelled through the call's AbortSignal", async () => {
		setTimeout(() => ws.controller.abort(), 200);
		const started = Date.now();
		const result = await shellTool.execute({ command: "sleep 100" }, ctx);
		expect(Date.now() - started).toBeLessThan(3_000);
		expect(result.isError).toBe(true);
		expect(result.output).toContain("[cancelled: the command and its children were killed]");
		expect(ws.effects[0]?.data).toMatchObject({ cancelled: true });
		await expect(shellTool.execute({ command: "true" }, ctx)).rejects.toBeInstanceOf(ToolError);
	});

	it("does not pass credential-looking variables to the command", async () => {
		const result = await shellTool.execute({ command: 'echo "key=[$FAKE_API_KEY] shown=[$SHOWN]"' }, ctx);
		expect(result.output).toContain("key=[] shown=[visible]");
	});
});
