import { describe, expect, it } from "vitest";
import type { HookProcessResult } from "../../providers/hook-process.js";
import { parseHookResult } from "./hook-output.js";
import type { HookEvent } from "./hook-types.js";

const result = (over: Partial<HookProcessResult>): HookProcessResult => ({ exitCode: 0, signal: null, stdout: "", stderr: "", timedOut: false, durationMs: 1, ...over });
const json = (value: unknown) => result({ stdout: JSON.stringify(value) });
const pre = (permissionDecision: unknown, extra: Record<string, unknown> = {}) => json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision, ...extra } });

/** One row per case: the event, what the process did, and the verdict (with its reason's gist) that must follow. */
const ROWS: [what: string, event: HookEvent, run: HookProcessResult, verdict: string, reason?: RegExp][] = [
	["PreToolUse exit 0, no output", "PreToolUse", result({}), "none"],
	["PreToolUse exit 2", "PreToolUse", result({ exitCode: 2, stderr: "nope\n" }), "deny", /^nope$/],
	["PreToolUse exit 2 with empty stderr", "PreToolUse", result({ exitCode: 2 }), "deny", /exit 2/],
	["PreToolUse exit 1", "PreToolUse", result({ exitCode: 1, stderr: "boom" }), "failed", /exited 1: boom/],
	["PreToolUse killed at its timeout", "PreToolUse", result({ exitCode: null, timedOut: true }), "failed", /did not finish within 5 s/],
	["PreToolUse not started", "PreToolUse", result({ exitCode: null, spawnError: "ENOENT" }), "failed", /could not be started/],
	["PreToolUse plain text", "PreToolUse", result({ stdout: "ok\n" }), "failed", /not a JSON object/],
	["PreToolUse broken JSON", "PreToolUse", result({ stdout: "{oops" }), "failed", /not a JSON object/],
	["PreToolUse JSON array", "PreToolUse", result({ stdout: "[1]" }), "failed", /not a JSON object/],
	["PreToolUse deny", "PreToolUse", pre("deny", { permissionDecisionReason: "frozen" }), "deny", /frozen/],
	["PreToolUse ask", "PreToolUse", pre("ask"), "ask"],
	["PreToolUse allow", "PreToolUse", pre("allow"), "allow"],
	["PreToolUse unknown decision", "PreToolUse", pre("maybe"), "failed", /must be allow, ask or deny/],
	["PreToolUse legacy block", "PreToolUse", json({ decision: "block", reason: "old style" }), "deny", /old style/],
	["PreToolUse legacy approve", "PreToolUse", json({ decision: "approve" }), "allow"],
	["PreToolUse continue: false", "PreToolUse", json({ continue: false, stopReason: "halt" }), "deny", /halt/],
	["PreToolUse updatedInput not an object", "PreToolUse", pre("allow", { updatedInput: "x" }), "failed", /updatedInput must be a JSON object/],
	["PostToolUse exit 2", "PostToolUse", result({ exitCode: 2, stderr: "lint" }), "block", /lint/],
	["PostToolUse decision block", "PostToolUse", json({ decision: "block", reason: "fix it" }), "block", /fix it/],
	["PostToolUse exit 1", "PostToolUse", result({ exitCode: 1 }), "failed"],
	["PostToolUse plain text", "PostToolUse", result({ stdout: "done" }), "none"],
	["Notification exit 2 cannot block", "Notification", result({ exitCode: 2, stderr: "x" }), "none"],
	["Stop decision block", "Stop", json({ decision: "block", reason: "not yet" }), "block", /not yet/],
	["UserPromptSubmit exit 2", "UserPromptSubmit", result({ exitCode: 2, stderr: "secret in prompt" }), "block", /secret in prompt/],
	["SessionStart exit 2 cannot block", "SessionStart", result({ exitCode: 2 }), "none"],
];

describe("what a hook's exit and output mean", () => {
	for (const [what, event, run, verdict, reason] of ROWS) {
		it(what, () => {
			const parsed = parseHookResult(event, run, 5000);
			expect(parsed.verdict).toBe(verdict);
			if (reason) expect(parsed.reason).toMatch(reason);
		});
	}

	it("plain stdout is context for UserPromptSubmit and SessionStart, as in Claude Code", () => {
		expect(parseHookResult("UserPromptSubmit", result({ stdout: "branch: main\n" }), 5000)).toEqual({ verdict: "none", additionalContext: "branch: main" });
		expect(parseHookResult("SessionStart", result({ stdout: "hello" }), 5000)).toEqual({ verdict: "none", additionalContext: "hello" });
	});

	it("reads additionalContext and updatedInput from hookSpecificOutput", () => {
		expect(parseHookResult("PreToolUse", pre("ask", { additionalContext: "ctx", updatedInput: { path: "b" } }), 5000)).toEqual({ verdict: "ask", additionalContext: "ctx", updatedInput: { path: "b" } });
	});
});
