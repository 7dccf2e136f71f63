import { readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalAnswer } from "../kernel/approval/approval-types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import type { ModelRequest, ModelResponse } from "../models/provider.js";
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
	({ root, workspace, runtime } = await openTestRuntime("warden-jit-", { files: { "notes.md": "remember the milk\n" } }));
});
afterEach(() => closeTestRuntime({ root, runtime }));

const WORD_COUNT = `export default async function (input: { path: string }, syscall: (name: string, args: unknown) => Promise<any>) {
	const file = await syscall("fs.read", { path: input.path });
	return { words: file.content.split(/\\s+/).filter(Boolean).length };
}`;

const register = (source = WORD_COUNT) => ({
	name: "register_tool",
	arguments: {
		name: "word_count",
		description: "Counts the words of a workspace file.",
		input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
		source,
	},
});

function answering(...answers: ApprovalAnswer[]) {
	const requests: ConfirmationRequest[] = [];
	return {
		requests,
		confirm: async (request: ConfirmationRequest) => {
			requests.push(request);
			const answer = answers.shift();
			if (answer === undefined) throw new Error("asked more often than the test expected");
			return answer;
		},
	};
}

/** A model that answers from a list and remembers the tool names each request offered. */
function modelOf(steps: ModelResponse[]) {
	const offered: string[][] = [];
	const model = new RecordingModel(
		steps.map((step) => (request: ModelRequest) => {
			offered.push((request.tools ?? []).map((t) => t.name));
			return step;
		}),
	);
	return { model, offered };
}

async function auditOf(sessionId: string) {
	return runtime.listAudit({ session: sessionId });
}

function toolMessages(model: RecordingModel): string[] {
	const last = model.requests.at(-1) ?? [];
	return last.filter((m) => m.role === "tool").map((m) => m.content);
}

describe("register_tool and JIT tools in a session", () => {
	it("asks, registers on approval, offers the tool in the next request, and runs it with its syscalls under the call", async () => {
		const host = answering(true);
		const { model, offered } = modelOf([callsStep(register()), callsStep({ name: "word_count", arguments: { path: "notes.md" } }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, confirm: host.confirm });
		const result = await session.send("make a tool");
		expect(result.status).toBe("completed");
		expect(host.requests.map((r) => r.tool)).toEqual(["register_tool"]);
		expect(offered[0]).toContain("register_tool");
		expect(offered[0]).not.toContain("word_count");
		expect(offered[1]).toContain("word_count");
		const outputs = toolMessages(model);
		expect(outputs[0]).toMatch(/registered tool word_count \(sha256 [0-9a-f]{12}\)/);
		expect(JSON.parse(outputs[1]!)).toEqual({ words: 3 });

		const events = await expectSoundEvidence(runtime, session.id, validate);
		const runCall = events.find((e): e is AnyWardenEvent & { kind: "tool.started" } => e.kind === "tool.started" && e.payload.tool === "word_count")!.payload.call_id;
		expect(callKinds(events, runCall)).toEqual(["tool.proposed", "permission.decided", "tool.started", "tool.syscall", "tool.completed"]);
		expect(events.find((e) => e.kind === "tool.syscall")!.payload).toEqual({ call_id: runCall, tool: "word_count", syscall: "fs.read", outcome: "ok" });
		const audit = await auditOf(session.id);
		const registered = audit.filter((r) => r.kind === "jit.registered");
		expect(registered).toHaveLength(1);
		expect(registered[0]!.data).toMatchObject({ name: "word_count", description: "Counts the words of a workspace file." });
		expect(registered[0]!.data.sha256).toMatch(/^[0-9a-f]{64}$/);
		expect(audit.filter((r) => r.kind === "jit.syscall").map((r) => [r.call_id, r.data])).toEqual([[runCall, { tool: "word_count", syscall: "fs.read", outcome: "ok" }]]);
		// The operation tree shows the syscall under the calling tool, with both its records.
		const tree = await runtime.explain(runCall, { session: session.id });
		expect(tree.syscalls).toEqual([{ syscall: "fs.read", outcome: "ok", event: expect.any(Number), audit_seq: expect.any(Number) }]);
		expect(tree.complete).toBe(true);
		await session.end();
	});

	it("does not register a tool the host refused", async () => {
		const host = answering(false);
		const { model, offered } = modelOf([callsStep(register()), callsStep({ name: "word_count", arguments: { path: "notes.md" } }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, confirm: host.confirm });
		await session.send("make a tool");
		expect(offered[1]).not.toContain("word_count");
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.filter((e) => e.kind === "tool.invalid").map((e) => e.payload.tool)).toEqual(["word_count"]);
		expect((await auditOf(session.id)).some((r) => r.kind === "jit.registered")).toBe(false);
		await session.end();
	});

	it.each([
		["an unknown keyword", { type: "object", properties: { path: { type: "string", pathy: true } } }, 'strict mode: unknown keyword: "pathy"'],
		["an invalid schema", { type: "object", properties: { path: { type: "strung" } } }, "schema is invalid"],
		["a reference to nowhere", { type: "object", properties: { path: { $ref: "#/$defs/missing" } } }, "can't resolve reference"],
	])("refuses a schema with %s at registration, in one line the model reads; the turn goes on", async (_what, input_schema, reason) => {
		const host = answering(true);
		const registering = { ...register(), arguments: { ...register().arguments, input_schema } };
		const { model, offered } = modelOf([callsStep(registering), callsStep({ name: "word_count", arguments: { path: "notes.md" } }), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, confirm: host.confirm });
		const result = await session.send("make a tool");
		expect(result.status).toBe("completed");
		expect(offered[1]).not.toContain("word_count");
		const events = await expectSoundEvidence(runtime, session.id, validate);
		const failed = events.find((e) => e.kind === "tool.failed" && e.payload.call_id === "call_1_1_1")?.payload as { error: string } | undefined;
		expect(failed?.error).toContain("input_schema is not a schema Warden can check arguments with");
		expect(failed?.error).toContain(reason);
		expect(failed?.error).not.toContain("\n");
		expect(model.requests[1]!.find((m) => m.role === "tool")?.content).toContain(reason);
		expect(events.filter((e) => e.kind === "tool.invalid").map((e) => e.payload.tool)).toEqual(["word_count"]);
		expect((await auditOf(session.id)).some((r) => r.kind === "jit.registered")).toBe(false);
		await session.end();
	});

	it("does not register without a host to ask", async () => {
		const { model, offered } = modelOf([callsStep(register()), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model });
		await session.send("make a tool");
		expect(offered[1]).not.toContain("word_count");
		await session.end();
	});

	it("the same source again is a no-op; a changed source is a new version that needs a new approval", async () => {
		const changed = WORD_COUNT.replace("words:", "count:");
		const host = answering(true, true, true, false);
		const { model } = modelOf([
			callsStep(register()),
			callsStep(register()),
			callsStep(register(changed)),
			callsStep({ name: "word_count", arguments: { path: "notes.md" } }),
			callsStep(register(WORD_COUNT.replace("words:", "refused:"))),
			callsStep({ name: "word_count", arguments: { path: "notes.md" } }),
			{ text: "done", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, confirm: host.confirm });
		await session.send("iterate on a tool");
		// Every register_tool call is asked about: its approval covers exactly the source it carries.
		expect(host.requests).toHaveLength(4);
		const outputs = toolMessages(model);
		expect(outputs[1]).toMatch(/already registered with this source/);
		expect(outputs[2]).toMatch(/registered a new version of tool word_count/);
		expect(JSON.parse(outputs[3]!)).toEqual({ count: 3 });
		expect(outputs[4]).toMatch(/not approved|denied|cancel/i);
		// The refused version did not replace the approved one.
		expect(JSON.parse(outputs[5]!)).toEqual({ count: 3 });
		const registered = (await auditOf(session.id)).filter((r) => r.kind === "jit.registered").map((r) => r.data);
		expect(registered).toHaveLength(2);
		expect(registered[1]!.previous_sha256).toBe(registered[0]!.sha256);
		await expectSoundEvidence(runtime, session.id, validate);
		await session.end();
	});

	it("a JIT tool fails exactly where its caller may not go", async () => {
		const host = answering(true);
		const { model } = modelOf([
			callsStep(register()),
			callsStep({ name: "word_count", arguments: { path: "../../etc/passwd" } }),
			{ text: "done", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, confirm: host.confirm });
		await session.send("escape");
		const events = await expectSoundEvidence(runtime, session.id, validate);
		const failed = events.find((e) => e.kind === "tool.failed" && e.payload.tool === "word_count");
		expect(failed).toBeDefined();
		expect(events.find((e) => e.kind === "tool.syscall")!.payload).toMatchObject({ syscall: "fs.read", outcome: "error" });
		await session.end();
	});
});
