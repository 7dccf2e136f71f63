import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent, WardenEvent } from "../kernel/evidence/event-types.js";
import { Runtime } from "./runtime.js";
import { callKinds, eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-budget-", { files: { "notes.md": "# notes\nremember the milk\n" } }));
});

afterEach(() => closeTestRuntime({ root, runtime }));

const write = (path: string) => ({ name: "write_file", arguments: { path, content: `${path}\n` } });
const exists = (path: string) => stat(join(workspace, path)).then(
	() => true,
	() => false,
);

function exhaustedEvents(events: AnyWardenEvent[]): WardenEvent<"budget.exhausted">[] {
	return events.filter((e): e is WardenEvent<"budget.exhausted"> => e.kind === "budget.exhausted");
}

describe("a tool_calls budget", () => {
	it("runs the calls that fit, cancels the rest before they start, and ends the turn budget_exhausted", async () => {
		const model = new RecordingModel([callsStep(write("a.txt")), callsStep(write("b.txt"), write("c.txt"), write("d.txt")), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, budget: { tool_calls: 2 } });
		const result = await session.send("write four files");

		expect(result.status).toBe("budget_exhausted");
		expect(result.error).toBe("budget exhausted: tool_calls would exceed the session limit of 2 (used 2, requested 1)");
		expect(result.steps).toBe(2);
		expect(result.toolCalls).toEqual({ total: 4, completed: 2, denied: 0, cancelled: 2, invalid: 0, failed: 0 });
		expect(await Promise.all(["a.txt", "b.txt", "c.txt", "d.txt"].map(exists))).toEqual([true, true, false, false]);
		// The turn ends: the model is not asked again after the refusal.
		expect(model.requests).toHaveLength(2);

		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(callKinds(events, "call_1_2_2")).toEqual(["tool.proposed", "permission.decided", "budget.exhausted", "tool.cancelled"]);
		const cancelled = events.find((e) => e.kind === "tool.cancelled" && e.payload.call_id === "call_1_2_2");
		expect(cancelled?.payload).toMatchObject({ reason: result.error });
		expect(exhaustedEvents(events).map((e) => e.payload)).toEqual([
			{ counter: "tool_calls", scope: "session", limit: 2, used: 2, requested: 1, call_id: "call_1_2_2" },
			{ counter: "tool_calls", scope: "session", limit: 2, used: 2, requested: 1, call_id: "call_1_2_3" },
		]);
		const done = events.at(-1)!;
		expect(done.kind === "turn.completed" && done.payload).toMatchObject({
			status: "budget_exhausted",
			budget: { tool_calls: { used: 2, limit: 2 }, model_calls: { used: 2 }, bytes_written: { used: 12 } },
		});
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.filter((r) => r.kind === "budget.exhausted").map((r) => r.call_id)).toEqual(["call_1_2_2", "call_1_2_3"]);
		// The model's transcript says the call did not run, so nothing is reported as done.
		const tool = (await runtime.store.listMessages(session.id)).map((m) => m.message as { role: string; tool_call_id?: string; content: string });
		expect(tool.find((m) => m.tool_call_id === "call_1_2_2")?.content).toMatch(/^Not run: .*budget exhausted: tool_calls/);
		expect(session.budgetUsage().tool_calls).toEqual({ used: 2, limit: 2 });
	});

	it("per turn, resets with each turn while the session's count goes on", async () => {
		const model = new RecordingModel([
			callsStep(write("a.txt")),
			{ text: "one", toolCalls: [] },
			callsStep(write("b.txt"), write("c.txt")),
			{ text: "two", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, turnBudget: { tool_calls: 1 } });
		expect((await session.send("first")).status).toBe("completed");
		const second = await session.send("second");
		expect(second.status).toBe("budget_exhausted");
		expect(second.error).toContain("the turn limit of 1 (used 1, requested 1)");
		expect(session.budgetUsage().tool_calls).toEqual({ used: 2 });
		await expectSoundEvidence(runtime, session.id, validate);
	});
});

describe("a host budget", () => {
	it("is shared by every session of the Runtime", async () => {
		const host = await Runtime.open({ stateDir: join(root, "host-state"), env: process.env, budget: { tool_calls: 1 } });
		try {
			const first = await host.openSession({ workspace, model: new RecordingModel([callsStep(write("a.txt")), { text: "ok", toolCalls: [] }]) });
			expect((await first.send("one")).status).toBe("completed");
			const second = await host.openSession({ workspace, model: new RecordingModel([callsStep(write("b.txt"))]) });
			const result = await second.send("two");
			expect(result.status).toBe("budget_exhausted");
			expect(result.error).toContain("the host limit of 1");
			expect(await exists("b.txt")).toBe(false);
			expect(host.budgetUsage().tool_calls).toEqual({ used: 1, limit: 1 });
			await expectSoundEvidence(host, second.id, validate);
		} finally {
			await host.close();
		}
	});
});

describe("budgets at the primitives", () => {
	it("bytes_read: a file larger than the limit is refused before it is read; the call fails", async () => {
		const model = new RecordingModel([callsStep({ name: "read_file", arguments: { path: "notes.md" } }), { text: "read", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, budget: { bytes_read: 10 } });
		const result = await session.send("read the notes");

		expect(result.status).toBe("budget_exhausted");
		expect(result.toolCalls).toMatchObject({ failed: 1, completed: 0 });
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(callKinds(events, "call_1_1_1")).toEqual(["tool.proposed", "permission.decided", "tool.started", "budget.exhausted", "tool.failed"]);
		expect(exhaustedEvents(events)[0]?.payload).toEqual({ counter: "bytes_read", scope: "session", limit: 10, used: 0, requested: 26, call_id: "call_1_1_1" });
		const failed = events.find((e) => e.kind === "tool.failed");
		expect(failed?.kind === "tool.failed" && failed.payload.error).toBe("budget exhausted: bytes_read would exceed the session limit of 10 (used 0, requested 26)");
		expect(session.budgetUsage().bytes_read.used).toBe(0);
		const stored = JSON.stringify(await runtime.store.listMessages(session.id));
		expect(stored).not.toContain("remember the milk");
	});

	it("shell_ms: a timeout larger than what is left is refused before anything is spawned", async () => {
		const model = new RecordingModel([callsStep({ name: "shell", arguments: { command: "touch marker.txt", timeout_ms: 5000 } }), { text: "ran", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, rules: { allow: ["shell(touch *)"] }, budget: { shell_ms: 1000 } });
		const result = await session.send("touch the marker");

		expect(result.status).toBe("budget_exhausted");
		expect(result.error).toBe("budget exhausted: shell_ms would exceed the session limit of 1000 (used 0, requested 5000)");
		await new Promise((r) => setTimeout(r, 200));
		expect(await exists("marker.txt")).toBe(false);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.some((e) => e.kind === "effect.recorded")).toBe(false);
		expect(callKinds(events, "call_1_1_1")).toContain("tool.failed");
	});

	it("bytes_written: a write that fits runs, a larger one is refused and leaves no file", async () => {
		const model = new RecordingModel([
			callsStep({ name: "write_file", arguments: { path: "small.txt", content: "12345" } }),
			callsStep({ name: "write_file", arguments: { path: "big.txt", content: "x".repeat(100) } }),
			{ text: "wrote", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, budget: { bytes_written: 50 } });
		const result = await session.send("write two files");
		expect(result.status).toBe("budget_exhausted");
		expect(await exists("small.txt")).toBe(true);
		expect(await exists("big.txt")).toBe(false);
		expect(session.budgetUsage().bytes_written).toEqual({ used: 5, limit: 50 });
		await expectSoundEvidence(runtime, session.id, validate);
	});
});

describe("budgets on model calls", () => {
	it("model_calls: the call past the limit is never sent, and the turn ends budget_exhausted", async () => {
		const model = new RecordingModel([callsStep(write("a.txt")), { text: "done", toolCalls: [] }]);
		const session = await runtime.openSession({ workspace, model, budget: { model_calls: 1 } });
		const result = await session.send("write a file");

		expect(result).toMatchObject({ status: "budget_exhausted", steps: 1 });
		expect(result.error).toBe("budget exhausted: model_calls would exceed the session limit of 1 (used 1, requested 1)");
		expect(model.requests).toHaveLength(1);
		expect(await exists("a.txt")).toBe(true);
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(events.filter((e) => e.kind === "model.requested")).toHaveLength(1);
		expect(exhaustedEvents(events).map((e) => e.payload)).toEqual([{ counter: "model_calls", scope: "session", limit: 1, used: 1, requested: 1 }]);
		expect(events.slice(-2).map((e) => e.kind)).toEqual(["budget.exhausted", "turn.completed"]);
	});

	it("tokens: usage past the limit is charged when it is reported, and the next model call is refused", async () => {
		const model = new RecordingModel([
			{ ...callsStep(write("a.txt")), usage: { prompt_tokens: 40, completion_tokens: 80 } },
			{ text: "done", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, turnBudget: { completion_tokens: 50 } });
		const result = await session.send("write a file");

		expect(result.status).toBe("budget_exhausted");
		expect(result.error).toBe("budget exhausted: completion_tokens would exceed the turn limit of 50 (used 80, requested 0)");
		// The tool call of the answer that overran still ran: the overrun is charged, not undone.
		expect(await exists("a.txt")).toBe(true);
		expect(model.requests).toHaveLength(1);
		expect(session.budgetUsage()).toMatchObject({ prompt_tokens: { used: 40 }, completion_tokens: { used: 80 } });
		await expectSoundEvidence(runtime, session.id, validate);
	});
});

describe("budget options", () => {
	it("are refused with one line naming the problem, before anything is recorded", async () => {
		const before = (await runtime.listAudit()).length;
		const model = new RecordingModel([]);
		await expect(runtime.openSession({ workspace, model, budget: { tool_call: 3 } as object })).rejects.toThrow(
			/^budget: unknown counter "tool_call"; use one of tool_calls, model_calls/,
		);
		await expect(runtime.openSession({ workspace, model, turnBudget: { shell_ms: -1 } })).rejects.toThrow("turnBudget.shell_ms must be a non-negative integer, got -1");
		await expect(Runtime.open({ stateDir: join(root, "other"), budget: { bytes_read: 1.5 } })).rejects.toThrow(
			expect.objectContaining({ name: "RuntimeConfigError", message: "budget.bytes_read must be a non-negative integer, got 1.5" }),
		);
		expect(await runtime.listAudit()).toHaveLength(before);
	});

	it("are recorded with the session's start", async () => {
		const session = await runtime.openSession({ workspace, model: new RecordingModel([]), budget: { tool_calls: 5 }, turnBudget: { shell_ms: 1000 } });
		const started = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "session.started");
		expect(started?.data.budget).toEqual({ session: { tool_calls: 5 }, turn: { shell_ms: 1000 } });
	});
});
