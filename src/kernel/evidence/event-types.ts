/**
 * The host-facing event stream: typed, versioned, redacted. The JSON Schema published in
 * schemas/events.v1.json describes exactly these shapes; change both together.
 */
import type { Decision, DecisionLayer, PermissionMode, ProtectedTarget, SubcommandDecision } from "../admission/types.js";
import type { BudgetCounter, BudgetScope, BudgetUsage } from "../budget/budget-types.js";
import type { FlowDecisionRecord } from "../flow/flow-types.js";

export const EVENT_SCHEMA_VERSION = "1.0";

/** One item of the model's todo list; at most one is in_progress. */
export type TodoStatus = "pending" | "in_progress" | "completed" | "cancelled" | "blocked";
export const TODO_STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed", "cancelled", "blocked"];
export interface TodoItem {
	content: string;
	status: TodoStatus;
}

export interface EventPayloads {
	"session.started": {
		event_schema: string;
		workspace: string;
		mode: PermissionMode;
		model: string;
		resumed: boolean;
	};
	"turn.started": { input: string };
	"model.requested": { step: number; messages: number; tools: number };
	"model.responded": {
		step: number;
		text?: string;
		tool_calls: number;
		usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
		/** The request's tokens (reported prompt tokens, else Warden's count) and the model's window: the terminal shows context used. */
		context_tokens?: number;
		context_window?: number;
	};
	/** One attempt of a model call failed for a passing reason (rate limit, busy server, cut connection); the provider waits `delay_ms` and tries again. */
	"model.retried": { step: number; attempt: number; max_attempts: number; reason: string; delay_ms: number; retry_after_ms?: number };
	"tool.proposed": { call_id: string; tool: string; arguments: unknown };
	/** A proposal that never reached a decision: unknown tool, malformed or invalid arguments. */
	"tool.invalid": { call_id: string; tool: string; error: string };
	"permission.decided": {
		call_id: string;
		tool: string;
		decision: Decision;
		layer: DecisionLayer;
		reason: string;
		rule?: string;
		subcommands?: SubcommandDecision[];
		/** The protected path (or git config key) the call writes. */
		protected?: ProtectedTarget;
		/** sha256 of the task ceiling's canonical manifest the call was decided under. */
		ceiling?: string;
	};
	/**
	 * `response` is what the host answered; `lease` the one-use lease an approval granted; `rule_ids`
	 * the approved rules an "always" answer persisted (none when no exact rule could be written).
	 */
	"permission.confirmed": {
		call_id: string;
		tool: string;
		approved: boolean;
		by: string;
		response?: "allow_once" | "always_allow" | "always_deny" | "deny";
		lease?: string;
		rule_ids?: number[];
	};
	/** An approval or exact-release request became a durable row any surface may answer (src/runtime/asks/). */
	"ask.opened": { ask: string; call_id: string; kind: "approval" | "release" | "elicitation"; tool: string; resource: string; expires_at?: string };
	/** The one answer that landed, and the surface that gave it (`terminal`, `console`, `cli`, `host`, `on-ask`). */
	"ask.answered": { ask: string; call_id: string; kind: "approval" | "release" | "elicitation"; answer: "allow_once" | "allow_always" | "deny" | "deny_always" | "accept" | "decline" | "cancel"; answered_by: string };
	/** No answer can land any more (a timeout, a cancelled turn, a failed confirmation): the call is refused. */
	"ask.expired": { ask: string; call_id: string; kind: "approval" | "release" | "elicitation"; why: string };
	"tool.started": { call_id: string; tool: string };
	/** The model's todo list as `todo_write` left it (the whole list each time). */
	"todo.updated": { items: TodoItem[] };
	/** activate_skill loaded a skill of the catalogue (src/runtime/skills/session-skills.ts); it grants nothing. */
	"skill.activated": { call_id: string; name: string; source: "user" | "workspace"; file: string; sha256: string; trusted: boolean; files: number; allowed_tools?: string[] };
	"tool.completed": { call_id: string; tool: string; duration_ms: number; output_bytes: number; truncated: boolean };
	"tool.failed": { call_id: string; tool: string; duration_ms: number; error: string };
	"tool.cancelled": { call_id: string; tool: string; reason: string };
	"tool.denied": { call_id: string; tool: string; reason: string };
	"effect.recorded": { call_id: string; effect: string; resource: string; audit_seq: number };
	/** One syscall of a JIT tool inside the call `call_id`, as the kernel primitive it entered answered. */
	"tool.syscall": { call_id: string; tool: string; syscall: string; outcome: "ok" | "error"; error?: string };
	/** A reservation did not fit: what it was for (a model request, a tool call, or a primitive inside the call `call_id`) did not start. */
	"budget.exhausted": { counter: BudgetCounter; scope: BudgetScope; limit: number; used: number; requested: number; call_id?: string };
	/** One hook handler ran (src/runtime/hooks/session-hooks.ts); `refused` says why its verdict was not applied (an upgrade past the policy). */
	"hook.ran": {
		call_id?: string;
		event: string;
		handler: string;
		source: string;
		origin: "user" | "project";
		target?: string;
		exit_code: number | null;
		timed_out: boolean;
		verdict: "none" | "allow" | "ask" | "deny" | "block" | "failed";
		refused?: string;
		reason?: string;
		updated_input?: boolean;
		additional_context?: boolean;
		duration_ms: number;
	};
	/** An `agent` call opened a child session; the child's own events are in that session's stream. */
	"subagent.started": { call_id: string; child_session: string; depth: number; mode: PermissionMode; tools: string[] };
	/** A child session's turn ended; `result_used` says whether its answer went back to the model, ran in the background, or was dropped. */
	"subagent.completed": {
		call_id: string;
		child_session: string;
		status: "completed" | "failed" | "cancelled";
		result_used: "returned" | "background" | "discarded";
	};
	/**
	 * A flow decision that is not a trivial allow: data above a sink's clearance denied, withheld from
	 * the model, or released once by a human; any egress to an untrusted sink; any secret that moved.
	 */
	"flow.decided": FlowDecisionRecord;
	/** The oldest turns are being summarised: the request would pass `limit` tokens (or the host asked). */
	"compaction.started": { compaction: number; reason: "threshold" | "requested"; tokens: number; limit: number; window: number; summarising: number };
	/** The summary replaced `summarised` items (`first` to `last` of the record) in the model's context; the record keeps them all. */
	"compaction.completed": {
		compaction: number;
		reason: "threshold" | "requested";
		summary_ref: string;
		summarised: number;
		first: string;
		last: string;
		call_ids: number;
		tokens_before: number;
		tokens_after: number;
		duration_ms: number;
	};
	/** `gave_up`: this was the third failure in a row, and the turn ends `context_full`. */
	"compaction.failed": { compaction: number; reason: "threshold" | "requested"; error: string; failures: number; gave_up: boolean };
	/** `budget` is the session's settled use so far, with the session's own limits. */
	"turn.completed": { status: TurnStatus; text?: string; steps: number; error?: string; budget?: BudgetUsage };
	"session.ended": { status: "ok" | "error" };
}

export type EventKind = keyof EventPayloads;
export const EVENT_KINDS = [
	"session.started",
	"turn.started",
	"model.requested",
	"model.responded",
	"model.retried",
	"tool.proposed",
	"tool.invalid",
	"permission.decided",
	"permission.confirmed",
	"ask.opened",
	"ask.answered",
	"ask.expired",
	"tool.started",
	"todo.updated",
	"skill.activated",
	"tool.completed",
	"tool.failed",
	"tool.cancelled",
	"tool.denied",
	"effect.recorded",
	"tool.syscall",
	"budget.exhausted",
	"hook.ran",
	"subagent.started",
	"subagent.completed",
	"flow.decided",
	"compaction.started",
	"compaction.completed",
	"compaction.failed",
	"turn.completed",
	"session.ended",
] as const satisfies readonly EventKind[];

/** How a turn ended. Only `completed` is success. */
/** `context_full`: the request no longer fits and three compactions in a row failed. */
export type TurnStatus = "completed" | "max_steps" | "cancelled" | "model_error" | "budget_exhausted" | "context_full" | "error";

/**
 * Where a sub-agent's event came from, on the copy the parent's host hears: the session and call
 * that spawned the child, and how deep it nests (1 for a child of the top session). A session's own
 * events, and every stored event, carry none: the child's session row names its parent.
 */
export interface EventLineage {
	parent_session: string;
	parent_call: string;
	depth: number;
}

export interface WardenEvent<K extends EventKind = EventKind> {
	kind: K;
	session: string;
	/** Turn number within the session, starting at 1; 0 for session-level events. */
	turn: number;
	/** ISO-8601 time. */
	time: string;
	payload: EventPayloads[K];
	lineage?: EventLineage;
}

export type AnyWardenEvent = { [K in EventKind]: WardenEvent<K> }[EventKind];
