/**
 * `warden acp` driven as a child process by the ACP SDK's own client over its stdio, through whole
 * sessions on the scripted model: each permission answer, a cancel mid-tool and mid-ask, load
 * (replay), set_mode, and file access through the client's buffers. The evidence each leaves is
 * checked afterwards: the trace invariant over the stored events and the audit's hash chain.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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

	it("session/cancel mid-tool stops `sleep 30`: the prompt answers cancelled, no call is left started, the audit chain holds", async () => {
		const fixture = makeFixture();
		const plan = writePlan(fixture, [{ tool_calls: [{ name: "shell", arguments: { command: "touch started && sleep 30" } }] }, { text: "never reached" }]);
		const child = start(fixture, plan, ["--allow", "shell(touch started)", "--allow", "shell(sleep 30)"]);
		await initialize(child);
		const { sessionId } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		const prompt = child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "wait" }] });
		const running = await child.waitForUpdate((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "in_progress");
		// Cancelled once the command is really running: its first part has left its mark.
		while (!existsSync(join(fixture.workspace, "started"))) await new Promise((resolve) => setTimeout(resolve, 20));
		await child.connection.agent.notify("session/cancel", { sessionId });
		expect((await prompt).stopReason).toBe("cancelled");
		const id = (running.update as { toolCallId: string }).toolCallId;
		expect(callUpdates(child.updates, id).map((u) => u.status)).toContain("failed");
		expect(JSON.stringify(callUpdates(child.updates, id))).toContain("Cancelled");
		expect(agentText(child.updates)).not.toContain("never reached");
		expect((await child.close()).code).toBe(0);
		const { events, audit } = await evidence(fixture, sessionId);
		expect(events.filter((e) => e.kind === "tool.started")).toHaveLength(1);
		expect(events.filter((e) => e.kind === "tool.cancelled")).toHaveLength(1);
		expect(events.find((e) => e.kind === "turn.completed")?.payload).toMatchObject({ status: "cancelled" });
		// The command was killed, not waited out: its settled effect says so.
		const settled = audit.filter((r) => r.kind === "effect" && r.data.effect === "shell.exec");
		expect(JSON.stringify(settled)).toContain('"cancelled":true');
	});

	it("session/cancel while a permission request is pending: the client answers it cancelled and the call is refused", async () => {
		const fixture = makeFixture();
		const plan = writePlan(fixture, [{ tool_calls: [write("a.txt", "x\n")] }, { text: "never reached" }]);
		let withdrawn = false;
		let sessionId = "";
		const child = start(fixture, plan, ["--ask", "write_file(**)"], {
			// An editor shows the request until the agent withdraws it ($/cancel_request), then answers `cancelled`.
			answer: (_request, signal) =>
				new Promise((resolve) => {
					signal.addEventListener("abort", () => {
						withdrawn = true;
						resolve({ outcome: { outcome: "cancelled" } });
					});
					void child.connection.agent.notify("session/cancel", { sessionId });
				}),
		});
		await initialize(child);
		sessionId = (await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] })).sessionId;
		const result = await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write" }] });
		expect(result.stopReason).toBe("cancelled");
		expect(withdrawn).toBe(true);
		expect(existsSync(join(fixture.workspace, "a.txt"))).toBe(false);
		expect((await child.close()).code).toBe(0);
		const { events } = await evidence(fixture, sessionId);
		expect(events.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: false, by: "turn cancelled" });
		expect(events.filter((e) => e.kind === "tool.started")).toHaveLength(0);
		expect(events.find((e) => e.kind === "tool.cancelled")?.payload).toMatchObject({ reason: "turn cancelled while waiting for approval" });
	});

	it("session/load replays the stored conversation as updates, then set_mode changes the policy of the next turn", async () => {
		const fixture = makeFixture();
		const first = writePlan(fixture, [{ text: "Writing. ", tool_calls: [write("a.txt", "alpha\n")] }, { text: "written" }], "first.yaml");
		const one = start(fixture, first);
		await initialize(one);
		const { sessionId } = await one.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		await one.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "please write a" }] });
		expect((await one.close()).code).toBe(0);

		const second = writePlan(fixture, [{ tool_calls: [write("b.txt", "beta\n")] }, { text: "after the mode change" }], "second.yaml");
		const two = start(fixture, second);
		const init = await initialize(two);
		expect(init.agentCapabilities?.loadSession).toBe(true);
		const loaded = await two.connection.agent.request("session/load", { sessionId, cwd: fixture.workspace, mcpServers: [] });
		expect(loaded.modes?.currentModeId).toBe("workspace-write");
		// Replayed before the load answered: the user's words, the model's, and the call with its diff and outcome.
		const replayed = two.updates.map((n) => n.update);
		expect(replayed[0]).toEqual({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "please write a" } });
		expect(agentText(two.updates)).toBe("Writing. written");
		const call = replayed.find((u) => u.sessionUpdate === "tool_call");
		expect(call).toMatchObject({ title: "Write a.txt", kind: "edit", content: [{ type: "diff", newText: "alpha\n" }] });
		expect(callUpdates(two.updates, (call as { toolCallId: string }).toolCallId).map((u) => u.status)).toEqual(["pending", "in_progress", "completed", undefined]);

		await expect(two.connection.agent.request("session/set_mode", { sessionId, modeId: "yolo" })).rejects.toThrow(/unknown mode "yolo"/);
		await two.connection.agent.request("session/set_mode", { sessionId, modeId: "read-only" });
		await two.waitForUpdate((n) => n.update.sessionUpdate === "current_mode_update" && n.update.currentModeId === "read-only");
		const result = await two.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "now write b" }] });
		expect(result.stopReason).toBe("end_turn");
		expect(existsSync(join(fixture.workspace, "b.txt"))).toBe(false);
		expect(JSON.stringify(two.updates.map((n) => n.update))).toContain("Denied by Warden");
		expect((await two.close()).code).toBe(0);

		const { events, audit } = await evidence(fixture, sessionId);
		// Each run records the mode it ran under: the first, the load, and the read-only one.
		expect(events.filter((e) => e.kind === "session.started").map((e) => (e.payload as { mode: string }).mode)).toEqual(["workspace-write", "workspace-write", "read-only"]);
		expect(audit.filter((r) => r.kind === "session.resumed")).toHaveLength(2);
	});

	it("reads and writes through the client's buffers when it offers fs, recorded by the kernel as the client's", async () => {
		const fixture = makeFixture({ "notes.md": "on disk\n" });
		const notes = join(fixture.workspace, "notes.md");
		const buffers = new Map([[notes, "unsaved buffer\n"]]);
		const plan = writePlan(fixture, [{ tool_calls: [{ name: "read_file", arguments: { path: "notes.md" } }] }, { tool_calls: [write("notes.md", "rewritten\n")] }, { text: "ok" }]);
		const child = start(fixture, plan, [], { buffers });
		await initialize(child, FS_CAPABILITIES);
		const { sessionId } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit notes" }] });
		expect(child.fsCalls).toEqual([`read ${notes}`, `read ${notes}`, `write ${notes}`]);
		expect(buffers.get(notes)).toBe("rewritten\n");
		// The editor saves; Warden wrote the buffer, not the disk.
		expect(readFileSync(notes, "utf8")).toBe("on disk\n");
		expect(JSON.stringify(child.updates.map((n) => n.update))).toContain("unsaved buffer");
		expect((await child.close()).code).toBe(0);
		const { audit } = await evidence(fixture, sessionId);
		const settled = JSON.stringify(audit.filter((r) => r.kind === "effect" && r.data.resource === "fs:notes.md"));
		expect(settled).toContain('"via":"acp-client"');
		expect(settled).toContain("-unsaved buffer");
	});

	it("runs a sandboxed command in the client's terminal, wrapped in the same bubblewrap profile; an unconfined one runs in Warden's own shell", async () => {
		const fixture = makeFixture({ "w.sh": "echo x > ../outside.txt\n" });
		const outside = join(fixture.dir, "outside.txt");
		const plan = writePlan(fixture, [
			{ tool_calls: [{ name: "shell", arguments: { command: 'echo "secret=[$EDITOR_SECRET]" && touch made.txt' } }] },
			{ tool_calls: [{ name: "shell", arguments: { command: "sh w.sh" } }] },
			{ text: "sandboxed done" },
			{ tool_calls: [{ name: "shell", arguments: { command: "touch unconfined.txt" } }] },
			{ text: "unconfined done" },
		]);
		const child = start(fixture, plan, [], { answer: async () => pick("allow_once"), terminalEnv: { EDITOR_SECRET: "editor-only-secret" } });
		await initialize(child, { terminal: true });
		const { sessionId } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
		expect(child.terminals).toHaveLength(2);
		const [first, second] = child.terminals;
		// What the client ran is the sandbox wrapper with the command inside it, not the command.
		expect(first!.command).toMatch(/bwrap$/);
		expect(first!.args).toContain("--clearenv");
		expect(first!.args.at(-1)).toContain("touch made.txt");
		expect(first!.calls).toEqual(["create", "wait_for_exit", "output", "release"]);
		expect(existsSync(join(fixture.workspace, "made.txt"))).toBe(true);
		// The editor's own environment does not reach the command; the sandbox's write limits hold in its terminal.
		const shown = JSON.stringify(child.updates.map((n) => n.update));
		expect(shown).toContain("secret=[]");
		expect(shown).not.toContain("editor-only-secret");
		expect(second!.args.at(-1)).toContain("sh w.sh");
		expect(existsSync(outside)).toBe(false);
		expect(shown).toContain('{"terminalId":"term-1","type":"terminal"}');

		await child.connection.agent.request("session/set_mode", { sessionId, modeId: "full-access" });
		await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
		expect(existsSync(join(fixture.workspace, "unconfined.txt"))).toBe(true);
		expect(child.terminals).toHaveLength(2);
		expect((await child.close()).code).toBe(0);

		const { audit } = await evidence(fixture, sessionId);
		const shells = audit.filter((r) => r.kind === "effect" && r.data.effect === "shell.exec").map((r) => r.data.sandbox as Record<string, unknown>);
		expect(shells.map((s) => [s.provider, s.terminal])).toEqual([
			["bwrap", "acp-client"],
			["bwrap", "acp-client"],
			[undefined, undefined],
		]);
	});

	it("refuses in one line: a cwd that does not exist, a prompt for an unknown session, a mode looser than the one it was started with", async () => {
		const fixture = makeFixture();
		const child = start(fixture, writePlan(fixture, [{ text: "hi" }]), ["--mode", "workspace-write"]);
		await initialize(child);
		const { sessionId, modes } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		expect(modes?.availableModes.map((m) => m.id)).toEqual(["read-only", "workspace-write", "plan"]);
		await expect(child.connection.agent.request("session/set_mode", { sessionId, modeId: "full-access" })).rejects.toThrow(
			"mode full-access is looser than workspace-write, the mode warden acp was started with: restart it with --mode full-access to allow it",
		);
		const missing = join(fixture.dir, "nope");
		await expect(child.connection.agent.request("session/new", { cwd: missing, mcpServers: [] })).rejects.toThrow(`workspace ${missing} does not exist`);
		await expect(child.connection.agent.request("session/new", { cwd: "relative/dir", mcpServers: [] })).rejects.toThrow('cwd must be an absolute path, got "relative/dir"');
		await expect(child.connection.agent.request("session/prompt", { sessionId: "no-such", prompt: [{ type: "text", text: "x" }] })).rejects.toThrow("unknown session no-such");
		expect((await child.close()).code).toBe(0);
	});

	it("asks the client for an exact release when secret data would reach a sink that clears less; only allow_once releases it; the secret never reaches the editor's text", async () => {
		const fixture = makeFixture({ "prod.env": "DB_PASSWORD=hunter2-canary\n" });
		const config = join(fixture.dir, "config.yaml");
		writeFileSync(config, "flow:\n  secret_files: ['prod.env']\n  sinks:\n    - { sink: 'fs:public/**', trust: untrusted, max: internal, release: secret }\n");
		const plan = writePlan(fixture, [
			{ tool_calls: [{ name: "read_file", arguments: { path: "prod.env" } }] },
			{ tool_calls: [write("public/one.txt", "copied\n")] },
			{ text: "first: the password is hunter2-canary" },
			{ tool_calls: [write("public/two.txt", "copied again\n")] },
			{ text: "second" },
		]);
		const answers = ["allow_once", "reject_once"];
		const child = start(fixture, plan, ["--config", config], { answer: async () => pick(answers.shift() ?? "reject_once") });
		await initialize(child);
		const { sessionId } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "publish" }] });
		await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "publish again" }] });
		expect(child.permissions.map((p) => p.options.map((o) => o.kind))).toEqual([
			["allow_once", "reject_once"],
			["allow_once", "reject_once"],
		]);
		expect(child.permissions[0]?.toolCall.title).toBe("Release secret data to fs:public/one.txt (fs.write), once");
		expect(readFileSync(join(fixture.workspace, "public/one.txt"), "utf8")).toBe("copied\n");
		expect(existsSync(join(fixture.workspace, "public/two.txt"))).toBe(false);
		// With a secret in the model's context, the editor (which keeps what it is shown) gets the redacted text.
		expect(agentText(child.updates)).toContain("first: the password is ");
		expect(agentText(child.updates)).not.toContain("hunter2-canary");
		expect((await child.close()).code).toBe(0);
		const { events } = await evidence(fixture, sessionId);
		expect(events.filter((e) => e.kind === "flow.decided").map((e) => (e.payload as { decision: string }).decision)).toEqual(["release", "deny"]);
	});
});
