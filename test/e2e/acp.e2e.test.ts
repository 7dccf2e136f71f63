/**
 * `warden acp` driven as a child process by the ACP SDK's own client over its stdio, through whole
 * sessions on the scripted model: each permission answer, a cancel mid-tool and mid-ask, load
 * (replay), set_mode, and file access through the client's buffers. The evidence each leaves is
 * checked afterwards: the trace invariant over the stored events and the audit's hash chain.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/runtime.js";
import { type AcpChild, agentText, callUpdates, FS_CAPABILITIES, initialize, pick, startAcp } from "./acp-harness.js";
import { expectValidTrace, type Fixture, makeFixture, writePlan } from "./cli-harness.js";

const children: AcpChild[] = [];
afterEach(async () => {
	for (const child of children.splice(0)) await child.close();
});

function start(fixture: Fixture, plan: string, extra: string[] = [], options: Parameters<typeof startAcp>[1] = {}): AcpChild {
	const child = startAcp(["--model", `scripted:${plan}`, "--state-dir", fixture.stateDir, ...extra], options);
	children.push(child);
	return child;
}

/** The stored evidence of a session, read after the agent is gone: trace invariant and audit chain. */
async function evidence(fixture: Fixture, session: string) {
	const runtime = await Runtime.open({ stateDir: fixture.stateDir, readOnly: true });
	try {
		const events = await runtime.sessionEvents(session);
		expectValidTrace(events);
		const verdict = await runtime.verifyAudit();
		expect(verdict.ok).toBe(true);
		return { events, audit: await runtime.listAudit({ session }), rules: await runtime.listApprovedRules({ workspace: fixture.workspace }) };
	} finally {
		await runtime.close();
	}
}

const write = (path: string, content: string) => ({ name: "write_file", arguments: { path, content } });

describe("warden acp", () => {
	it("initializes, opens a session in the cwd, streams a turn and maps each permission answer to an approval", async () => {
		const fixture = makeFixture();
		const plan = writePlan(fixture, [
			{ text: "Writing a. ", tool_calls: [write("a.txt", "alpha\n")] },
			{ text: "first done" },
			{ tool_calls: [write("b.txt", "beta\n")] },
			{ text: "second done" },
			{ tool_calls: [write("c.txt", "gamma\n")] },
			{ tool_calls: [write("c.txt", "gamma again\n")] },
			{ text: "third done" },
			{ tool_calls: [write("d.txt", "delta\n")] },
			{ tool_calls: [write("d.txt", "delta again\n")] },
			{ text: "fourth done" },
		]);
		const answers = ["allow_once", "reject_once", "allow_always", "reject_always"];
		const child = start(fixture, plan, ["--ask", "write_file(**)"], { answer: async () => pick(answers.shift() ?? "reject_once") });
		const init = await initialize(child);
		expect(init.protocolVersion).toBe(1);
		expect(init.agentInfo?.name).toBe("warden");
		expect(init.agentCapabilities).toEqual({
			loadSession: true,
			promptCapabilities: { image: false, audio: false, embeddedContext: true },
			mcpCapabilities: { http: false, sse: false },
		});

		const created = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		expect(created.modes?.currentModeId).toBe("workspace-write");
		expect(created.modes?.availableModes.map((m) => m.id)).toEqual(["read-only", "workspace-write", "full-access", "plan"]);
		const commands = await child.waitForUpdate((n) => n.update.sessionUpdate === "available_commands_update");
		expect(commands.sessionId).toBe(created.sessionId);
		const sessionId = created.sessionId;

		// allow_once: the write happens, once.
		const first = await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write a" }] });
		expect(first.stopReason).toBe("end_turn");
		expect(readFileSync(join(fixture.workspace, "a.txt"), "utf8")).toBe("alpha\n");
		expect(agentText(child.updates)).toContain("Writing a. first done");
		const asked = child.permissions[0] as RequestPermissionRequest;
		expect(asked.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once", "reject_always"]);
		expect(asked.toolCall.title).toBe("Write a.txt");
		// The request shows the exact change: ACP's diff and the unified diff the lease is bound to.
		expect(asked.toolCall.content?.[0]).toEqual({ type: "diff", path: join(fixture.workspace, "a.txt"), oldText: null, newText: "alpha\n" });
		expect(JSON.stringify(asked.toolCall.content?.[1])).toContain("+alpha");
		const statuses = callUpdates(child.updates, asked.toolCall.toolCallId).map((u) => u.status);
		expect(statuses).toEqual(["pending", "in_progress", "completed", undefined]);
		const output = callUpdates(child.updates, asked.toolCall.toolCallId).at(-1);
		expect(JSON.stringify(output?.content)).toContain("a.txt");

		// reject_once: nothing written, the call shown failed as not approved.
		expect((await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write b" }] })).stopReason).toBe("end_turn");
		expect(existsSync(join(fixture.workspace, "b.txt"))).toBe(false);
		const rejected = child.permissions[1] as RequestPermissionRequest;
		expect(callUpdates(child.updates, rejected.toolCall.toolCallId).map((u) => u.status)).toContain("failed");

		// allow_always: persisted as an exact rule, so the second write of c.txt is not asked about.
		expect((await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write c twice" }] })).stopReason).toBe("end_turn");
		expect(readFileSync(join(fixture.workspace, "c.txt"), "utf8")).toBe("gamma again\n");
		// reject_always: the second write of d.txt is denied without asking.
		expect((await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write d twice" }] })).stopReason).toBe("end_turn");
		expect(existsSync(join(fixture.workspace, "d.txt"))).toBe(false);
		expect(child.permissions).toHaveLength(4);

		// A slash command answers from the runtime, without a model turn.
		await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/audit" }] });
		expect(agentText(child.updates)).toMatch(/audit: \d+ records in .*, hash chain valid/);
		expect((await child.close()).code).toBe(0);

		const { events, rules } = await evidence(fixture, sessionId);
		const confirmed = events.filter((e) => e.kind === "permission.confirmed").map((e) => (e.payload as { response?: string }).response);
		expect(confirmed).toEqual(["allow_once", "deny", "always_allow", "always_deny"]);
		expect(rules.map((r) => [r.tool, r.pattern, r.outcome, r.created_by])).toEqual([
			["write_file", "c.txt", "allow", "acp-client"],
			["write_file", "d.txt", "deny", "acp-client"],
		]);
		const denied = events.filter((e) => e.kind === "tool.denied");
		expect(denied).toHaveLength(1);
	});
});
