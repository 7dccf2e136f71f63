import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AnyWardenEvent, EVENT_KINDS } from "../kernel/evidence/event-types.js";
import { REDACTION_MASK } from "../kernel/flow/redaction-types.js";
import { ModelError } from "../models/provider.js";
import { ScriptedModel } from "../models/scripted.js";
import { Runtime } from "./runtime.js";
import { eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import type { TurnResult } from "./turn-loop.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let stateDir: string;
let runtime: Runtime;

beforeEach(async () => {
	root = await mkdtemp(join(tmpdir(), "warden-runtime-"));
	workspace = join(root, "ws");
	stateDir = join(root, "state");
	await mkdir(workspace);
	await writeFile(join(workspace, "notes.md"), "# notes\nremember the milk\n");
	runtime = await Runtime.open({ stateDir, env: process.env });
});

afterEach(async () => {
	await runtime.close();
	await rm(root, { recursive: true, force: true });
});

/** Runs a turn by hand, so both the yielded events and the returned result are seen. */
async function collect(turn: AsyncGenerator<AnyWardenEvent, TurnResult>): Promise<{ events: AnyWardenEvent[]; result: TurnResult }> {
	const events: AnyWardenEvent[] = [];
	for (;;) {
		const next = await turn.next();
		if (next.done) return { events, result: next.value };
		events.push(next.value);
	}
}

describe("Session.run", () => {
	it("yields the turn's events in order, returns a TurnResult, and records exactly what the host saw", async () => {
		const seen: AnyWardenEvent[] = [];
		const plan = { steps: [{ tool_calls: [{ name: "read_file", arguments: { path: "notes.md" } }] }, { text: "the note says milk" }] };
		const session = await runtime.openSession({ workspace, model: ScriptedModel.fromPlan(plan, "scripted:test"), onEvent: (e) => seen.push(e) });
		const { events, result } = await collect(session.run("what does the note say?"));

		expect(events.map((e) => e.kind)).toEqual([
			"turn.started",
			"model.requested",
			"model.responded",
			"tool.proposed",
			"permission.decided",
			"tool.started",
			"tool.completed",
			"model.requested",
			"model.responded",
			"turn.completed",
		]);
		expect(events.every((e) => e.session === session.id && e.turn === 1)).toBe(true);
		expect(result).toEqual({
			status: "completed",
			text: "the note says milk",
			session: session.id,
			turn: 1,
			steps: 2,
			toolCalls: { total: 1, completed: 1, denied: 0, cancelled: 0, invalid: 0, failed: 0 },
		});

		await session.end();
		expect(seen[0]?.kind).toBe("session.started");
		expect(seen.at(-1)?.kind).toBe("session.ended");
		expect(seen.slice(1, -1)).toEqual(events);
		const recorded = await expectSoundEvidence(runtime, session.id, validate);
		expect(recorded).toEqual(seen);
		expect(await runtime.getSession(session.id)).toMatchObject({ status: "ok", turns: 1, model: "scripted:test" });
	});

	it("send() hands every event to its callback and resolves with the same result run() returns", async () => {
		const session = await runtime.openSession({ workspace, model: ScriptedModel.fromPlan({ steps: [{ text: "hello" }] }, "scripted:test") });
		const handed: string[] = [];
		const result = await session.send("hi", { onEvent: (e) => handed.push(e.kind) });
		expect(result).toMatchObject({ status: "completed", text: "hello", turn: 1, steps: 1 });
		expect(handed).toEqual(["turn.started", "model.requested", "model.responded", "turn.completed"]);
		await expectSoundEvidence(runtime, session.id, validate);
	});

	it("records every event kind, each valid against schemas/events.v1.json", async () => {
		const model = new RecordingModel([
			{
				...callsStep(
					{ name: "write_file", arguments: { path: "out.txt", content: "written\n" } },
					{ name: "no_such_tool", arguments: {} },
					{ name: "shell", arguments: { command: "rm -rf build" } },
					{ name: "shell", arguments: { command: "echo approved > approved.txt" } },
					{ name: "shell", arguments: { command: "echo refused > refused.txt" } },
					{ name: "shell", arguments: { command: "echo failing; exit 3" } },
				),
				usage: { prompt_tokens: 120, completion_tokens: 30 },
			},
			{ text: "all done", toolCalls: [], usage: { prompt_tokens: 200, completion_tokens: 5 } },
		]);
		const asked: string[] = [];
		const session = await runtime.openSession({
			workspace,
			model,
			confirm: async (request) => {
				const command = (request.arguments as { command: string }).command;
				asked.push(command);
				return !command.includes("refused");
			},
			// The first turn's two model calls use it up, so a second turn shows budget.exhausted.
			budget: { model_calls: 2 },
			// In the workspace-write sandbox these echos would run unasked; this test needs them asked.
			rules: { ask: ["shell(echo *)"] },
		});
		const result = await session.send("exercise everything");
		expect((await session.send("one more")).status).toBe("budget_exhausted");
		await session.end();

		expect(result.status).toBe("completed");
		expect(result.toolCalls).toEqual({ total: 6, completed: 2, denied: 1, cancelled: 1, invalid: 1, failed: 1 });
		expect(asked).toEqual(["echo approved > approved.txt", "echo refused > refused.txt", "echo failing; exit 3"]);
		expect(await readFile(join(workspace, "approved.txt"), "utf8")).toBe("approved\n");
		await expect(readFile(join(workspace, "refused.txt"))).rejects.toThrow(/ENOENT/);

		const events = await expectSoundEvidence(runtime, session.id, validate);
		// Sub-agent lineage needs an `agent` call (src/runtime/subagents.test.ts); flow decisions need data above a sink's clearance (src/runtime/flow.test.ts); hook runs need hooks (src/runtime/hooks/hooks.test.ts).
		expect(new Set(events.map((e) => e.kind))).toEqual(new Set(EVENT_KINDS.filter((k) => !k.startsWith("subagent.") && !k.startsWith("compaction.") && k !== "flow.decided" && k !== "tool.syscall" && k !== "model.retried" && k !== "todo.updated" && k !== "skill.activated" && k !== "hook.ran" && k !== "ask.expired")));
		// The schema check is not vacuous: an unknown payload field or a wrong kind is refused.
		const sample = events.find((e) => e.kind === "tool.completed")!;
		expect(validate({ ...sample, payload: { ...sample.payload, extra: 1 } } as AnyWardenEvent)).toMatch(/^tool.completed: /);
		expect(validate({ ...sample, kind: "tool.finished" } as unknown as AnyWardenEvent)).toBeDefined();
		const responded = events.filter((e) => e.kind === "model.responded");
		expect(responded.map((e) => e.payload.usage)).toEqual([
			{ prompt_tokens: 120, completion_tokens: 30 },
			{ prompt_tokens: 200, completion_tokens: 5 },
		]);
		// Different tools run in parallel, so effects of different tools may arrive in any order.
		const effects = events.filter((e) => e.kind === "effect.recorded").map((e) => [e.payload.call_id, e.payload.effect]);
		expect(effects.sort()).toEqual([
			["call_1_1_1", "fs.write"],
			["call_1_1_4", "shell.exec"],
			["call_1_1_6", "shell.exec"],
		]);
		const audit = await runtime.listAudit({ session: session.id });
		for (const e of events.filter((ev) => ev.kind === "effect.recorded")) {
			expect(audit.find((r) => r.seq === e.payload.audit_seq)).toMatchObject({ kind: "effect", call_id: e.payload.call_id });
		}
	});
});

describe("a session over several turns", () => {
	it("numbers turns 1 and 2 and carries the conversation into the second turn", async () => {
		const model = new RecordingModel([{ text: "first answer", toolCalls: [] }, { text: "second answer", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model });
		const first = await session.send("first question");
		const second = await session.send("second question");
		expect([first.turn, second.turn]).toEqual([1, 2]);
		expect(second.text).toBe("second answer");

		const secondRequest = model.requests[1]!;
		expect(secondRequest.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
		expect(secondRequest.slice(1)).toEqual([
			{ role: "user", content: "first question" },
			{ role: "assistant", content: "first answer" },
			{ role: "user", content: "second question" },
		]);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.filter((e) => e.kind === "turn.started").map((e) => e.turn)).toEqual([1, 2]);
		expect(await runtime.getSession(session.id)).toMatchObject({ turns: 2, status: "active" });
	});

	it("refuses a second turn while one is running, and any turn after end()", async () => {
		let release: () => void = () => undefined;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		const model = new RecordingModel([
			async () => {
				await gate;
				return { text: "slow answer", toolCalls: [] };
			},
		]);
		const session = await runtime.openSession({ workspace, model });
		const running = session.send("slow");
		await expect(session.send("overlapping")).rejects.toThrow(`session ${session.id} is already running a turn`);
		await expect(session.end()).rejects.toThrow(/still running a turn/);
		release();
		expect((await running).text).toBe("slow answer");

		await session.end();
		await expect(session.send("after the end")).rejects.toThrow(`session ${session.id} has ended`);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.filter((e) => e.kind === "turn.started")).toHaveLength(1);
	});

	it("runtime.close() ends the sessions still open and records session.ended", async () => {
		const session = await runtime.openSession({ workspace, model: ScriptedModel.fromPlan({ steps: [{ text: "ok" }] }, "scripted:test") });
		await session.send("hi");
		await runtime.close();
		await expect(runtime.openSession({ workspace, model: "scripted:x" })).rejects.toThrow("runtime is closed");

		runtime = await Runtime.open({ stateDir, env: process.env });
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.at(-1)).toMatchObject({ kind: "session.ended", turn: 0, payload: { status: "ok" } });
		expect(await runtime.getSession(session.id)).toMatchObject({ status: "ok" });
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.map((r) => r.kind).at(-1)).toBe("session.ended");
	});
});

describe("Runtime.openSession with bad options", () => {
	const model = () => ScriptedModel.fromPlan({ steps: [{ text: "unused" }] }, "scripted:test");

	async function rejection(open: () => Promise<unknown>): Promise<string> {
		const error = await open().then(
			() => undefined,
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(Error);
		const message = (error as Error).message;
		expect(message).not.toContain("\n");
		return message;
	}

	it("rejects each with one line naming the problem, records nothing, and leaves the chain intact", async () => {
		const ok = await runtime.openSession({ workspace, model: model() });
		await ok.send("a good session first, so the chain is not empty");
		const before = (await runtime.listAudit()).length;

		const file = join(workspace, "notes.md");
		const missing = join(root, "missing");
		expect(await rejection(() => runtime.openSession({ workspace: missing, model: model() }))).toBe(`workspace ${missing} does not exist`);
		expect(await rejection(() => runtime.openSession({ workspace: file, model: model() }))).toBe(`workspace ${file} is not a directory`);
		expect(await rejection(() => runtime.openSession({ workspace: undefined as unknown as string, model: model() }))).toMatch(/^workspace is required/);
		expect(await rejection(() => runtime.openSession({ workspace, model: undefined as unknown as string }))).toMatch(/^model is required/);
		expect(await rejection(() => runtime.openSession({ workspace, model: model(), mode: "yolo" as "plan" }))).toMatch(/^unknown mode "yolo"; use one of read-only, /);
		expect(await rejection(() => runtime.openSession({ workspace, model: model(), maxSteps: 0 }))).toBe("max steps must be a positive integer, got 0");
		expect(await rejection(() => runtime.openSession({ workspace, model: model(), maxSteps: 2.5 }))).toMatch(/max steps/);
		expect(await rejection(() => runtime.openSession({ workspace, model: model(), rules: { allow: ["shell(git push"] } }))).toMatch(
			/^invalid permission rule "shell\(git push" \(from host\)/,
		);
		expect(await rejection(() => runtime.openSession({ workspace, model: model(), runDeny: [""] }))).toMatch(/^invalid permission rule "" \(from run\)/);
		expect(await rejection(() => runtime.openSession({ workspace, model: "nonsense-provider:x" }))).toMatch(/nonsense-provider/);

		expect((await runtime.listSessions()).map((s) => s.id)).toEqual([ok.id]);
		expect(await runtime.listAudit()).toHaveLength(before);
		await ok.end();
		await expectSoundEvidence(runtime, ok.id, validate);
	});
});

describe("secrets from the runtime's environment", () => {
	it("are masked in events, audit records and stored messages when a tool output carries them", async () => {
		await runtime.close();
		const secret = "value-1234567890";
		runtime = await Runtime.open({ stateDir, env: { ...process.env, MY_API_TOKEN: secret } });
		const model = new RecordingModel([
			callsStep({ name: "write_file", arguments: { path: "config.txt", content: `endpoint: local\nvalue ${secret} here\n` } }),
			callsStep(
				{ name: "read_file", arguments: { path: "config.txt" } },
				{ name: "shell", arguments: { command: 'cat config.txt; echo "env:[$MY_API_TOKEN]"' } },
			),
			{ text: `I saw ${secret}`, toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, mode: "full-access" });
		const result = await session.send(`please look for ${secret}`);
		await session.end();
		expect(result.status).toBe("completed");

		expect(await readFile(join(workspace, "config.txt"), "utf8")).toContain(secret);
		// The command's own environment never had the variable: the shell scrubs credential names.
		const shellResult = model.requests[2]!.find((m) => m.role === "tool" && m.name === "shell");
		expect(shellResult?.content).toContain("env:[]");

		const events = await expectSoundEvidence(runtime, session.id, validate);
		const audit = await runtime.listAudit({ session: session.id });
		const messages = await runtime.store.listMessages(session.id);
		for (const evidence of [events, audit, messages]) {
			const text = JSON.stringify(evidence);
			expect(text).not.toContain(secret);
			expect(text).toContain(REDACTION_MASK);
		}
		expect(events.find((e) => e.kind === "turn.started")?.payload).toEqual({ input: `please look for ${REDACTION_MASK}` });
		expect(events.find((e) => e.kind === "turn.completed")?.payload).toMatchObject({ text: `I saw ${REDACTION_MASK}` });
	});
});

describe("model failures", () => {
	it("a ModelError ends the turn as model_error with its own one-line message", async () => {
		const model = new RecordingModel([
			() => {
				throw new ModelError("ollama at http://127.0.0.1:11434 refused the connection");
			},
		]);
		const session = await runtime.openSession({ workspace, model });
		const result = await session.send("hi");
		expect(result).toMatchObject({ status: "model_error", error: "ollama at http://127.0.0.1:11434 refused the connection", steps: 1 });
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.at(-1)).toMatchObject({ kind: "turn.completed", payload: { status: "model_error", error: result.error } });
	});

	it("any other error is a model_error too, cut to one line", async () => {
		const model = new RecordingModel([
			() => {
				throw new TypeError("cannot read properties of undefined\n    at parse (provider.js:10:3)");
			},
		]);
		const session = await runtime.openSession({ workspace, model });
		const result = await session.send("hi");
		expect(result.status).toBe("model_error");
		expect(result.error).toBe("model call failed: cannot read properties of undefined");
		await expectSoundEvidence(runtime, session.id, validate);

		const again = await session.send("and again");
		expect(again).toMatchObject({ turn: 2, status: "completed" });
		await expectSoundEvidence(runtime, session.id, validate);
	});
});
