/** Hooks in real sessions, with real bash and node hook scripts: they decide inside the one pipeline. */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { ScriptedModel } from "../../models/scripted.js";
import { EVERYTHING_SERVER, nodeServer } from "../../providers/mcp/test-support/mcp-servers.js";
import { approveMcpTools } from "../mcp/mcp-approvals.js";
import type { McpServerConfig } from "../mcp/mcp-server-config.js";
import type { Runtime } from "../runtime.js";
import type { ConfirmCallback } from "../session-options.js";
import { eventValidator, expectSoundEvidence } from "../test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "../test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "../test-support/test-runtime.js";
import type { HookHandler } from "./hook-types.js";
import { bashHook, handler, nodeHook, settledState } from "./test-support/hook-scripts.js";

const validate = eventValidator(JSON.parse(readFileSync(new URL("../../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;
let scripts: string;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-hooks-", { files: { "notes.txt": "the notes\n" }, dirs: ["secrets"] }));
	workspace = realpathSync(workspace);
	scripts = mkdtempSync(join(tmpdir(), "warden-hook-scripts-"));
});

afterEach(async () => {
	await closeTestRuntime({ root, runtime });
	rmSync(scripts, { recursive: true, force: true });
});

const write = (path: string) => callsStep({ name: "write_file", arguments: { path, content: "x\n" } });
const done = { text: "done", toolCalls: [] };

async function run(hooks: HookHandler[], answers: ConstructorParameters<typeof RecordingModel>[0], extra: Record<string, unknown> = {}) {
	const model = new RecordingModel(answers);
	const events: AnyWardenEvent[] = [];
	const session = await runtime.openSession({ workspace, model, hooks, ...extra });
	const result = await session.send("go", { onEvent: (e) => events.push(e) });
	await session.end();
	// Every run's events match the published schema and the trace invariant, hook runs included.
	await expectSoundEvidence(runtime, session.id, validate);
	const audit = await runtime.listAudit({ session: session.id });
	return { result, events, audit, model, session };
}

const ran = (events: AnyWardenEvent[]) => events.filter((e) => e.kind === "hook.ran").map((e) => e.payload as Record<string, unknown>);
const toolText = (model: RecordingModel, request: number) => model.requests[request]!.filter((m) => m.role === "tool").map((m) => m.content).join("\n");

describe("PreToolUse hooks", () => {
	it("exit 2 blocks the call, and its stderr is the reason the model reads", async () => {
		const command = bashHook(scripts, "block", 'cat > /dev/null; echo "no writes today" >&2; exit 2');
		const { events, audit, model } = await run([handler("PreToolUse", "write_file|edit_file", command)], [write("a.txt"), done]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(toolText(model, 1)).toContain("no writes today");
		expect(events.find((e) => e.kind === "permission.decided")?.payload).toMatchObject({ decision: "deny", layer: "hook" });
		expect(ran(events)).toEqual([expect.objectContaining({ call_id: "call_1_1_1", event: "PreToolUse", handler: command, exit_code: 2, verdict: "deny", target: "write_file" })]);
		const record = audit.find((r) => r.kind === "hook.ran")!;
		expect(record.call_id).toBe("call_1_1_1");
		expect(record.data).toMatchObject({ event: "PreToolUse", handler: command, exit_code: 2, verdict: "deny", stderr: "no writes today\n" });
		expect(typeof record.data.duration_ms).toBe("number");
	});

	it("a matcher that does not take the tool's name does not run", async () => {
		const command = bashHook(scripts, "never", "exit 2");
		const { events } = await run([handler("PreToolUse", "shell", command)], [write("a.txt"), done]);
		expect(ran(events)).toEqual([]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(true);
	});

	it("a JSON deny (node) denies, with its reason", async () => {
		const plain = nodeHook(scripts, "deny2", `return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "a.txt is frozen" } };`);
		const { model, events } = await run([handler("PreToolUse", "write_file", plain)], [write("a.txt"), done]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(toolText(model, 1)).toContain("a.txt is frozen");
		expect(ran(events)[0]).toMatchObject({ verdict: "deny", exit_code: 0 });
	});

	it("passes the event on stdin: session, cwd, event name, tool name and input", async () => {
		const seen = join(scripts, "seen.json");
		const command = bashHook(scripts, "tee", `cat > ${JSON.stringify(seen)}`);
		const { session } = await run([handler("PreToolUse", "", command)], [write("a.txt"), done]);
		expect(JSON.parse(readFileSync(seen, "utf8"))).toEqual({
			session_id: session.id,
			cwd: workspace,
			hook_event_name: "PreToolUse",
			permission_mode: "workspace-write",
			tool_name: "write_file",
			tool_input: { path: "a.txt", content: "x\n" },
			tool_use_id: "call_1_1_1",
		});
	});

	it("an allow over a policy deny changes nothing and is recorded as refused", async () => {
		const command = nodeHook(scripts, "allow", `return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } };`);
		const { events } = await run([handler("PreToolUse", "write_file", command)], [write("secrets/key.txt"), done], { rules: { deny: ["write_file(secrets/**)"] } });
		expect(existsSync(join(workspace, "secrets/key.txt"))).toBe(false);
		expect(events.find((e) => e.kind === "permission.decided")?.payload).toMatchObject({ decision: "deny", layer: "host-rule" });
		expect(ran(events)[0]).toMatchObject({ verdict: "allow", refused: expect.stringContaining("cannot upgrade past the policy") });
	});

	it("an allow over a policy ask still asks the host", async () => {
		const asked: string[] = [];
		const confirm: ConfirmCallback = async (request) => {
			asked.push(request.tool);
			return false;
		};
		const command = nodeHook(scripts, "allow", `return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } };`);
		const { events } = await run([handler("PreToolUse", "write_file", command)], [write("a.txt"), done], { rules: { ask: ["write_file(a.txt)"] }, confirm });
		expect(asked).toEqual(["write_file"]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(ran(events)[0]).toMatchObject({ verdict: "allow", refused: expect.stringContaining("the policy decided ask") });
	});

	it("an ask downgrades an allowed call to a question for the host, and a Notification hook hears it", async () => {
		const asked: string[] = [];
		const confirm: ConfirmCallback = async (request) => {
			asked.push(request.tool);
			return false;
		};
		const ask = nodeHook(scripts, "ask", `return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check this one" } };`);
		const notified = join(scripts, "notified.json");
		const notify = bashHook(scripts, "notify", `cat > ${JSON.stringify(notified)}`);
		const { events } = await run([handler("PreToolUse", "write_file", ask), handler("Notification", "permission_prompt", notify)], [write("a.txt"), done], { confirm });
		expect(asked).toEqual(["write_file"]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(events.find((e) => e.kind === "permission.decided")?.payload).toMatchObject({ decision: "ask", layer: "hook", reason: expect.stringContaining("check this one") });
		expect(ran(events)[0]).not.toHaveProperty("refused");
		expect(JSON.parse(readFileSync(notified, "utf8"))).toMatchObject({ hook_event_name: "Notification", notification_type: "permission_prompt", tool_name: "write_file" });
	});

	it("an updatedInput is decided again: rewritten to a path the policy denies, the call is denied", async () => {
		const command = nodeHook(scripts, "rewrite", `return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { ...event.tool_input, path: "secrets/key.txt" } } };`);
		const { events } = await run([handler("PreToolUse", "write_file", command)], [write("a.txt"), done], { rules: { deny: ["write_file(secrets/**)"] } });
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(existsSync(join(workspace, "secrets/key.txt"))).toBe(false);
		const decided = events.find((e) => e.kind === "permission.decided")!.payload;
		expect(decided).toMatchObject({ decision: "deny", layer: "host-rule", rule: "write_file(secrets/**)" });
		// The hook ran on the original input and again on the rewritten one, where its allow was refused.
		expect(ran(events).map((r) => [r.verdict, r.updated_input, r.refused === undefined])).toEqual([
			["allow", true, true],
			["allow", true, false],
		]);
	});

	it("an updatedInput the policy allows runs instead of the original", async () => {
		const command = nodeHook(scripts, "rewrite", `return event.tool_input.path === "a.txt" ? { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { ...event.tool_input, path: "b.txt" } } } : undefined;`);
		const { audit } = await run([handler("PreToolUse", "write_file", command)], [write("a.txt"), done]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(readFileSync(join(workspace, "b.txt"), "utf8")).toBe("x\n");
		expect(audit.find((r) => r.kind === "permission.decided")?.data.arguments).toEqual({ path: "b.txt", content: "x\n" });
	});

	it("an updatedInput that fails the tool's schema denies the call", async () => {
		const command = nodeHook(scripts, "bad", `return { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { path: 7 } } };`);
		const { events } = await run([handler("PreToolUse", "write_file", command)], [write("a.txt"), done]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(events.find((e) => e.kind === "permission.decided")?.payload).toMatchObject({ decision: "deny", layer: "hook", reason: expect.stringContaining("invalid call") });
	});

	it("a hook that hangs is killed at its timeout, with what it started, and the call fails closed", async () => {
		const pidFile = join(scripts, "sleep.pid");
		const command = bashHook(scripts, "hang", `sleep 30 & echo $! > ${JSON.stringify(pidFile)}; wait`);
		const { events, model } = await run([handler("PreToolUse", "write_file", command, { timeoutMs: 1000 })], [write("a.txt"), done]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(ran(events)[0]).toMatchObject({ verdict: "failed", timed_out: true, exit_code: null });
		expect(toolText(model, 1)).toContain("did not finish within 1 s");
		// The hook's background sleep went with its group: gone, or a zombie waiting to be reaped.
		const pid = readFileSync(pidFile, "utf8").trim();
		expect(["gone", "Z", "X"]).toContain(await settledState(pid));
	});

	it("a turn cancelled while a PreToolUse hook runs stops the hook, and the call does not run", async () => {
		const started = join(scripts, "started");
		const command = bashHook(scripts, "slow", `cat > /dev/null; touch ${JSON.stringify(started)}; sleep 30`);
		const controller = new AbortController();
		const model = new RecordingModel([write("a.txt"), done]);
		const session = await runtime.openSession({ workspace, model, hooks: [handler("PreToolUse", "write_file", command, { timeoutMs: 60_000 })] });
		const turn = session.send("go", { signal: controller.signal });
		for (let i = 0; i < 1000 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 10));
		controller.abort();
		const result = await turn;
		await session.end();
		expect(result.status).toBe("cancelled");
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		const record = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "hook.ran")!;
		expect(record.data).toMatchObject({ verdict: "failed", timed_out: false, reason: expect.stringContaining("turn was cancelled") });
		await expectSoundEvidence(runtime, session.id, validate);
	});

	it("a hook that crashes, or prints what is not JSON, fails closed", async () => {
		const crash = bashHook(scripts, "crash", "exit 1");
		const garbage = bashHook(scripts, "garbage", "echo '{not json'");
		for (const command of [crash, garbage]) {
			const { events } = await run([handler("PreToolUse", "write_file", command)], [write("a.txt"), done]);
			expect(existsSync(join(workspace, "a.txt"))).toBe(false);
			expect(ran(events)[0]).toMatchObject({ verdict: "failed" });
			expect(events.find((e) => e.kind === "permission.decided")?.payload).toMatchObject({ decision: "deny", layer: "hook" });
		}
	});

	it("additionalContext reaches the model as labelled data; a project hook's lowers the context's integrity", async () => {
		const command = nodeHook(scripts, "context", `return { hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "remember the style guide" } };`);
		const user = await run([handler("PreToolUse", "read_file", command)], [callsStep({ name: "read_file", arguments: { path: "notes.txt" } }), done]);
		const text = toolText(user.model, 1);
		expect(text).toContain("the notes");
		expect(text).toContain("[context from PreToolUse hook");
		expect(text).toContain("remember the style guide");
		expect(user.session.contextLabel.integrity).toBe("trusted");
		const project = await run([handler("PreToolUse", "read_file", command, { origin: "project" })], [callsStep({ name: "read_file", arguments: { path: "notes.txt" } }), done]);
		expect(toolText(project.model, 1)).toContain("from the project, untrusted");
		expect(project.session.contextLabel.integrity).toBe("untrusted");
	});
});

describe("PostToolUse and the turn's hooks", () => {
	it("PostToolUse sees the call's result; PostToolUseFailure sees a failure", async () => {
		const seen = join(scripts, "post.jsonl");
		const command = bashHook(scripts, "post", `cat >> ${JSON.stringify(seen)}; echo >> ${JSON.stringify(seen)}`);
		await run(
			[handler("PostToolUse", "read_file", command), handler("PostToolUseFailure", "read_file", command)],
			[callsStep({ name: "read_file", arguments: { path: "notes.txt" } }), callsStep({ name: "read_file", arguments: { path: "missing.txt" } }), done],
		);
		const [post, failure] = readFileSync(seen, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
		expect(post).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "read_file", tool_input: { path: "notes.txt" }, tool_response: expect.stringContaining("the notes") });
		expect(failure).toMatchObject({ hook_event_name: "PostToolUseFailure", tool_name: "read_file", error: expect.any(String) });
	});

	it("a blocking PostToolUse hook's reason goes to the model beside the result", async () => {
		const command = bashHook(scripts, "post-block", `cat > /dev/null; echo "lint failed: trailing space" >&2; exit 2`);
		const { model } = await run([handler("PostToolUse", "write_file", command)], [write("a.txt"), done]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(true);
		expect(toolText(model, 1)).toContain("lint failed: trailing space");
	});

	it("UserPromptSubmit exit 2 ends the turn before any model call; SessionStart, Stop and SessionEnd run", async () => {
		const log = join(scripts, "events.log");
		const note = bashHook(scripts, "note", `node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>console.log(JSON.parse(s).hook_event_name))' >> ${JSON.stringify(log)}`);
		const block = bashHook(scripts, "block-prompt", `cat > /dev/null; echo "no prompts with secrets" >&2; exit 2`);
		const blocked = await run([handler("SessionStart", "", note), handler("UserPromptSubmit", "", block), handler("SessionEnd", "", note)], [done]);
		expect(blocked.result).toMatchObject({ status: "cancelled", error: expect.stringContaining("no prompts with secrets") });
		expect(blocked.model.requests).toHaveLength(0);
		const clean = await run([handler("Stop", "", note), handler("UserPromptSubmit", "", note)], [done]);
		expect(clean.result.status).toBe("completed");
		expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["SessionStart", "SessionEnd", "UserPromptSubmit", "Stop"]);
	});

	it("PreCompact runs before a compaction, told what started it", async () => {
		const seen = join(scripts, "compact.json");
		const command = bashHook(scripts, "pre-compact", `cat > ${JSON.stringify(seen)}`);
		const model = new RecordingModel([done, { text: "summary", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, hooks: [handler("PreCompact", "manual", command)] });
		await session.send("go");
		await session.compact();
		await session.end();
		expect(JSON.parse(readFileSync(seen, "utf8"))).toMatchObject({ hook_event_name: "PreCompact", trigger: "manual" });
		const audit = await runtime.listAudit({ session: session.id });
		const kinds = audit.map((r) => r.kind);
		expect(kinds.indexOf("hook.ran")).toBeLessThan(kinds.indexOf("compaction.started"));
	});

	it("a Stop hook that blocks sends the model back to work with its reason", async () => {
		const flag = join(scripts, "stopped-once");
		const command = bashHook(scripts, "stop", `cat > /dev/null; if [ -e ${JSON.stringify(flag)} ]; then exit 0; fi; touch ${JSON.stringify(flag)}; echo "run the tests first" >&2; exit 2`);
		const { result, model } = await run([handler("Stop", "", command)], [{ text: "finished", toolCalls: [] }, { text: "tests run, finished", toolCalls: [] }]);
		expect(result).toMatchObject({ status: "completed", text: "tests run, finished" });
		expect(JSON.stringify(model.requests[1]!.at(-1))).toContain("run the tests first");
	});
});

describe("hooks on every route in", () => {
	it("fire on an MCP tool's call (the reference everything server), matched by mcp__server__tool", async () => {
		const server: McpServerConfig = { name: "everything", transport: nodeServer(EVERYTHING_SERVER, ["stdio"], workspace), sandbox: false, source: "test" };
		await approveMcpTools({ store: runtime.store, workspace, home: homedir(), servers: [server], server: "everything", by: "test", tools: ["echo"] });
		const echo = callsStep({ name: "mcp__everything__echo", arguments: { message: "hi there" } });
		const deny = bashHook(scripts, "deny-mcp", `cat > /dev/null; echo "no MCP today" >&2; exit 2`);
		const denied = await run([handler("PreToolUse", "mcp__everything__.*", deny)], [echo, done], { mcpServers: [server], rules: { allow: ["mcp__everything__*"] } });
		expect(ran(denied.events)[0]).toMatchObject({ target: "mcp__everything__echo", verdict: "deny" });
		expect(denied.audit.some((r) => r.kind === "effect")).toBe(false);
		expect(toolText(denied.model, 1)).toContain("no MCP today");

		const seen = join(scripts, "mcp-post.json");
		const post = bashHook(scripts, "post-mcp", `cat > ${JSON.stringify(seen)}`);
		const clean = await run([handler("PostToolUse", "mcp__everything__echo", post)], [echo, done], { mcpServers: [server], rules: { allow: ["mcp__everything__*"] } });
		expect(clean.audit.find((r) => r.kind === "effect")?.data).toMatchObject({ effect: "mcp.call" });
		expect(JSON.parse(readFileSync(seen, "utf8"))).toMatchObject({ tool_name: "mcp__everything__echo", tool_response: expect.stringContaining("Echo: hi there") });
	});

	it("fire on a sub-agent's call, recorded in the child's own stream, and SubagentStart/SubagentStop run", async () => {
		const log = join(scripts, "sub.log");
		const note = bashHook(scripts, "note", `node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>console.log(JSON.parse(s).hook_event_name))' >> ${JSON.stringify(log)}`);
		const block = bashHook(scripts, "block", `cat > /dev/null; echo "children do not write" >&2; exit 2`);
		const model = ScriptedModel.fromPlan(
			{ steps: [{ tool_calls: [{ name: "agent", arguments: { task: "write", steps: [{ tool_calls: [{ name: "write_file", arguments: { path: "child.txt", content: "x\n" } }] }, { text: "tried" }] } }] }, { text: "done" }] },
			"scripted:test",
		);
		const session = await runtime.openSession({ workspace, model, hooks: [handler("PreToolUse", "write_file", block), handler("SubagentStart", "", note), handler("SubagentStop", "", note)] });
		await session.send("go");
		await session.end();
		expect(existsSync(join(workspace, "child.txt"))).toBe(false);
		const child = (await runtime.listSessions()).find((s) => s.parent_session === session.id)!;
		const childAudit = await runtime.listAudit({ session: child.id });
		expect(childAudit.find((r) => r.kind === "hook.ran")?.data).toMatchObject({ event: "PreToolUse", verdict: "deny", target: "write_file" });
		expect(childAudit.find((r) => r.kind === "tool.outcome")?.data).toMatchObject({ outcome: "denied" });
		expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["SubagentStart", "SubagentStop"]);
	});

	it("a project SubagentStart hook's context joins the child's task as untrusted data", async () => {
		const command = nodeHook(scripts, "sub-context", `return { hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "use the staging database" } };`);
		const model = ScriptedModel.fromPlan({ steps: [{ tool_calls: [{ name: "agent", arguments: { task: "look", steps: [{ text: "looked" }] } }] }, { text: "done" }] }, "scripted:test");
		const session = await runtime.openSession({ workspace, model, hooks: [handler("SubagentStart", "", command, { origin: "project" })] });
		await session.send("go");
		await session.end();
		const child = (await runtime.listSessions()).find((s) => s.parent_session === session.id)!;
		const input = (await runtime.store.listMessages(child.id)).find((m) => (m.message as { role: string }).role === "user")!;
		expect(JSON.stringify(input.message)).toContain("use the staging database");
		expect(input.label?.integrity).toBe("untrusted");
	});

	it("fire on a JIT tool's call", async () => {
		const block = bashHook(scripts, "block", `cat > /dev/null; echo "no JIT calls" >&2; exit 2`);
		const source = "export default async function (input: { text: string }) { return input.text.toUpperCase(); }";
		const register = { name: "shout", description: "Upper-cases text.", input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, source };
		const { events } = await run(
			[handler("PreToolUse", "shout", block)],
			[callsStep({ name: "register_tool", arguments: register }), callsStep({ name: "shout", arguments: { text: "hi" } }), done],
			{ confirm: async () => true },
		);
		expect(ran(events)).toEqual([expect.objectContaining({ target: "shout", verdict: "deny" })]);
		expect(events.filter((e) => e.kind === "tool.denied").map((e) => (e.payload as { tool: string }).tool)).toEqual(["shout"]);
	});
});
