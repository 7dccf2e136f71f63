/**
 * What a run's events say about one planned call: its decision and its terminal outcome. The full,
 * recovery and terminal runners each read a call this way, then add what only they know (an
 * invalid call with no decision, an operation's state after a crash).
 */
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";

/** A call's terminal event, by the outcome a run's record names. */
const OUTCOMES: Readonly<Record<string, string>> = {
	"tool.completed": "completed",
	"tool.failed": "failed",
	"tool.denied": "denied",
	"tool.cancelled": "cancelled",
	"tool.invalid": "invalid",
};

export interface ObservedCall {
	/** The events that carry this call's id. */
	own: AnyWardenEvent[];
	/** `permission.decided`'s decision, if the call was decided. */
	decision: string | undefined;
	/** The outcome of its terminal event, if it reached one. */
	outcome: string | undefined;
	/** That terminal event's kind. */
	terminalKind: string | undefined;
}

export function observeCall(events: readonly AnyWardenEvent[], callId: string): ObservedCall {
	const own = events.filter((e) => (e.payload as { call_id?: unknown }).call_id === callId);
	const decided = own.find((e) => e.kind === "permission.decided");
	const terminal = own.find((e) => OUTCOMES[e.kind] !== undefined);
	return {
		own,
		decision: decided ? String((decided.payload as { decision: string }).decision) : undefined,
		outcome: terminal ? OUTCOMES[terminal.kind] : undefined,
		terminalKind: terminal?.kind,
	};
}
