import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../models/provider.js";
import type { Runtime } from "./runtime.js";
import type { ConfirmationRequest } from "./session-options.js";
import { callKinds, eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-messages-", { files: { "notes.md": "remember the milk\n" } }));
});

afterEach(() => closeTestRuntime({ root, runtime }));

const shellCall = (command: string) => ({ name: "shell", arguments: { command } });
/** In the workspace-write sandbox a plain `touch` runs unasked; these tests need a command that asks. */
const rules = { ask: ["shell(touch *)"] };

async function exists(path: string): Promise<boolean> {
	return stat(path).then(
		() => true,
		() => false,
	);
}

/** Every assistant message with tool calls is followed by exactly one tool result per call, in call order. */
function expectOneResultPerCall(messages: readonly Message[]): void {
	messages.forEach((message, index) => {
		if (message.role !== "assistant" || !message.tool_calls?.length) return;
		const results = messages.slice(index + 1, index + 1 + message.tool_calls.length);
		expect(results.map((m) => (m.role === "tool" ? m.tool_call_id : `not a tool result: ${m.role}`))).toEqual(message.tool_calls.map((c) => c.id));
		expect(results.map((m) => (m.role === "tool" ? m.name : ""))).toEqual(message.tool_calls.map((c) => c.name));
	});
	const results = messages.filter((m) => m.role === "tool");
	const calls = messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
	expect(results).toHaveLength(calls.length);
}

function toolResult(messages: readonly Message[], callId: string): string {
	const found = messages.find((m) => m.role === "tool" && m.tool_call_id === callId);
	if (found?.role !== "tool") throw new Error(`no tool result for ${callId}`);
	return found.content;
}

describe("what the model is told about calls that did not run normally", () => {
	it("gets one result per call, in order; denied and refused calls say not to route around the decision", async () => {
		const model = new RecordingModel([
			callsStep(
				shellCall("rm -rf build"),
				{ name: "read_file", arguments: { path: "missing.md" } },
				{ name: "no_such_tool", arguments: { x: 1 } },
				shellCall("touch made.txt"),
				{ name: "read_file", arguments: '{"path": ' },
				{ name: "read_file", arguments: { path: "notes.md" } },
			),
			{ text: "I could not do everything", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, rules });
		const result = await session.send("tidy up");
		expect(result).toMatchObject({ status: "completed", steps: 2 });
		expect(result.toolCalls).toEqual({ total: 6, completed: 1, denied: 1, cancelled: 1, invalid: 2, failed: 1 });

		const seen = model.requests[1]!;
		expectOneResultPerCall(seen);
		const denied = toolResult(seen, "call_1_1_1");
		expect(denied).toMatch(/^Permission denied: the host refused this shell call \(/);
		expect(denied).toContain("Do not try to reach the same effect another way");
		expect(toolResult(seen, "call_1_1_2")).toMatch(/missing\.md/);
		expect(toolResult(seen, "call_1_1_3")).toMatch(/^Invalid tool call to no_such_tool: unknown tool "no_such_tool"; available: read_file, /);
		const refused = toolResult(seen, "call_1_1_4");
		expect(refused).toMatch(/^Cancelled: the user did not approve this shell call\./);
		expect(refused).toContain("Do not try to reach the same effect another way");
		expect(toolResult(seen, "call_1_1_5")).toMatch(/^Invalid tool call to read_file: arguments are not valid JSON/);
		expect(toolResult(seen, "call_1_1_6")).toBe("remember the milk\n");
		expect(await exists(join(workspace, "made.txt"))).toBe(false);

		// The stored conversation is the one the model saw, plus its final answer.
		const stored = (await runtime.store.listMessages(session.id)).map((m) => m.message);
		expect(stored).toEqual([...seen, { role: "assistant", content: "I could not do everything" }]);

		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.find((e) => e.kind === "permission.confirmed")?.payload).toEqual({
			call_id: "call_1_1_4",
			tool: "shell",
			approved: false,
			by: "no host to ask (automation refuses asks)",
		});
		expect(callKinds(events, "call_1_1_1")).toEqual(["tool.proposed", "permission.decided", "tool.denied"]);
		expect(callKinds(events, "call_1_1_3")).toEqual(["tool.proposed", "tool.invalid"]);
	});

	it("tells the model a call it was running was cancelled", async () => {
		const model = new RecordingModel([callsStep(shellCall("sleep 30")), { text: "ok, stopped", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, mode: "full-access" });
		const result = await session.send("wait", {
			onEvent: (e) => {
				if (e.kind === "tool.started") session.cancelToolCall(e.payload.call_id);
			},
		});
		expect(result).toMatchObject({ status: "completed", text: "ok, stopped" });
		const seen = model.requests[1]!;
		expectOneResultPerCall(seen);
		expect(toolResult(seen, "call_1_1_1")).toMatch(/^Cancelled: this shell call was cancelled by the host before it finished\. Do not retry it/);
		await expectSoundEvidence(runtime, session.id, validate);
	});
});

describe("the confirm callback", () => {
	it("is asked with the call and its decision; a throw refuses that call and the turn goes on", async () => {
		const requests: ConfirmationRequest[] = [];
		const model = new RecordingModel([
			callsStep(shellCall("touch first.txt")),
			callsStep(shellCall("touch second.txt")),
			{ text: "finished", toolCalls: [] },
		]);
		const session = await runtime.openSession({
			workspace,
			model,
			rules,
			confirm: async (request) => {
				requests.push(request);
				if (requests.length === 1) throw new Error("prompt crashed\nwith a stack below");
				return true;
			},
		});
		const result = await session.send("make two files");
		expect(result).toMatchObject({ status: "completed", text: "finished", steps: 3 });
		expect(result.toolCalls).toMatchObject({ total: 2, cancelled: 1, completed: 1 });
		expect(requests.map((r) => [r.callId, r.tool, r.arguments, r.decision.decision, r.session])).toEqual([
			["call_1_1_1", "shell", { command: "touch first.txt" }, "ask", session.id],
			["call_1_2_1", "shell", { command: "touch second.txt" }, "ask", session.id],
		]);
		expect(await exists(join(workspace, "first.txt"))).toBe(false);
		expect(await exists(join(workspace, "second.txt"))).toBe(true);
		expect(toolResult(model.requests[1]!, "call_1_1_1")).toMatch(/^Cancelled: the user did not approve/);

		const events = await expectSoundEvidence(runtime, session.id, validate);
		const confirmations = events.filter((e) => e.kind === "permission.confirmed").map((e) => e.payload);
		expect(confirmations).toEqual([
			{ call_id: "call_1_1_1", tool: "shell", approved: false, by: "confirmation failed: prompt crashed" },
			{ call_id: "call_1_2_1", tool: "shell", approved: true, by: "host", response: "allow_once", lease: expect.stringMatching(/^lease_/) },
		]);
		expect(callKinds(events, "call_1_1_1").at(-1)).toBe("tool.cancelled");
		expect(callKinds(events, "call_1_2_1").at(-1)).toBe("tool.completed");
	});

	it("a refusal, or an answer other than true, refuses the call", async () => {
		const answers: unknown[] = [false, "yes"];
		const model = new RecordingModel([callsStep(shellCall("touch a.txt"), shellCall("touch b.txt"))]);
		const session = await runtime.openSession({ workspace, model, rules, confirm: async () => answers.shift() as boolean });
		const result = await session.send("two files");
		expect(result.toolCalls).toMatchObject({ total: 2, cancelled: 2 });
		expect(await exists(join(workspace, "a.txt"))).toBe(false);
		expect(await exists(join(workspace, "b.txt"))).toBe(false);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.filter((e) => e.kind === "permission.confirmed").map((e) => e.payload.by)).toEqual(["host refused", "host refused"]);
	});

	it("without a callback, every ask is refused and nothing runs", async () => {
		const model = new RecordingModel([
			callsStep(shellCall("touch one.txt"), { name: "write_file", arguments: { path: "../outside.txt", content: "x" } }),
		]);
		const session = await runtime.openSession({ workspace, model, rules });
		const result = await session.send("try");
		expect(result.toolCalls).toMatchObject({ total: 2, cancelled: 2, completed: 0 });
		expect(await exists(join(workspace, "one.txt"))).toBe(false);
		expect(await exists(join(root, "outside.txt"))).toBe(false);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.filter((e) => e.kind === "permission.decided").map((e) => e.payload.decision)).toEqual(["ask", "ask"]);
		expect(events.some((e) => e.kind === "tool.started")).toBe(false);
	});
});
