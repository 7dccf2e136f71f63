/**
 * The operation tree of one tool call, rebuilt from the evidence already recorded: every link
 * names the event (its 1-based position in the session's stream) and the audit record (its chain
 * seq) it was read from. A link the evidence lacks is reported in `missing`, never filled in.
 */
import type { AuditRecord } from "../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import type { ContextLink } from "./explain-model.js";

/** What explain reads: events and audit records, of one or more sessions. */
export interface ExplainEvidence {
	events: readonly AnyWardenEvent[];
	audit: readonly AuditRecord[];
}

/** An expected link that the evidence does not hold. */
export interface Missing {
	missing: string;
}

/** The model call whose answer proposed the call: `model.responded` event and `llm.complete` record of the same turn and step. */
/** One syscall of a JIT tool, with its event and audit record. */
export interface SyscallLink {
	syscall: string;
	outcome: string;
	error?: string;
	event?: number;
	audit_seq?: number;
}

/** A call the host itself made (`warden undo`): no model proposed it, and none is missing. */
export interface HostLink {
	host: string;
}

export interface ModelLink {
	turn: number;
	step: number;
	event?: number;
	audit_seq?: number;
	spec?: string;
	text?: string;
	tool_calls?: number;
	outcome?: string;
	usage?: { prompt_tokens: number; completion_tokens: number };
	/** What the call was sent: its context manifest in short (`warden explain <model_call>` shows it whole). */
	context?: ContextLink;
}

export interface DecisionLink {
	decision: string;
	layer: string;
	reason: string;
	rule?: string;
	ceiling?: string;
	mode?: string;
	event?: number;
	audit_seq?: number;
}

export interface ApprovalLink {
	approved: boolean;
	by: string;
	response?: string;
	lease?: string;
	rule_ids?: number[];
	event?: number;
	audit_seq?: number;
	/** approval.granted, approval.consumed / approval.invalid and approval.rule_added records, by seq. */
	granted_seq?: number;
	consumed_seq?: number;
	invalid?: { audit_seq: number; reason: string };
	rules_added?: number[];
}

/** What let the call through, or what refused part of it. */
export type AdmissionLink =
	| { kind: "layer"; layer: string; decision: string }
	| { kind: "rule"; rule: string }
	| { kind: "ceiling"; hash: string }
	| { kind: "lease"; lease: string; audit_seq?: number }
	| { kind: "approved_rule"; rule_id: number; audit_seq?: number }
	| { kind: "release"; release_id: string; sink: string; audit_seq?: number }
	| { kind: "capability_refused"; resource: string; right: string; reason: string; grant?: string; audit_seq: number }
	/** The fs primitive refused a protected path the call held no clearance for (a `protected.denied` record). */
	| { kind: "protected_refused"; path: string; right: string; pattern: string; source: string; reason: string; audit_seq: number };

export interface EffectFlow {
	sink: string;
	decision: string;
	clearance?: string;
	release_id?: string;
}

export interface EffectLink {
	kind: string;
	resource: string;
	diff?: string;
	exit_code?: number | null;
	outcome?: string;
	status?: number;
	event?: number;
	audit_seq?: number;
	flow?: EffectFlow[];
}

export interface FlowLink {
	operation: string;
	sink: string;
	decision: string;
	reason: string;
	release_id?: string;
	event?: number;
	audit_seq?: number;
}

export interface BudgetLink {
	counter: string;
	scope: string;
	limit: number;
	used: number;
	requested: number;
	event?: number;
	audit_seq?: number;
}

export type OutcomeStatus = "completed" | "failed" | "cancelled" | "denied" | "invalid";

export interface OutcomeLink {
	status: OutcomeStatus;
	/** The reason, error or refusal the terminal evidence gives. */
	detail?: string;
	duration_ms?: number;
	event?: number;
	audit_seq?: number;
}

export interface ChildLink {
	session: string;
	status?: string;
	result_used?: string;
	started_event?: number;
	started_seq?: number;
	completed_seq?: number;
	/** The child's own call ids, as far as the evidence read holds them; each can be explained in turn. */
	calls: string[];
}

export interface CallExplanation {
	call: string;
	session: string;
	turn: number;
	step: number;
	tool?: string;
	arguments?: unknown;
	/** The audit record the id named, when an effect (or other record) id was given instead of a call id. */
	resolved_from?: { audit_seq: number; kind: string };
	proposed?: { event?: number };
	proposedBy: ModelLink | HostLink | Missing;
	/** Absent for an invalid proposal: it never reached a decision. */
	decision?: DecisionLink | Missing;
	approval?: ApprovalLink | Missing;
	admittedBy: AdmissionLink[];
	started?: { event: number };
	effects: EffectLink[];
	flow: FlowLink[];
	/** A JIT tool's syscalls, in order: each one entered this call's own primitives. */
	syscalls: SyscallLink[];
	budget: BudgetLink[];
	outcome: OutcomeLink | Missing;
	child?: ChildLink;
	complete: boolean;
	missing: string[];
}

/** An id explain cannot resolve to exactly one call: unknown, ambiguous across sessions, or malformed. */
export class ExplainError extends Error {
	override name = "ExplainError";
}

export function isMissing<T extends object>(link: T | Missing | undefined): link is Missing {
	return link !== undefined && "missing" in link;
}
