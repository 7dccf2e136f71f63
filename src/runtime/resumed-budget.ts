/**
 * What a resumed session has already spent, rebuilt from its durable rows, so `--budget` limits the
 * session across all its runs rather than each run afresh.
 *
 * Each completed turn records the session's settled use so far (`turn.completed`'s budget), and a
 * resumed run starts from the last of them, so that figure already includes every run before it.
 * A turn a crash cut off recorded no such figure: what it spent is rebuilt from what it left, and
 * whatever may have been held when the process died counts as spent (fail closed) unless recovery
 * settled it as never having happened:
 *   - tool_calls: every call that started, and every admitted call with no outcome recorded;
 *   - model_calls and tokens: every request sent, and the usage of each answer that came back;
 *   - bytes_written, shell_ms, a fetch's bytes_read: each protected operation's measured use, else
 *     all it reserved; nothing for one abandoned before dispatch or found failed by recovery;
 *   - a sub-agent it started: that child's own use, rebuilt the same way.
 * A file read leaves no durable row of its size, so a cut-off turn's file reads are not counted.
 */
import { BUDGET_COUNTERS, type BudgetAmounts, type BudgetCounter, isBudgetCounter } from "../kernel/budget/budget-types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import type { OperationKind, OperationRow } from "../kernel/operations/operation-types.js";
import type { Store } from "../store/store.js";
import { toOperationRows, toWardenEvents } from "../kernel/evidence/store-rows.js";

export interface ResumedBudget {
	/** The session's use so far, per counter (only counters above zero). */
	used: BudgetAmounts;
	/** Turns a crash cut off whose use was rebuilt from what they left. */
	cutOffTurns: number[];
}

type Totals = Record<BudgetCounter, number>;

const TERMINAL = new Set(["tool.completed", "tool.failed", "tool.cancelled", "tool.denied", "tool.invalid"]);

/** Per operation kind, the field of its effect record that measured what a counter was charged. */
const MEASURED: Record<OperationKind, Partial<Record<BudgetCounter, string>>> = {
	"fs.write": { bytes_written: "bytes" },
	"fs.delete": {},
	"shell.exec": { shell_ms: "duration_ms" },
	"net.fetch": { bytes_read: "response_bytes" },
	"mcp.call": { bytes_read: "response_bytes" },
};

function zeroes(): Totals {
	return Object.fromEntries(BUDGET_COUNTERS.map((c) => [c, 0])) as Totals;
}

function callOf(event: AnyWardenEvent): string | undefined {
	const id = (event.payload as { call_id?: unknown }).call_id;
	return typeof id === "string" ? id : undefined;
}

export async function resumedBudget(store: Store, session: string): Promise<ResumedBudget> {
	const totals = zeroes();
	const cutOffTurns: number[] = [];
	await addSessionUse(store, session, totals, cutOffTurns, true);
	const used: BudgetAmounts = {};
	for (const counter of BUDGET_COUNTERS) if (totals[counter] > 0) used[counter] = totals[counter];
	return { used, cutOffTurns };
}

async function addSessionUse(store: Store, session: string, totals: Totals, cutOffTurns: number[], top: boolean): Promise<void> {
	const events = toWardenEvents(await store.listEvents(session));
	let last = -1;
	for (let i = events.length - 1; i >= 0; i--) {
		const e = events[i]!;
		if (e.kind === "turn.completed" && e.payload.budget) {
			last = i;
			break;
		}
	}
	const settled = last >= 0 ? (events[last] as AnyWardenEvent & { kind: "turn.completed" }) : undefined;
	if (settled?.payload.budget) {
		for (const counter of BUDGET_COUNTERS) totals[counter] += settled.payload.budget[counter]?.used ?? 0;
	}
	const lastTurn = settled?.turn ?? 0;
	const trailing = events.slice(last + 1).filter((e) => e.turn > lastTurn);
	if (trailing.length === 0) return;
	if (top) cutOffTurns.push(...new Set(trailing.map((e) => e.turn)));
	addCutOffEvents(trailing, totals);
	const operations = toOperationRows(await store.listOperations({ session })).filter((op) => op.turn > lastTurn);
	if (operations.length > 0) {
		const audit = new Map((await store.listAudit({ session })).map((r) => [r.seq, r.data]));
		for (const op of operations) addOperation(op, op.audit_seq === undefined ? undefined : audit.get(op.audit_seq), totals);
	}
	for (const e of trailing) {
		if (e.kind === "subagent.started") await addSessionUse(store, e.payload.child_session, totals, cutOffTurns, false);
	}
}

function addCutOffEvents(trailing: AnyWardenEvent[], totals: Totals): void {
	const admitted = new Set<string>();
	const started = new Set<string>();
	const ended = new Set<string>();
	for (const e of trailing) {
		const call = callOf(e);
		switch (e.kind) {
			case "model.requested":
				totals.model_calls++;
				break;
			case "model.responded":
				totals.prompt_tokens += e.payload.usage?.prompt_tokens ?? 0;
				totals.completion_tokens += e.payload.usage?.completion_tokens ?? 0;
				break;
			case "permission.decided":
				if (e.payload.decision === "allow") admitted.add(e.payload.call_id);
				break;
			case "permission.confirmed":
				if (e.payload.approved) admitted.add(e.payload.call_id);
				break;
			case "tool.started":
				started.add(e.payload.call_id);
				break;
			default:
				if (call !== undefined && TERMINAL.has(e.kind)) ended.add(call);
		}
	}
	// A call admitted with no outcome may have held its reservation when the process died.
	for (const call of admitted) if (started.has(call) || !ended.has(call)) totals.tool_calls++;
}

function addOperation(op: OperationRow, effect: Record<string, unknown> | undefined, totals: Totals): void {
	if (op.state === "abandoned") return;
	if (op.state === "failed" && op.outcome?.recovered === true) return;
	for (const [counter, reserved] of Object.entries(op.reserved)) {
		if (!isBudgetCounter(counter) || typeof reserved !== "number") continue;
		const field = MEASURED[op.kind]?.[counter];
		const measured = field === undefined ? undefined : effect?.[field];
		totals[counter] += typeof measured === "number" && measured >= 0 && op.state === "committed" ? Math.ceil(measured) : reserved;
	}
}
