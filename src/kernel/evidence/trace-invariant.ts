/**
 * The trace invariant over one recorded event stream: every proposed call ends in exactly one
 * terminal outcome, executed calls show decision ≺ started ≺ completed|failed|cancelled, and
 * refused calls show a decision and a denied/cancelled outcome, never a completion. Work a budget
 * refused is never reported as done: neither the call it belonged to nor its turn ends completed.
 */
import type { AnyWardenEvent } from "./event-types.js";
import { isReviewCall } from "./review-calls.js";

export interface TraceReport {
	ok: boolean;
	violations: string[];
	/** Calls checked, by how they ended. */
	calls: { executed: number; denied: number; cancelled: number; invalid: number };
}

interface CallTrace {
	key: string;
	proposed?: number;
	decided?: { at: number; decision: string };
	confirmed?: { at: number; approved: boolean };
	started?: number;
	terminals: { at: number; kind: string }[];
	effects: number[];
	/** A JIT tool's syscalls: like effects, only between started and the terminal outcome. */
	syscalls: number[];
	invalid?: number;
	/** A budget refused a reservation for this call. */
	exhausted?: number;
}

const TERMINAL_KINDS = new Set(["tool.completed", "tool.failed", "tool.cancelled", "tool.denied", "tool.invalid"]);

function callIdOf(event: AnyWardenEvent): string | undefined {
	const payload = event.payload as { call_id?: unknown };
	// A host review's ask is about no call of the model: nothing was proposed, nothing runs.
	return typeof payload.call_id === "string" && !isReviewCall(payload.call_id) ? payload.call_id : undefined;
}

export function checkTraceInvariant(events: readonly AnyWardenEvent[]): TraceReport {
	const violations: string[] = [];
	const calls = new Map<string, CallTrace>();
	const openTurns = new Map<string, number>();
	const turnOfCall = new Map<string, string>();
	const outsideTurn = new Set<string>();
	const exhaustedTurns = new Set<string>();

	events.forEach((event, at) => {
		const turnKey = `${event.session}#${event.turn}`;
		if (event.kind === "turn.started") {
			if (openTurns.has(turnKey)) violations.push(`turn ${event.turn}: started twice`);
			openTurns.set(turnKey, at);
			return;
		}
		if (event.kind === "turn.completed") {
			if (!openTurns.has(turnKey)) violations.push(`turn ${event.turn}: completed without being started`);
			if (exhaustedTurns.has(turnKey) && event.payload.status === "completed") {
				violations.push(`turn ${event.turn}: completed although a budget was exhausted in it`);
			}
			for (const [key, trace] of calls) {
				if (turnOfCall.get(key) === turnKey && trace.terminals.length === 0) {
					violations.push(`call ${trace.key}: turn ${event.turn} completed while the call had no terminal outcome`);
				}
			}
			openTurns.delete(turnKey);
			return;
		}
		if (event.kind === "budget.exhausted") exhaustedTurns.add(turnKey);
		const callId = callIdOf(event);
		if (callId === undefined) return;
		const key = `${event.session}/${callId}`;
		let trace = calls.get(key);
		if (!trace) {
			trace = { key: callId, terminals: [], effects: [], syscalls: [] };
			calls.set(key, trace);
			turnOfCall.set(key, turnKey);
		}
		// A call whose turn is not running would escape the turn-level checks above; one report per call.
		if (!openTurns.has(turnKey) && !outsideTurn.has(key)) {
			outsideTurn.add(key);
			violations.push(`call ${callId}: ${event.kind} outside a running turn (turn ${event.turn})`);
		}
		// A background sub-agent finishes after the call that spawned it returned: lineage, not a call phase.
		// A call's result enters the model's context after the call ended; withholding it is a flow decision then.
		// PostToolUse hooks see the result, so they run once the call has its outcome; no other hook does.
		const afterResult = event.kind === "hook.ran" && (event.payload.event === "PostToolUse" || event.payload.event === "PostToolUseFailure");
		if (trace.terminals.length > 0 && event.kind !== "tool.proposed" && event.kind !== "subagent.completed" && event.kind !== "flow.decided" && !afterResult) {
			violations.push(`call ${callId}: ${event.kind} after its terminal outcome`);
		}
		switch (event.kind) {
			case "tool.proposed":
				if (trace.proposed !== undefined) violations.push(`call ${callId}: proposed twice`);
				trace.proposed = at;
				break;
			case "permission.decided":
				if (trace.decided) violations.push(`call ${callId}: decided twice`);
				trace.decided = { at, decision: event.payload.decision };
				break;
			case "permission.confirmed":
				trace.confirmed = { at, approved: event.payload.approved };
				break;
			case "tool.started":
				if (trace.started !== undefined) violations.push(`call ${callId}: started twice`);
				trace.started = at;
				break;
			case "effect.recorded":
				trace.effects.push(at);
				break;
			case "tool.syscall":
				trace.syscalls.push(at);
				break;
			case "budget.exhausted":
				trace.exhausted ??= at;
				break;
			default:
				if (TERMINAL_KINDS.has(event.kind)) trace.terminals.push({ at, kind: event.kind });
		}
	});

	const counts = { executed: 0, denied: 0, cancelled: 0, invalid: 0 };
	for (const trace of calls.values()) {
		const id = trace.key;
		if (trace.proposed === undefined) violations.push(`call ${id}: has events but was never proposed`);
		if (trace.terminals.length !== 1) {
			violations.push(`call ${id}: has ${trace.terminals.length} terminal outcomes, expected exactly 1`);
			continue;
		}
		const terminal = trace.terminals[0]!;
		if (terminal.kind === "tool.invalid") {
			counts.invalid++;
			if (trace.decided || trace.started !== undefined) violations.push(`call ${id}: invalid proposals must not be decided or started`);
			continue;
		}
		if (!trace.decided) {
			violations.push(`call ${id}: ${terminal.kind} without a permission decision`);
			continue;
		}
		if (trace.proposed !== undefined && trace.decided.at < trace.proposed) violations.push(`call ${id}: decided before it was proposed`);
		if (trace.started === undefined) {
			for (const _ of trace.effects) violations.push(`call ${id}: effect recorded for a call that never started`);
			for (const _ of trace.syscalls) violations.push(`call ${id}: syscall recorded for a call that never started`);
			if (terminal.kind === "tool.denied") {
				counts.denied++;
				if (trace.decided.decision !== "deny") violations.push(`call ${id}: denied although the decision was ${trace.decided.decision}`);
			} else if (terminal.kind === "tool.cancelled") {
				counts.cancelled++;
				if (trace.decided.decision === "deny") violations.push(`call ${id}: a denied call must end as tool.denied`);
			} else {
				violations.push(`call ${id}: ${terminal.kind} without tool.started`);
			}
			continue;
		}
		counts.executed++;
		if (!(trace.decided.at < trace.started && trace.started < terminal.at)) {
			violations.push(`call ${id}: order must be decision < started < terminal`);
		}
		if (!["tool.completed", "tool.failed", "tool.cancelled"].includes(terminal.kind)) {
			violations.push(`call ${id}: executed call ended as ${terminal.kind}`);
		}
		if (trace.exhausted !== undefined && terminal.kind === "tool.completed") {
			violations.push(`call ${id}: completed although a budget refused part of it`);
		}
		const decision = trace.decided.decision;
		const approved = decision === "allow" || (decision === "ask" && trace.confirmed?.approved === true && trace.confirmed.at < trace.started);
		if (!approved) violations.push(`call ${id}: started without an allow decision or an approved confirmation`);
		for (const effectAt of trace.effects) {
			if (effectAt < trace.started || effectAt > terminal.at) violations.push(`call ${id}: effect recorded outside started..terminal`);
		}
		for (const syscallAt of trace.syscalls) {
			if (syscallAt < trace.started || syscallAt > terminal.at) violations.push(`call ${id}: syscall recorded outside started..terminal`);
		}
	}
	for (const [turnKey] of openTurns) violations.push(`turn ${turnKey.split("#")[1]}: never completed`);
	return { ok: violations.length === 0, violations, calls: counts };
}
