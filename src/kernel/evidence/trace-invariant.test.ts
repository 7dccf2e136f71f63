import { describe, expect, it } from "vitest";
import type { AnyWardenEvent, EventKind, EventPayloads } from "./event-types.js";
import { checkTraceInvariant } from "./trace-invariant.js";

const SESSION = "s-1";

function ev<K extends EventKind>(kind: K, payload: EventPayloads[K], turn = 1): AnyWardenEvent {
	return { kind, session: SESSION, turn, time: "2025-01-01T00:00:00.000Z", payload } as AnyWardenEvent;
}

const turnStarted = (turn = 1) => ev("turn.started", { input: "task" }, turn);
const turnCompleted = (turn = 1) => ev("turn.completed", { status: "completed", steps: 1 }, turn);
const proposed = (id: string, tool = "shell") => ev("tool.proposed", { call_id: id, tool, arguments: {} });
const decided = (id: string, decision: "allow" | "ask" | "deny", tool = "shell") =>
	ev("permission.decided", { call_id: id, tool, decision, layer: "mode-rule", reason: `mode says ${decision}` });
const confirmed = (id: string, approved: boolean) => ev("permission.confirmed", { call_id: id, tool: "shell", approved, by: "host" });
const started = (id: string) => ev("tool.started", { call_id: id, tool: "shell" });
const completed = (id: string) => ev("tool.completed", { call_id: id, tool: "shell", duration_ms: 1, output_bytes: 2, truncated: false });
const failed = (id: string) => ev("tool.failed", { call_id: id, tool: "shell", duration_ms: 1, error: "exit code 1" });
const cancelled = (id: string) => ev("tool.cancelled", { call_id: id, tool: "shell", reason: "not approved" });
const denied = (id: string) => ev("tool.denied", { call_id: id, tool: "shell", reason: "mode says deny" });
const invalid = (id: string) => ev("tool.invalid", { call_id: id, tool: "nope", error: "unknown tool" });
const effect = (id: string) => ev("effect.recorded", { call_id: id, effect: "shell.exec", resource: "shell:ls", audit_seq: 3 });

/** One call framed by a turn, so each test only lists the call's own events. */
function inTurn(...events: AnyWardenEvent[]): AnyWardenEvent[] {
	return [turnStarted(), ...events, turnCompleted()];
}

function violationsOf(events: AnyWardenEvent[]): string[] {
	const report = checkTraceInvariant(events);
	expect(report.ok).toBe(report.violations.length === 0);
	for (const v of report.violations) expect(v).not.toContain("\n");
	return report.violations;
}

describe("checkTraceInvariant: valid traces", () => {
	it("accepts an executed allow call", () => {
		const report = checkTraceInvariant(inTurn(proposed("c1"), decided("c1", "allow"), started("c1"), completed("c1")));
		expect(report).toEqual({ ok: true, violations: [], calls: { executed: 1, denied: 0, cancelled: 0, invalid: 0 } });
	});

	it("accepts an ask the host approved, and an executed call that failed", () => {
		const report = checkTraceInvariant(
			inTurn(
				proposed("c1"),
				decided("c1", "ask"),
				confirmed("c1", true),
				started("c1"),
				completed("c1"),
				proposed("c2"),
				decided("c2", "allow"),
				started("c2"),
				failed("c2"),
			),
		);
		expect(report.violations).toEqual([]);
		expect(report.calls.executed).toBe(2);
	});

	it("accepts an ask the host refused that ends cancelled", () => {
		const report = checkTraceInvariant(inTurn(proposed("c1"), decided("c1", "ask"), confirmed("c1", false), cancelled("c1")));
		expect(report.violations).toEqual([]);
		expect(report.calls).toEqual({ executed: 0, denied: 0, cancelled: 1, invalid: 0 });
	});

	it("accepts a deny that ends denied", () => {
		const report = checkTraceInvariant(inTurn(proposed("c1"), decided("c1", "deny"), denied("c1")));
		expect(report.violations).toEqual([]);
		expect(report.calls.denied).toBe(1);
	});

	it("accepts an invalid call that was never decided", () => {
		const report = checkTraceInvariant(inTurn(proposed("c1"), invalid("c1")));
		expect(report.violations).toEqual([]);
		expect(report.calls.invalid).toBe(1);
	});

	it("accepts effects between started and the terminal outcome", () => {
		const report = checkTraceInvariant(inTurn(proposed("c1"), decided("c1", "allow"), started("c1"), effect("c1"), effect("c1"), completed("c1")));
		expect(report.violations).toEqual([]);
	});

	it("accepts an empty stream, session-level events, and several turns", () => {
		expect(checkTraceInvariant([]).ok).toBe(true);
		const report = checkTraceInvariant([
			ev("session.started", { event_schema: "1.0", workspace: "/w", mode: "workspace-write", model: "m", resumed: false }, 0),
			turnStarted(1),
			proposed("call_1_1_1"),
			decided("call_1_1_1", "allow"),
			started("call_1_1_1"),
			completed("call_1_1_1"),
			turnCompleted(1),
			turnStarted(2),
			turnCompleted(2),
			ev("session.ended", { status: "ok" }, 0),
		]);
		expect(report.violations).toEqual([]);
	});

	it("keeps calls of different sessions apart even when their ids match", () => {
		const other = (e: AnyWardenEvent): AnyWardenEvent => ({ ...e, session: "s-2" });
		const events = [
			...inTurn(proposed("c1"), decided("c1", "allow"), started("c1"), completed("c1")),
			...inTurn(proposed("c1"), decided("c1", "deny"), denied("c1")).map(other),
		];
		expect(checkTraceInvariant(events).calls).toEqual({ executed: 1, denied: 1, cancelled: 0, invalid: 0 });
		expect(checkTraceInvariant(events).violations).toEqual([]);
	});
});

describe("checkTraceInvariant: violations", () => {
	it("catches a call started without a decision", () => {
		expect(violationsOf(inTurn(proposed("c1"), started("c1"), completed("c1")))).toEqual([
			"call c1: tool.completed without a permission decision",
		]);
	});

	it("catches a call started after a deny", () => {
		const violations = violationsOf(inTurn(proposed("c1"), decided("c1", "deny"), started("c1"), completed("c1")));
		expect(violations).toContain("call c1: started without an allow decision or an approved confirmation");
	});

	it("catches a call started after an ask with no approval, or with a refusal", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "ask"), started("c1"), completed("c1")))).toEqual([
			"call c1: started without an allow decision or an approved confirmation",
		]);
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "ask"), confirmed("c1", false), started("c1"), completed("c1")))).toEqual([
			"call c1: started without an allow decision or an approved confirmation",
		]);
	});

	it("catches an approval that only came after the call started", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "ask"), started("c1"), confirmed("c1", true), completed("c1")))).toEqual([
			"call c1: started without an allow decision or an approved confirmation",
		]);
	});

	it("catches a completion without tool.started", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), completed("c1")))).toEqual([
			"call c1: tool.completed without tool.started",
		]);
	});

	it("catches two terminal outcomes", () => {
		const violations = violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), started("c1"), completed("c1"), failed("c1")));
		expect(violations).toContain("call c1: has 2 terminal outcomes, expected exactly 1");
		expect(violations).toContain("call c1: tool.failed after its terminal outcome");
	});

	it("catches a denied call that ends as tool.completed", () => {
		const violations = violationsOf(inTurn(proposed("c1"), decided("c1", "deny"), completed("c1")));
		expect(violations).toEqual(["call c1: tool.completed without tool.started"]);
		const executed = violationsOf(inTurn(proposed("c1"), decided("c1", "deny"), started("c1"), completed("c1")));
		expect(executed).toEqual(["call c1: started without an allow decision or an approved confirmation"]);
	});

	it("catches a denied call that ends cancelled, and a denial without a deny decision", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "deny"), cancelled("c1")))).toEqual([
			"call c1: a denied call must end as tool.denied",
		]);
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), denied("c1")))).toEqual([
			"call c1: denied although the decision was allow",
		]);
	});

	it("catches an effect outside started..terminal", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), effect("c1"), started("c1"), completed("c1")))).toEqual([
			"call c1: effect recorded outside started..terminal",
		]);
		const after = violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), started("c1"), completed("c1"), effect("c1")));
		expect(after).toContain("call c1: effect recorded outside started..terminal");
		expect(after).toContain("call c1: effect.recorded after its terminal outcome");
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "deny"), effect("c1"), denied("c1")))).toEqual([
			"call c1: effect recorded for a call that never started",
		]);
	});

	it("catches an invalid call that was decided or started", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), invalid("c1")))).toEqual([
			"call c1: invalid proposals must not be decided or started",
		]);
		expect(violationsOf(inTurn(proposed("c1"), started("c1"), invalid("c1")))).toEqual([
			"call c1: invalid proposals must not be decided or started",
		]);
	});

	it("catches turn.completed while a call is still open", () => {
		const violations = violationsOf([turnStarted(), proposed("c1"), decided("c1", "allow"), started("c1"), turnCompleted()]);
		expect(violations).toContain("call c1: turn 1 completed while the call had no terminal outcome");
		expect(violations).toContain("call c1: has 0 terminal outcomes, expected exactly 1");
	});

	it("catches a turn that never completed", () => {
		expect(violationsOf([turnStarted(1), turnCompleted(1), turnStarted(2)])).toEqual(["turn 2: never completed"]);
	});

	it("catches a turn completed without being started, and one started twice", () => {
		expect(violationsOf([turnCompleted(3)])).toEqual(["turn 3: completed without being started"]);
		expect(violationsOf([turnStarted(1), turnStarted(1), turnCompleted(1)])).toEqual(["turn 1: started twice"]);
	});

	it("catches events after a terminal outcome", () => {
		const violations = violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), started("c1"), completed("c1"), started("c1")));
		expect(violations).toContain("call c1: tool.started after its terminal outcome");
		expect(violations).toContain("call c1: started twice");
	});

	it("catches a call that was never proposed, proposed twice, or decided twice", () => {
		expect(violationsOf(inTurn(decided("c1", "allow"), started("c1"), completed("c1")))).toEqual(["call c1: has events but was never proposed"]);
		expect(violationsOf(inTurn(proposed("c1"), proposed("c1"), decided("c1", "deny"), denied("c1")))).toEqual(["call c1: proposed twice"]);
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "deny"), decided("c1", "deny"), denied("c1")))).toEqual(["call c1: decided twice"]);
	});

	it("catches a decision recorded before the call was proposed", () => {
		expect(violationsOf(inTurn(decided("c1", "deny"), proposed("c1"), denied("c1")))).toEqual(["call c1: decided before it was proposed"]);
	});

	it("catches a terminal outcome recorded before the call started", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), completed("c1"), started("c1")))).toContain(
			"call c1: order must be decision < started < terminal",
		);
	});

	it("catches call events outside any running turn", () => {
		const call = [proposed("c1"), decided("c1", "allow"), started("c1"), completed("c1")];
		expect(violationsOf(call)).toEqual(["call c1: tool.proposed outside a running turn (turn 1)"]);
		expect(violationsOf([turnStarted(), turnCompleted(), ...call])).toEqual(["call c1: tool.proposed outside a running turn (turn 1)"]);
	});
});

describe("checkTraceInvariant: budgets", () => {
	const exhausted = (id?: string) =>
		ev("budget.exhausted", { counter: "tool_calls", scope: "session", limit: 2, used: 2, requested: 1, ...(id ? { call_id: id } : {}) });
	const turnEnded = (status: "completed" | "budget_exhausted" | "cancelled") => ev("turn.completed", { status, steps: 1 });

	it("accepts a call refused before it started (cancelled) and one refused inside a primitive (failed), in a budget_exhausted turn", () => {
		const report = checkTraceInvariant([
			turnStarted(),
			proposed("c1"),
			decided("c1", "allow"),
			exhausted("c1"),
			cancelled("c1"),
			proposed("c2"),
			decided("c2", "allow"),
			started("c2"),
			exhausted("c2"),
			failed("c2"),
			turnEnded("budget_exhausted"),
		]);
		expect(report.violations).toEqual([]);
		expect(report.calls).toMatchObject({ executed: 1, cancelled: 1 });
		expect(violationsOf([turnStarted(), exhausted(), turnEnded("cancelled")])).toEqual([]);
	});

	it("rejects a call a budget refused that still ends completed", () => {
		expect(violationsOf([turnStarted(), proposed("c1"), decided("c1", "allow"), started("c1"), exhausted("c1"), completed("c1"), turnEnded("budget_exhausted")])).toEqual([
			"call c1: completed although a budget refused part of it",
		]);
	});

	it("rejects a turn that ends completed after a budget was exhausted in it, and a refusal after the call ended", () => {
		expect(violationsOf([turnStarted(), exhausted(), turnEnded("completed")])).toEqual(["turn 1: completed although a budget was exhausted in it"]);
		expect(violationsOf([turnStarted(), proposed("c1"), decided("c1", "allow"), cancelled("c1"), exhausted("c1"), turnEnded("budget_exhausted")])).toEqual([
			"call c1: budget.exhausted after its terminal outcome",
		]);
	});
});

describe("checkTraceInvariant: a JIT tool's syscalls", () => {
	const syscall = (id: string) => ev("tool.syscall", { call_id: id, tool: "word_count", syscall: "fs.read", outcome: "ok" });

	it("accepts syscalls between started and the terminal outcome", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), started("c1"), syscall("c1"), syscall("c1"), completed("c1")))).toEqual([]);
	});

	it("refuses a syscall before the call started or after it ended", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), syscall("c1"), started("c1"), completed("c1")))).toEqual([
			"call c1: syscall recorded outside started..terminal",
		]);
		expect(violationsOf(inTurn(proposed("c2"), decided("c2", "deny"), syscall("c2"), denied("c2")))).toEqual(["call c2: syscall recorded for a call that never started"]);
		expect(violationsOf(inTurn(proposed("c3"), decided("c3", "allow"), started("c3"), completed("c3"), syscall("c3")))).toContain("call c3: tool.syscall after its terminal outcome");
	});
});

describe("checkTraceInvariant: hook runs", () => {
	const hookRan = (id: string, event: string) =>
		ev("hook.ran", { call_id: id, event, handler: "./h.sh", source: "test", origin: "user", exit_code: 0, timed_out: false, verdict: "none", duration_ms: 1 });

	it("accepts a PreToolUse run before the decision and PostToolUse / PostToolUseFailure runs after the outcome", () => {
		const events = inTurn(proposed("c1"), hookRan("c1", "PreToolUse"), decided("c1", "allow"), started("c1"), completed("c1"), hookRan("c1", "PostToolUse"), proposed("c2"), decided("c2", "allow"), started("c2"), failed("c2"), hookRan("c2", "PostToolUseFailure"));
		expect(violationsOf(events)).toEqual([]);
	});

	it("a PreToolUse run after the call's outcome is a violation", () => {
		expect(violationsOf(inTurn(proposed("c1"), decided("c1", "allow"), started("c1"), completed("c1"), hookRan("c1", "PreToolUse")))).toEqual(["call c1: hook.ran after its terminal outcome"]);
	});
});
