import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent, EventKind, EventPayloads } from "../kernel/evidence/event-types.js";
import type { OperationKind, SettledState } from "../kernel/operations/operation-types.js";
import type { SqliteStore } from "../store/sqlite-store.js";
import { openSqliteStore } from "../kernel/evidence/store-rows.js";
import { resumedBudget } from "./resumed-budget.js";

let dir: string;
let store: SqliteStore;

beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "warden-resumed-budget-"));
	store = openSqliteStore(dir);
	await store.createSession({ id: "s", workspace: dir, mode: "workspace-write", model: "scripted:x", created_at: new Date().toISOString() });
});

afterEach(async () => {
	await store.close();
	await rm(dir, { recursive: true, force: true });
});

async function event<K extends EventKind>(kind: K, turn: number, payload: EventPayloads[K], session = "s"): Promise<void> {
	await store.appendEvent({ kind, session, turn, time: new Date().toISOString(), payload } as AnyWardenEvent);
}

const usage = (used: Partial<Record<string, number>>) =>
	Object.fromEntries(["tool_calls", "model_calls", "prompt_tokens", "completion_tokens", "bytes_read", "bytes_written", "shell_ms"].map((c) => [c, { used: used[c] ?? 0 }])) as EventPayloads["turn.completed"]["budget"];

let opCount = 0;
async function operation(turn: number, kind: OperationKind, reserved: Record<string, number>, state: SettledState | "dispatched", effect?: Record<string, unknown>, outcome: Record<string, unknown> = {}) {
	const id = `op_${++opCount}`;
	await store.prepareOperation({ id, session: "s", turn, call_id: `call_${turn}_1_${opCount}`, kind, resource: "r", intent: {}, reserved, created_at: new Date().toISOString() });
	if (state !== "abandoned") await store.markOperationDispatched(id);
	if (state === "dispatched") return;
	await store.settleOperation(id, {
		state,
		outcome,
		audit: effect ? { session: "s", turn, kind: "effect", data: effect } : { session: "s", turn, kind: "operation.settled", data: { operation: id } },
	});
}

describe("resumedBudget", () => {
	it("starts from the last completed turn's settled use", async () => {
		await event("turn.completed", 1, { status: "completed", steps: 2, budget: usage({ tool_calls: 1, model_calls: 2 }) });
		await event("turn.completed", 2, { status: "completed", steps: 1, budget: usage({ tool_calls: 4, model_calls: 5, shell_ms: 30 }) });
		expect(await resumedBudget(store, "s")).toEqual({ used: { tool_calls: 4, model_calls: 5, shell_ms: 30 }, cutOffTurns: [] });
	});

	it("a session with no rows has spent nothing", async () => {
		expect(await resumedBudget(store, "s")).toEqual({ used: {}, cutOffTurns: [] });
	});

	it("counts a cut-off turn's calls: started ones and admitted ones with no outcome, not refused ones", async () => {
		await event("turn.completed", 1, { status: "completed", steps: 1, budget: usage({ tool_calls: 1, model_calls: 1 }) });
		await event("turn.started", 2, { input: "go" });
		await event("model.requested", 2, { step: 1, messages: 3, tools: 5 });
		await event("model.responded", 2, { step: 1, tool_calls: 4, usage: { prompt_tokens: 10, completion_tokens: 7 } });
		const decided = (call: string, decision: "allow" | "ask" | "deny") =>
			event("permission.decided", 2, { call_id: call, tool: "shell", decision, layer: "mode-rule", reason: "r" });
		await decided("started", "allow");
		await event("tool.started", 2, { call_id: "started", tool: "shell" });
		await decided("held", "allow");
		await decided("refused", "allow");
		await event("tool.cancelled", 2, { call_id: "refused", tool: "shell", reason: "budget exhausted" });
		await decided("denied", "deny");
		await event("tool.denied", 2, { call_id: "denied", tool: "shell", reason: "no" });
		await decided("approved", "ask");
		await event("permission.confirmed", 2, { call_id: "approved", tool: "shell", approved: true, by: "host" });
		await event("model.requested", 2, { step: 2, messages: 5, tools: 5 });
		expect(await resumedBudget(store, "s")).toEqual({
			used: { tool_calls: 4, model_calls: 3, prompt_tokens: 10, completion_tokens: 7 },
			cutOffTurns: [2],
		});
	});

	// One row per settlement: what a cut-off turn's protected operation is charged.
	const operations: [string, OperationKind, Record<string, number>, SettledState | "dispatched", Record<string, unknown> | undefined, Record<string, unknown>, Record<string, number>][] = [
		["abandoned before dispatch: nothing", "fs.write", { bytes_written: 5 }, "abandoned", undefined, {}, {}],
		["found failed by recovery: nothing", "fs.write", { bytes_written: 5 }, "failed", undefined, { recovered: true }, {}],
		["failed in process: what it held", "fs.write", { bytes_written: 5 }, "failed", undefined, {}, { bytes_written: 5 }],
		["left unknown: all it held", "shell.exec", { shell_ms: 30000 }, "unknown", undefined, { recovered: true }, { shell_ms: 30000 }],
		["still dispatched (unreadable to recovery): all it held", "shell.exec", { shell_ms: 30000 }, "dispatched", undefined, {}, { shell_ms: 30000 }],
		["committed shell: its measured duration", "shell.exec", { shell_ms: 30000 }, "committed", { duration_ms: 41.2 }, {}, { shell_ms: 42 }],
		["committed fetch: the bytes that arrived", "net.fetch", { bytes_read: 1000 }, "committed", { response_bytes: 12 }, {}, { bytes_read: 12 }],
		["committed write with no measure: what it held", "fs.write", { bytes_written: 9 }, "committed", { path: "a" }, {}, { bytes_written: 9 }],
	];
	for (const [name, kind, reserved, state, effect, outcome, charged] of operations) {
		it(`a cut-off turn's operation ${name}`, async () => {
			await event("turn.started", 1, { input: "go" });
			await operation(1, kind, reserved, state, effect, outcome);
			expect((await resumedBudget(store, "s")).used).toEqual(charged);
		});
	}

	it("adds what a sub-agent of a cut-off turn spent, and ignores operations of completed turns", async () => {
		await operation(1, "shell.exec", { shell_ms: 500 }, "committed", { duration_ms: 3 });
		await event("turn.completed", 1, { status: "completed", steps: 1, budget: usage({ shell_ms: 3 }) });
		await event("turn.started", 2, { input: "go" });
		await event("subagent.started", 2, { call_id: "call_2_1_1", child_session: "child", depth: 1, mode: "workspace-write", tools: [] });
		await store.createSession({ id: "child", workspace: dir, mode: "workspace-write", model: "scripted:x", created_at: new Date().toISOString(), parent_session: "s", parent_call: "call_2_1_1" });
		await event("turn.started", 1, { input: "child task" }, "child");
		await event("model.requested", 1, { step: 1, messages: 2, tools: 1 }, "child");
		expect(await resumedBudget(store, "s")).toEqual({ used: { shell_ms: 3, model_calls: 1 }, cutOffTurns: [2] });
	});
});
