import { describe, expect, it } from "vitest";
import { UpdateMapper } from "./event-updates.js";
import { STOP_REASONS } from "./turn-outcome.js";

const ev = (kind: string, payload: Record<string, unknown>) => ({ kind, payload });
const proposed = ev("tool.proposed", { call_id: "c1", tool: "shell", arguments: { command: "ls" } });

describe("Warden events as ACP session updates", () => {
	it("a proposal is a pending tool_call with its title, kind and raw input", () => {
		expect(new UpdateMapper("/w", false).forEvent(proposed)).toEqual([
			{ sessionUpdate: "tool_call", toolCallId: "c1", name: "shell", title: "ls", kind: "execute", status: "pending", rawInput: { command: "ls" }, locations: [], content: [] },
		]);
	});

	const endings: [string, Record<string, unknown>, string, string | undefined][] = [
		["tool.started", {}, "in_progress", undefined],
		["tool.completed", { duration_ms: 1, output_bytes: 2, truncated: false }, "completed", undefined],
		["tool.failed", { error: "exit 1" }, "failed", "Failed: exit 1"],
		["tool.invalid", { error: "bad args" }, "failed", "Invalid call: bad args"],
		["tool.denied", { reason: "read-only mode" }, "failed", "Denied by Warden: read-only mode"],
		["tool.cancelled", { reason: "turn cancelled" }, "failed", "Cancelled: turn cancelled"],
	];
	for (const [kind, payload, status, said] of endings) {
		it(`${kind} → ${status}${said ? ` saying "${said}"` : ""}`, () => {
			const mapper = new UpdateMapper("/w", false);
			mapper.forEvent(proposed);
			const [update] = mapper.forEvent(ev(kind, { call_id: "c1", tool: "shell", ...payload }));
			expect(update).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "c1", status });
			expect(update && "content" in update ? update.content : undefined).toEqual(said ? [{ type: "content", content: { type: "text", text: said } }] : undefined);
		});
	}

	it("live, the user's input and the model's answer are not repeated (the text streams as deltas); replayed, they are chunks", () => {
		const live = new UpdateMapper("/w", false);
		const replay = new UpdateMapper("/w", true);
		const turn = ev("turn.started", { input: "hi" });
		const answer = ev("model.responded", { step: 1, text: "hello", tool_calls: 0 });
		expect([...live.forEvent(turn), ...live.forEvent(answer)]).toEqual([]);
		expect([...replay.forEvent(turn), ...replay.forEvent(answer)]).toEqual([
			{ sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } },
			{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello" } },
		]);
		expect(replay.forEvent(ev("model.responded", { step: 2, text: "", tool_calls: 1 }))).toEqual([]);
	});

	it("a call's output comes from its stored tool message, once, fenced for a command; other sessions' calls are ignored", () => {
		const mapper = new UpdateMapper("/w", false);
		mapper.forEvent(proposed);
		const messages = [
			{ session: "s", seq: 1, message: { role: "assistant", content: "", tool_calls: [] } },
			{ session: "s", seq: 2, message: { role: "tool", tool_call_id: "c1", name: "shell", content: "exit 0\nfile.txt" } },
			{ session: "s", seq: 3, message: { role: "tool", tool_call_id: "other", name: "shell", content: "x" } },
		];
		expect(mapper.forMessages(messages)).toEqual([
			{
				sessionUpdate: "tool_call_update",
				toolCallId: "c1",
				content: [{ type: "content", content: { type: "text", text: "```\nexit 0\nfile.txt\n```" } }],
				rawOutput: { content: "exit 0\nfile.txt" },
			},
		]);
		expect(mapper.forMessages(messages)).toEqual([]);
	});

	it("events the client has no use for map to nothing", () => {
		const mapper = new UpdateMapper("/w", false);
		for (const kind of ["session.started", "permission.decided", "effect.recorded", "budget.exhausted", "turn.completed", "session.ended"]) {
			expect(mapper.forEvent(ev(kind, {}))).toEqual([]);
		}
	});
});

describe("turn statuses as prompt stop reasons, one row per status", () => {
	const rows: [string, string][] = [
		["completed", "end_turn"],
		["cancelled", "cancelled"],
		["max_steps", "max_turn_requests"],
		["budget_exhausted", "max_turn_requests"],
		["context_full", "max_tokens"],
		["model_error", "error"],
		["error", "error"],
	];
	it("covers every status", () => expect(rows.map((r) => r[0]).sort()).toEqual(Object.keys(STOP_REASONS).sort()));
	for (const [status, reason] of rows) it(`${status} → ${reason}`, () => expect(STOP_REASONS[status as keyof typeof STOP_REASONS]).toBe(reason));
});
