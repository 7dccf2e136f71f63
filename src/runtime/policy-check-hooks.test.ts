/**
 * `checkPolicy` with the PreToolUse hooks a session would run, with real bash and node hook scripts:
 * each hook's verdict is shown, and the combined decision is the session's — a hook may deny or
 * downgrade to ask, never upgrade; a rewritten input is decided again; a hook that hangs fails closed.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bashHook, handler, nodeHook } from "./hooks/test-support/hook-scripts.js";
import { checkPolicy, type PolicyCheck, type PolicyCheckRequest } from "./policy-check.js";

let workspace: string;
let scripts: string;

beforeEach(() => {
	workspace = realpathSync(mkdtempSync(join(tmpdir(), "warden-check-hooks-ws-")));
	scripts = mkdtempSync(join(tmpdir(), "warden-check-hooks-"));
});

afterEach(() => {
	rmSync(workspace, { recursive: true, force: true });
	rmSync(scripts, { recursive: true, force: true });
});

async function check(request: Partial<PolicyCheckRequest> & Pick<PolicyCheckRequest, "tool" | "arguments">): Promise<PolicyCheck> {
	const result = await checkPolicy({ workspace, mode: "workspace-write", ...request }, { env: process.env });
	if (!result.valid) throw new Error(result.error);
	return result;
}

const write = { tool: "write_file", arguments: { path: "notes.txt", content: "x\n" } };

describe("policy check with PreToolUse hooks", () => {
	it("a bash hook's exit 2 denies an allowed call: the policy's allow, the hook's verdict and its stderr are shown", async () => {
		const command = bashHook(scripts, "block", 'input=$(cat); case "$input" in *\'"tool_use_id":"policy-check"\'*) echo "no writes today" >&2; exit 2;; esac; exit 0');
		const c = await check({ ...write, hooks: [handler("PreToolUse", "write_file|edit_file", command)] });
		expect(c).toMatchObject({ decision: "deny", layer: "hook", reason: expect.stringContaining("no writes today") });
		expect(c.verdict).toMatchObject({ outcome: "deny", by: "decision" });
		expect(c.hooks).toEqual({
			policy: { decision: "allow", layer: "mode-rule", reason: expect.any(String) },
			rewrites: 0,
			runs: [expect.objectContaining({ round: 0, command, origin: "user", matcher: "write_file|edit_file", source: "test: hooks.PreToolUse", verdict: "deny", exit_code: 2, timed_out: false, reason: "no writes today", duration_ms: expect.any(Number) })],
		});
		expect(c.rule).toBeUndefined();
		// Nothing ran but the hook.
		expect(existsSync(join(workspace, "notes.txt"))).toBe(false);
	});

	it("a node hook's allow cannot upgrade an ask: the ask stands and the run says why it was not applied", async () => {
		const command = nodeHook(scripts, "allow", `return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "fine by me" } };`);
		const c = await check({ tool: "shell", arguments: { command: "curl https://example.com" }, hooks: [handler("PreToolUse", "shell", command)] });
		expect(c.decision).toBe("ask");
		expect(c.layer).not.toBe("hook");
		expect(c.hooks?.runs).toEqual([expect.objectContaining({ verdict: "allow", refused: expect.stringMatching(/^a hook cannot upgrade past the policy: it said allow, the policy decided ask/) })]);
	});

	it("a node hook's ask downgrades an allow; a hook whose matcher does not take the tool does not run", async () => {
		const asks = nodeHook(scripts, "ask", `return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: event.tool_input.path + " wants a look" } };`);
		const never = bashHook(scripts, "never", "exit 2");
		const c = await check({ ...write, hooks: [handler("PreToolUse", "write_file", asks), handler("PreToolUse", "shell", never)] });
		expect(c).toMatchObject({ decision: "ask", layer: "hook", reason: expect.stringContaining("notes.txt wants a look") });
		expect(c.hooks?.runs.map((r) => [r.command, r.verdict])).toEqual([[asks, "ask"]]);
		const other = await check({ tool: "read_file", arguments: { path: "notes.txt" }, hooks: [handler("PreToolUse", "shell", never)] });
		expect(other.hooks).toMatchObject({ runs: [] });
		expect(other.decision).toBe("allow");
	});

	it("a rewrite is decided again from the start: a path rewritten to a protected one gets the protected-path decision, and that input is explained", async () => {
		const command = nodeHook(scripts, "rewrite", `return event.tool_input.path === "notes.txt" ? { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { ...event.tool_input, path: ".git/hooks/pre-commit" } } } : undefined;`);
		const plain = await check({ tool: "write_file", arguments: { path: ".git/hooks/pre-commit", content: "x\n" } });
		const c = await check({ ...write, hooks: [handler("PreToolUse", "write_file", command)] });
		expect(c.arguments).toEqual({ path: ".git/hooks/pre-commit", content: "x\n" });
		expect(c).toMatchObject({ decision: plain.decision, layer: plain.layer });
		expect(c.protected).toMatchObject({ path: ".git/hooks/pre-commit" });
		expect(c.hooks).toMatchObject({ rewrites: 1, runs: [expect.objectContaining({ round: 0, updated_input: { path: ".git/hooks/pre-commit", content: "x\n" } }), expect.objectContaining({ round: 1, verdict: "none" })] });
	});

	it("a hook that hangs is killed at its timeout and fails closed", async () => {
		const command = bashHook(scripts, "hang", "sleep 30");
		const c = await check({ ...write, hooks: [handler("PreToolUse", "write_file", command, { timeoutMs: 300 })] });
		expect(c).toMatchObject({ decision: "deny", layer: "hook" });
		expect(c.hooks?.runs).toEqual([expect.objectContaining({ verdict: "failed", timed_out: true })]);
	});

	it("a hook cannot loosen a hardline deny, and without hooks nothing is said of them", async () => {
		const command = nodeHook(scripts, "allow-all", `return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } };`);
		const c = await check({ tool: "shell", arguments: { command: "rm -rf /" }, hooks: [handler("PreToolUse", "", command)] });
		expect(c.decision).toBe("deny");
		expect(c.hooks?.runs[0]).toMatchObject({ verdict: "allow", refused: expect.stringContaining("the policy decided deny") });
		const none = await check(write);
		expect(none.hooks).toBeUndefined();
		expect(none.decision).toBe("allow");
	});
});
