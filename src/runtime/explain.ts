/**
 * `explain`: one tool call's operation tree, read from its events and audit records. Each link is
 * looked up, never inferred from what usually happens; what is expected and absent is named.
 */
import type { AuditKind, AuditRecord } from "../kernel/evidence/audit-types.js";
import type { AnyWardenEvent, EventKind, EventPayloads, WardenEvent } from "../kernel/evidence/event-types.js";
import {
	type AdmissionLink,
	type ApprovalLink,
	type BudgetLink,
	type CallExplanation,
	type ChildLink,
	type DecisionLink,
	type EffectFlow,
	type EffectLink,
	type ExplainEvidence,
	ExplainError,
	type FlowLink,
	type HostLink,
	type SyscallLink,
	type Missing,
	type ModelLink,
	type OutcomeLink,
	type OutcomeStatus,
} from "./explain-types.js";
import { contextLink } from "./explain-model.js";

export * from "./explain-types.js";
export { explainModelCall, isModelCallTarget, type ModelCallExplanation } from "./explain-model.js";

const CALL_ID = /^call_(\d+)_(\d+)_(\d+)$/;
/** Calls the host makes itself, without a model: `warden undo`'s restores. */
const HOST_CALL_ID = /^undo_(\d+)_(\d+)$/;
const AUDIT_SEQ = /^#?(\d+)$/;

interface Target {
	call: string;
	session: string;
	from?: { audit_seq: number; kind: string };
}

/**
 * The sessions whose events a lookup of `id` needs, judged from the audit chain alone. Empty when
 * the audit names no such call: the caller then has to search the events.
 */
export function explainSessions(audit: readonly AuditRecord[], id: string, session?: string): string[] {
	if (session !== undefined) return [session];
	const seq = AUDIT_SEQ.exec(id.trim());
	if (seq) {
		const record = audit.find((r) => r.seq === Number(seq[1]));
		return record ? [record.session] : [];
	}
	return [...new Set(audit.filter((r) => r.call_id === id.trim()).map((r) => r.session))];
}

/** Resolves a call id or an audit seq (`42`, `#42`) to exactly one call, or throws a one-line ExplainError. */
export function resolveTarget(evidence: ExplainEvidence, id: string, session?: string): Target {
	const wanted = id.trim();
	const seq = AUDIT_SEQ.exec(wanted);
	if (seq) {
		const record = evidence.audit.find((r) => r.seq === Number(seq[1]));
		if (!record) throw new ExplainError(`no audit record #${seq[1]}`);
		if (record.call_id === undefined) throw new ExplainError(`audit record #${record.seq} (${record.kind}) belongs to no tool call`);
		if (session !== undefined && record.session !== session) {
			throw new ExplainError(`audit record #${record.seq} is in session ${record.session}, not ${session}`);
		}
		return { call: record.call_id, session: record.session, from: { audit_seq: record.seq, kind: record.kind } };
	}
	if (!CALL_ID.test(wanted) && !HOST_CALL_ID.test(wanted)) {
		throw new ExplainError(`"${id}" is neither a call id (call_<turn>_<step>_<n>, undo_<turn>_<n>) nor an audit record seq (#42)`);
	}
	const sessions = new Set<string>();
	for (const r of evidence.audit) if (r.call_id === wanted) sessions.add(r.session);
	for (const e of evidence.events) if (callIdOf(e) === wanted) sessions.add(e.session);
	if (session !== undefined) {
		if (!sessions.has(session)) throw new ExplainError(`no call ${wanted} in session ${session}`);
		return { call: wanted, session };
	}
	if (sessions.size === 0) throw new ExplainError(`no call ${wanted} in the recorded evidence`);
	if (sessions.size > 1) throw new ExplainError(`call ${wanted} is in ${sessions.size} sessions; pass --session with one of: ${[...sessions].join(", ")}`);
	return { call: wanted, session: [...sessions][0]! };
}

/** The operation tree of the call `id` names (a call id, or the seq of one of its audit records). */
export function explainCall(evidence: ExplainEvidence, id: string, session?: string): CallExplanation {
	const target = resolveTarget(evidence, id, session);
	return new CallReader(evidence, target).read();
}

interface Numbered<E> {
	n: number;
	e: E;
}

function callIdOf(event: AnyWardenEvent): string | undefined {
	const id = (event.payload as { call_id?: unknown }).call_id;
	return typeof id === "string" ? id : undefined;
}

function str(value: unknown): string | undefined {
	return typeof value === "string" ? value : undefined;
}

function num(value: unknown): number | undefined {
	return typeof value === "number" ? value : undefined;
}

const TERMINAL: Record<string, OutcomeStatus> = {
	"tool.completed": "completed",
	"tool.failed": "failed",
	"tool.cancelled": "cancelled",
	"tool.denied": "denied",
	"tool.invalid": "invalid",
};

class CallReader {
	private readonly missing: string[] = [];
	/** The session's events, numbered by their 1-based position in its stream. */
	private readonly stream: Numbered<AnyWardenEvent>[];
	private readonly mine: Numbered<AnyWardenEvent>[];
	private readonly records: AuditRecord[];

	constructor(
		private readonly evidence: ExplainEvidence,
		private readonly target: Target,
	) {
		this.stream = evidence.events.filter((e) => e.session === target.session).map((e, i) => ({ n: i + 1, e }));
		this.mine = this.stream.filter((x) => callIdOf(x.e) === target.call);
		this.records = evidence.audit.filter((r) => r.session === target.session && r.call_id === target.call).sort((a, b) => a.seq - b.seq);
	}

	private events<K extends EventKind>(kind: K): Numbered<WardenEvent<K>>[] {
		return this.mine.filter((x) => x.e.kind === kind) as Numbered<WardenEvent<K>>[];
	}

	private audit(kind: AuditKind): AuditRecord[] {
		return this.records.filter((r) => r.kind === kind);
	}

	read(): CallExplanation {
		const { call, session } = this.target;
		const parsed = CALL_ID.exec(call);
		const proposed = this.events("tool.proposed")[0];
		const turn = proposed?.e.turn ?? this.records[0]?.turn ?? this.mine[0]?.e.turn ?? Number(parsed?.[1] ?? 0);
		const step = Number(parsed?.[2] ?? 0);
		if (!proposed) this.missing.push("no tool.proposed event");
		const decidedRecord = this.audit("permission.decided")[0];
		const tool = proposed?.e.payload.tool ?? str(decidedRecord?.data.tool) ?? str(this.records[0]?.data.tool);
		const args = proposed?.e.payload.arguments ?? decidedRecord?.data.arguments;

		const proposedBy: ModelLink | HostLink | Missing = HOST_CALL_ID.test(call) ? { host: "warden undo" } : this.model(turn, step);
		const outcome = this.outcome();
		const admittedBy: AdmissionLink[] = [];
		const decision = this.decision(outcome, admittedBy);
		const approval = decision && !("missing" in decision) && decision.decision === "ask" ? this.approval(admittedBy) : undefined;
		for (const r of this.audit("authority.denied")) {
			const link: AdmissionLink = { kind: "capability_refused", resource: str(r.data.resource) ?? "?", right: str(r.data.right) ?? "?", reason: str(r.data.reason) ?? str(r.data.why) ?? "", audit_seq: r.seq };
			const grant = str(r.data.grant);
			if (grant !== undefined) link.grant = grant;
			admittedBy.push(link);
		}
		for (const r of this.audit("protected.denied")) {
			const s = (k: string) => str(r.data[k]) ?? "?";
			admittedBy.push({ kind: "protected_refused", path: s("path"), right: s("right"), pattern: s("pattern"), source: s("source"), reason: s("reason"), audit_seq: r.seq });
		}
		const started = this.events("tool.started")[0];
		const effects = this.effects(started !== undefined);
		const flow = this.flow();
		const syscalls = this.syscalls();
		this.releases(effects, flow, admittedBy);
		const budget = this.budget();
		const child = this.child();

		const explained: CallExplanation = {
			call,
			session,
			turn,
			step,
			proposedBy,
			admittedBy,
			effects,
			flow,
			syscalls,
			budget,
			outcome,
			complete: this.missing.length === 0,
			missing: this.missing,
		};
		if (tool !== undefined) explained.tool = tool;
		if (args !== undefined) explained.arguments = args;
		if (this.target.from) explained.resolved_from = this.target.from;
		if (proposed) explained.proposed = { event: proposed.n };
		if (decision) explained.decision = decision;
		if (approval) explained.approval = approval;
		if (started) explained.started = { event: started.n };
		if (child) explained.child = child;
		// Computed last: every reader above may have named a missing link.
		explained.complete = this.missing.length === 0;
		return explained;
	}

	/**
	 * The proposing model call. Its event carries the step; its `llm.complete` record does not, but
	 * the turn loop records one per step that reached the provider, in order, so the step-th of the
	 * turn is that step's.
	 */
	private model(turn: number, step: number): ModelLink | Missing {
		const responded = this.stream.find(
			(x): x is Numbered<WardenEvent<"model.responded">> => x.e.kind === "model.responded" && x.e.turn === turn && x.e.payload.step === step,
		);
		const llm = this.evidence.audit
			// A compaction's summarising call is no step of the turn.
			.filter((r) => r.session === this.target.session && r.turn === turn && r.kind === "llm.complete" && r.data.purpose !== "compaction")
			.sort((a, b) => a.seq - b.seq)[step - 1];
		if (!responded && !llm) {
			const missing = `no model.responded event or llm.complete audit record for turn ${turn} step ${step}`;
			this.missing.push(missing);
			return { missing };
		}
		const link: ModelLink = { turn, step };
		if (responded) {
			link.event = responded.n;
			if (responded.e.payload.text) link.text = responded.e.payload.text;
			link.tool_calls = responded.e.payload.tool_calls;
			if (responded.e.payload.usage) link.usage = responded.e.payload.usage;
		} else this.missing.push(`no model.responded event for turn ${turn} step ${step} (llm.complete #${llm!.seq})`);
		if (llm) {
			link.audit_seq = llm.seq;
			const spec = str(llm.data.spec);
			if (spec !== undefined) link.spec = spec;
			const outcome = str(llm.data.outcome);
			if (outcome !== undefined) link.outcome = outcome;
			link.tool_calls ??= num(llm.data.tool_calls);
			const context = contextLink(this.evidence.audit, llm);
			if (context) link.context = context;
			if (link.tool_calls === undefined) delete link.tool_calls;
		} else this.missing.push(`no llm.complete audit record for turn ${turn} step ${step} (model.responded event #${responded!.n})`);
		return link;
	}

	private decision(outcome: OutcomeLink | Missing, admittedBy: AdmissionLink[]): DecisionLink | Missing | undefined {
		const event = this.events("permission.decided")[0];
		const record = this.audit("permission.decided")[0];
		if (!event && !record) {
			// An invalid proposal never reaches a decision: nothing is missing.
			if (!("missing" in outcome) && outcome.status === "invalid") return undefined;
			const missing = "no permission.decided event or audit record";
			this.missing.push(missing);
			return { missing };
		}
		if (!record) this.missing.push(`no permission.decided audit record (event #${event!.n})`);
		if (!event) this.missing.push(`no permission.decided event (audit record #${record!.seq})`);
		const data = event?.e.payload ?? (record!.data as Record<string, unknown>);
		const link: DecisionLink = { decision: str(data.decision) ?? "?", layer: str(data.layer) ?? "?", reason: str(data.reason) ?? "" };
		const rule = str(data.rule);
		if (rule !== undefined) link.rule = rule;
		const ceiling = str(data.ceiling);
		if (ceiling !== undefined) link.ceiling = ceiling;
		const mode = str(record?.data.mode);
		if (mode !== undefined) link.mode = mode;
		if (event) link.event = event.n;
		if (record) link.audit_seq = record.seq;
		admittedBy.push({ kind: "layer", layer: link.layer, decision: link.decision });
		if (rule !== undefined) admittedBy.push({ kind: "rule", rule });
		if (ceiling !== undefined) admittedBy.push({ kind: "ceiling", hash: ceiling });
		return link;
	}

	private approval(admittedBy: AdmissionLink[]): ApprovalLink | Missing {
		const event = this.events("permission.confirmed")[0];
		const record = this.audit("permission.confirmed")[0];
		if (!event && !record) {
			const missing = "ask decision without a permission.confirmed event or audit record";
			this.missing.push(missing);
			return { missing };
		}
		if (!record) this.missing.push(`no permission.confirmed audit record (event #${event!.n})`);
		if (!event) this.missing.push(`no permission.confirmed event (audit record #${record!.seq})`);
		const data = (event?.e.payload ?? record!.data) as Record<string, unknown>;
		const link: ApprovalLink = { approved: data.approved === true, by: str(data.by) ?? "?" };
		const response = str(data.response);
		if (response !== undefined) link.response = response;
		if (event) link.event = event.n;
		if (record) link.audit_seq = record.seq;
		const lease = str(data.lease);
		if (lease !== undefined) {
			link.lease = lease;
			const granted = this.audit("approval.granted").find((r) => r.data.lease === lease);
			const consumed = this.audit("approval.consumed").find((r) => r.data.lease === lease);
			const invalid = this.audit("approval.invalid").find((r) => r.data.lease === lease);
			if (granted) link.granted_seq = granted.seq;
			else this.missing.push(`lease ${lease} has no approval.granted audit record`);
			if (consumed) link.consumed_seq = consumed.seq;
			if (invalid) link.invalid = { audit_seq: invalid.seq, reason: str(invalid.data.reason) ?? "" };
			// The lease is spent right before dispatch: a call that started without spending it is a gap.
			if (!consumed && this.events("tool.started").length > 0) this.missing.push(`lease ${lease} has no approval.consumed audit record, yet the call started`);
			const leaseLink: AdmissionLink = { kind: "lease", lease };
			if (consumed) leaseLink.audit_seq = consumed.seq;
			if (link.approved) admittedBy.push(leaseLink);
		} else if (link.approved) this.missing.push("approved ask without a lease");
		const ruleIds = Array.isArray(data.rule_ids) ? data.rule_ids.filter((x): x is number => typeof x === "number") : [];
		if (ruleIds.length > 0) {
			link.rule_ids = ruleIds;
			link.rules_added = [];
			for (const id of ruleIds) {
				const added = this.audit("approval.rule_added").find((r) => r.data.rule_id === id);
				const ruleLink: AdmissionLink = { kind: "approved_rule", rule_id: id };
				if (added) {
					link.rules_added.push(added.seq);
					ruleLink.audit_seq = added.seq;
				} else this.missing.push(`approved rule ${id} has no approval.rule_added audit record`);
				admittedBy.push(ruleLink);
			}
		}
		return link;
	}

	private effects(started: boolean): EffectLink[] {
		const links: EffectLink[] = [];
		const paired = new Set<number>();
		for (const event of this.events("effect.recorded")) {
			const seq = event.e.payload.audit_seq;
			const record = this.evidence.audit.find((r) => r.seq === seq);
			if (record?.kind !== "effect" || record.call_id !== this.target.call || record.session !== this.target.session) {
				this.missing.push(`effect.recorded event #${event.n} has no audit record (#${seq})`);
				links.push({ kind: event.e.payload.effect, resource: event.e.payload.resource, event: event.n });
				continue;
			}
			paired.add(record.seq);
			links.push({ ...effectOf(record), event: event.n });
		}
		for (const record of this.audit("effect")) {
			if (paired.has(record.seq)) continue;
			this.missing.push(`effect audit record #${record.seq} has no effect.recorded event`);
			links.push(effectOf(record));
		}
		if (links.length > 0 && !started) this.missing.push("effects recorded without a tool.started event");
		return links;
	}

	/**
	 * Pairs each event with the first unused audit record it matches; an event without a record and
	 * a record without an event are each named as missing, never filled in.
	 */
	private paired<K extends EventKind>(
		kind: K,
		auditKind: AuditKind,
		matches: (payload: EventPayloads[K], record: AuditRecord) => boolean,
	): { pairs: { event: Numbered<WardenEvent<K>>; record?: AuditRecord }[]; orphans: AuditRecord[] } {
		const records = this.audit(auditKind);
		const used = new Set<number>();
		const pairs = this.events(kind).map((event) => {
			const record = records.find((r) => !used.has(r.seq) && matches(event.e.payload, r));
			if (!record) {
				this.missing.push(`${kind} event #${event.n} has no ${auditKind === kind ? "" : `${auditKind} `}audit record`);
				return { event };
			}
			used.add(record.seq);
			return { event, record };
		});
		const orphans = records.filter((r) => !used.has(r.seq));
		for (const record of orphans) this.missing.push(`${auditKind} audit record #${record.seq} has no event`);
		return { pairs, orphans };
	}

	/** A JIT tool's syscalls, in the order the tool made them. */
	private syscalls(): SyscallLink[] {
		const { pairs, orphans } = this.paired("tool.syscall", "jit.syscall", (p, r) => r.data.syscall === p.syscall);
		const links: SyscallLink[] = pairs.map(({ event, record }) => {
			const p = event.e.payload;
			const link: SyscallLink = { syscall: p.syscall, outcome: p.outcome, event: event.n };
			if (p.error !== undefined) link.error = p.error;
			if (record) link.audit_seq = record.seq;
			return link;
		});
		for (const record of orphans) links.push({ syscall: str(record.data.syscall) ?? "?", outcome: str(record.data.outcome) ?? "?", audit_seq: record.seq });
		return links;
	}

	private flow(): FlowLink[] {
		const { pairs, orphans } = this.paired(
			"flow.decided",
			"flow.decided",
			(p, r) => r.data.operation === p.operation && r.data.sink === p.sink && r.data.decision === p.decision && r.data.payload_sha256 === p.payload_sha256,
		);
		const links: FlowLink[] = pairs.map(({ event, record }) => {
			const p = event.e.payload;
			const link: FlowLink = { operation: p.operation, sink: p.sink, decision: p.decision, reason: p.reason, event: event.n };
			if (p.release_id !== undefined) link.release_id = p.release_id;
			if (record) link.audit_seq = record.seq;
			return link;
		});
		for (const record of orphans) {
			const link: FlowLink = {
				operation: str(record.data.operation) ?? "?",
				sink: str(record.data.sink) ?? "?",
				decision: str(record.data.decision) ?? "?",
				reason: str(record.data.reason) ?? "",
				audit_seq: record.seq,
			};
			const release = str(record.data.release_id);
			if (release !== undefined) link.release_id = release;
			links.push(link);
		}
		return links;
	}

	/** Exact releases that let data out: each must have its own flow.decided record. */
	private releases(effects: EffectLink[], flow: FlowLink[], admittedBy: AdmissionLink[]): void {
		const seen = new Set<string>();
		for (const f of flow) {
			if (f.release_id === undefined || seen.has(f.release_id)) continue;
			seen.add(f.release_id);
			const link: AdmissionLink = { kind: "release", release_id: f.release_id, sink: f.sink };
			if (f.audit_seq !== undefined) link.audit_seq = f.audit_seq;
			admittedBy.push(link);
		}
		for (const effect of effects) {
			for (const f of effect.flow ?? []) {
				if (f.release_id === undefined || seen.has(f.release_id)) continue;
				seen.add(f.release_id);
				this.missing.push(`release ${f.release_id} on effect #${effect.audit_seq ?? "?"} has no flow.decided record`);
				admittedBy.push({ kind: "release", release_id: f.release_id, sink: f.sink });
			}
		}
	}

	private budget(): BudgetLink[] {
		const { pairs, orphans } = this.paired("budget.exhausted", "budget.exhausted", (p, r) => r.data.counter === p.counter && r.data.scope === p.scope);
		const links: BudgetLink[] = pairs.map(({ event, record }) => {
			const p = event.e.payload;
			const link: BudgetLink = { counter: p.counter, scope: p.scope, limit: p.limit, used: p.used, requested: p.requested, event: event.n };
			if (record) link.audit_seq = record.seq;
			return link;
		});
		for (const record of orphans) {
			links.push({
				counter: str(record.data.counter) ?? "?",
				scope: str(record.data.scope) ?? "?",
				limit: num(record.data.limit) ?? 0,
				used: num(record.data.used) ?? 0,
				requested: num(record.data.requested) ?? 0,
				audit_seq: record.seq,
			});
		}
		return links;
	}

	private outcome(): OutcomeLink | Missing {
		const event = this.mine.find((x) => x.e.kind in TERMINAL);
		const record = this.records.find((r) => r.kind === "tool.outcome" || r.kind === "tool.invalid");
		const started = this.events("tool.started")[0];
		if (!event && !record) {
			const missing = started ? `tool.started (event #${started.n}) without a terminal outcome` : "no terminal outcome (tool.completed, failed, cancelled, denied or invalid)";
			this.missing.push(missing);
			return { missing };
		}
		const recordStatus = record && (record.kind === "tool.invalid" ? "invalid" : (str(record.data.outcome) as OutcomeStatus | undefined));
		const status = event ? TERMINAL[event.e.kind]! : (recordStatus ?? "failed");
		if (!record) this.missing.push(`${event!.e.kind} event #${event!.n} has no ${status === "invalid" ? "tool.invalid" : "tool.outcome"} audit record`);
		if (!event) this.missing.push(`${record!.kind} audit record #${record!.seq} has no terminal event`);
		if (event && recordStatus !== undefined && recordStatus !== status) {
			this.missing.push(`terminal event #${event.n} says ${status} but audit record #${record!.seq} says ${recordStatus}`);
		}
		if ((status === "completed" || status === "failed") && !started) this.missing.push(`tool.${status} without a tool.started event`);
		const link: OutcomeLink = { status };
		const p = (event?.e.payload ?? {}) as Record<string, unknown>;
		const detail = str(p.reason) ?? str(p.error) ?? str(record?.data.reason) ?? str(record?.data.error);
		if (detail !== undefined) link.detail = detail;
		const duration = num(p.duration_ms) ?? num(record?.data.duration_ms);
		if (duration !== undefined) link.duration_ms = duration;
		if (event) link.event = event.n;
		if (record) link.audit_seq = record.seq;
		return link;
	}

	private child(): ChildLink | undefined {
		const event = this.events("subagent.started")[0];
		const record = this.audit("subagent.started")[0];
		if (!event && !record) return undefined;
		if (!record) this.missing.push(`no subagent.started audit record (event #${event!.n})`);
		if (!event) this.missing.push(`no subagent.started event (audit record #${record!.seq})`);
		const session = event?.e.payload.child_session ?? str(record!.data.child_session) ?? "?";
		const link: ChildLink = { session, calls: [] };
		if (event) link.started_event = event.n;
		if (record) link.started_seq = record.seq;
		const completedEvent = this.events("subagent.completed").find((x) => x.e.payload.child_session === session);
		const completed = this.audit("subagent.completed").find((r) => r.data.child_session === session);
		if (completed) link.completed_seq = completed.seq;
		const status = completedEvent?.e.payload.status ?? str(completed?.data.status);
		if (status !== undefined) link.status = status;
		const used = completedEvent?.e.payload.result_used ?? str(completed?.data.result_used);
		if (used !== undefined) link.result_used = used;
		if (!completed) this.missing.push(`sub-agent session ${session} has no subagent.completed audit record`);
		if (!completedEvent) this.missing.push(`sub-agent session ${session} has no subagent.completed event`);
		const calls = new Set<string>();
		for (const r of this.evidence.audit) if (r.session === session && r.call_id !== undefined) calls.add(r.call_id);
		for (const e of this.evidence.events) if (e.session === session && callIdOf(e) !== undefined) calls.add(callIdOf(e)!);
		link.calls = [...calls].sort();
		return link;
	}
}

function effectOf(record: AuditRecord): EffectLink {
	const d = record.data;
	const link: EffectLink = { kind: str(d.effect) ?? "?", resource: str(d.resource) ?? "?", audit_seq: record.seq };
	const diff = str(d.diff);
	if (diff !== undefined) link.diff = diff;
	if (typeof d.exit_code === "number" || d.exit_code === null) link.exit_code = d.exit_code;
	const outcome = str(d.outcome);
	if (outcome !== undefined) link.outcome = outcome;
	const status = num(d.status);
	if (status !== undefined) link.status = status;
	if (Array.isArray(d.flow)) {
		link.flow = d.flow.map((f: Record<string, unknown>) => {
			const entry: EffectFlow = { sink: str(f.sink) ?? "?", decision: str(f.decision) ?? "?" };
			const clearance = str(f.clearance);
			if (clearance !== undefined) entry.clearance = clearance;
			const release = str(f.release_id);
			if (release !== undefined) entry.release_id = release;
			return entry;
		});
	}
	return link;
}
