import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { taskCeiling } from "../kernel/authority/task-ceiling.js";
import type { Runtime } from "./runtime.js";
import { callKinds, eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-channels-"));
});

afterEach(() => closeTestRuntime({ root, runtime }));

const done = { text: "done", toolCalls: [] };
const onlyOllama = { effects: [{ resource: "fs:**", rights: ["read" as const] }, { resource: "llm:ollama/*", rights: ["egress" as const] }] };

describe("llm.complete: the model is reached through the kernel", () => {
	it("refuses a model outside the ceiling before anything is sent, with evidence", async () => {
		const hash = taskCeiling(onlyOllama).hash;
		const model = new RecordingModel([done], "openai:gpt-4o-mini");
		const session = await runtime.openSession({ workspace, model, ceiling: onlyOllama });
		const result = await session.send("hello");

		expect(result.status).toBe("model_error");
		expect(result.error).toBe(`capability refused: egress on llm:openai/gpt-4o-mini: outside the task ceiling ${hash.slice(0, 12)}`);
		expect(result.steps).toBe(0);
		expect(model.requests).toHaveLength(0);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.some((e) => e.kind === "model.requested")).toBe(false);
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.filter((r) => r.kind === "authority.denied").map((r) => r.data)).toEqual([
			{ resource: "llm:openai/gpt-4o-mini", right: "egress", reason: "ceiling", why: `outside the task ceiling ${hash.slice(0, 12)}`, ceiling: hash },
		]);
		expect(audit.some((r) => r.kind === "llm.complete")).toBe(false);
	});

	it("admits an allowed model unchanged and records each completion without its messages", async () => {
		const model = new RecordingModel([{ ...callsStep({ name: "list_dir", arguments: { path: "." } }), usage: { prompt_tokens: 7, completion_tokens: 3 } }, done], "ollama:qwen2.5");
		const session = await runtime.openSession({ workspace, model, ceiling: onlyOllama, mode: "read-only" });
		const result = await session.send("look");

		expect(result).toMatchObject({ status: "completed", text: "done", steps: 2, toolCalls: { completed: 1 } });
		await expectSoundEvidence(runtime, session.id, validate);
		const audit = await runtime.listAudit({ session: session.id });
		const completions = audit.filter((r) => r.kind === "llm.complete");
		// Each request also passed flow admission: the context (internal) to the model's sink, local here.
		const cleared = expect.objectContaining({ sink: "llm:ollama/qwen2.5", decision: "allow", label: expect.objectContaining({ sensitivity: "internal" }) });
		// The context's size and the digest of the manifest each call was sent with (src/runtime/context/).
		const context = { manifest_digest: expect.stringMatching(/^[0-9a-f]{64}$/), context_tokens: expect.any(Number), context_window: 8192 };
		expect(completions.map((r) => [r.turn, r.call_id, r.data])).toEqual([
			[1, undefined, { profile: "ollama/qwen2.5", spec: "ollama:qwen2.5", messages: 2, tools: expect.any(Number), outcome: "completed", tool_calls: 1, usage: { prompt_tokens: 7, completion_tokens: 3 }, flow: cleared, ...context }],
			[1, undefined, { profile: "ollama/qwen2.5", spec: "ollama:qwen2.5", messages: 4, tools: expect.any(Number), outcome: "completed", tool_calls: 0, flow: cleared, ...context }],
		]);
		expect(JSON.stringify(completions)).not.toContain("look");
		expect(audit.some((r) => r.kind === "authority.denied")).toBe(false);
	});

	it("lets a host deny grant forbid one model profile while the preset admits others", async () => {
		const grants = [{ resource: "fs:**", rights: ["read" as const] }, { resource: "llm:openai/*", rights: ["egress" as const], effect: "deny" as const }];
		const refused = await runtime.openSession({ workspace, model: new RecordingModel([done], "openai:gpt-4o"), grants });
		expect(await refused.send("hi")).toMatchObject({ status: "model_error", error: expect.stringMatching(/^capability refused: egress on llm:openai\/gpt-4o: denied by grant grant-2/) });
		const admitted = await runtime.openSession({ workspace, model: new RecordingModel([done], "scripted:plan.yaml"), grants });
		expect(await admitted.send("hi")).toMatchObject({ status: "completed", text: "done" });
	});
});

describe("human.ask: the host is asked through the kernel", () => {
	it("refuses every ask when a deny grant covers human:*, and the host is never shown the call", async () => {
		const shown: unknown[] = [];
		const model = new RecordingModel([callsStep({ name: "write_file", arguments: { path: "a.txt", content: "a\n" } }, { name: "write_file", arguments: { path: "b.txt", content: "b\n" } }), done]);
		const session = await runtime.openSession({
			workspace,
			model,
			mode: "workspace-write",
			rules: { ask: ["write_file"] },
			grants: [{ resource: "fs:**", rights: ["read", "write"] }, { resource: "human:*", rights: ["egress"], effect: "deny" }],
			confirm: async (request) => {
				shown.push(request);
				return true;
			},
		});
		const result = await session.send("write both");

		expect(result).toMatchObject({ status: "completed", toolCalls: { total: 2, cancelled: 2 } });
		expect(shown).toEqual([]);
		const exists = await stat(join(workspace, "a.txt")).then(
			() => true,
			() => false,
		);
		expect(exists).toBe(false);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(callKinds(events, "call_1_1_1")).toEqual(["tool.proposed", "permission.decided", "permission.confirmed", "tool.cancelled"]);
		const confirmed = events.filter((e) => e.kind === "permission.confirmed").map((e) => e.payload);
		expect(confirmed.every((p) => (p as { approved: boolean }).approved === false)).toBe(true);
		const audit = await runtime.listAudit({ session: session.id });
		const denied = audit.filter((r) => r.kind === "authority.denied");
		expect(denied.map((r) => [r.call_id, r.data.resource, r.data.reason])).toEqual([
			["call_1_1_1", "human:host", "denied"],
			["call_1_1_2", "human:host", "denied"],
		]);
	});

	it("asks the host as before under a mode preset", async () => {
		const model = new RecordingModel([callsStep({ name: "write_file", arguments: { path: "a.txt", content: "a\n" } }), done]);
		const session = await runtime.openSession({ workspace, model, mode: "workspace-write", rules: { ask: ["write_file"] }, confirm: async () => true });
		expect(await session.send("write")).toMatchObject({ status: "completed", toolCalls: { completed: 1 } });
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: true, by: "host" });
		expect(await readFile(join(workspace, "a.txt"), "utf8")).toBe("a\n");
	});
});
