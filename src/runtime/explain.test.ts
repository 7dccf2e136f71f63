import { describe, expect, it } from "vitest";
import type { AuditKind, AuditRecord } from "../kernel/evidence/audit-types.js";
import type { AnyWardenEvent, EventKind, EventPayloads } from "../kernel/evidence/event-types.js";
import { type CallExplanation, ExplainError, explainCall, explainSessions, isMissing } from "./explain.js";

/** Synthetic evidence written in the order the turn loop writes it. */
class Trail {
	events: AnyWardenEvent[] = [];
	audit: AuditRecord[] = [];
	constructor(
		private readonly session = "s1",
		private readonly shared?: Trail,
	) {}

	emit<K extends EventKind>(kind: K, payload: EventPayloads[K], turn = 1): this {
		(this.shared ?? this).events.push({ kind, session: this.session, turn, time: "t", payload } as AnyWardenEvent);
		return this;
	}

	record(kind: AuditKind, data: Record<string, unknown>, callId?: string, turn = 1): number {
		const log = (this.shared ?? this).audit;
		const seq = log.length + 1;
		log.push({ seq, session: this.session, turn, kind, data, time: "t", prev_hash: "", hash: "", ...(callId ? { call_id: callId } : {}) });
		return seq;
	}

	/** The model step that proposes `call_1_<step>_1`. */
	model(step: number): this {
		this.emit("model.requested", { step, messages: 2, tools: 5 });
		this.record("llm.complete", { profile: "scripted", spec: "scripted:plan.yaml", outcome: "completed", tool_calls: 1 });
		return this.emit("model.responded", { step, tool_calls: 1, text: "editing" });
	}

	decide(id: string, decision: "allow" | "ask" | "deny", opts: { event?: boolean; record?: boolean } = {}): this {
		const payload = { call_id: id, tool: "edit_file", decision, layer: "mode-rule" as const, reason: "rule matched", rule: "allow edit_file", ceiling: "c".repeat(64) };
		if (opts.event !== false) this.emit("permission.decided", payload);
		if (opts.record !== false) this.record("permission.decided", { ...payload, arguments: { path: "a.md" }, mode: "workspace-write" }, id);
		return this;
	}

	write(id: string, opts: { event?: boolean; flow?: Record<string, unknown>[] } = {}): number {
		const seq = this.record("effect", { effect: "fs.write", resource: "fs:a.md", diff: "--- a.md\n+++ a.md\n-old\n+new\n", ...(opts.flow ? { flow: opts.flow } : {}) }, id);
		if (opts.event !== false) this.emit("effect.recorded", { call_id: id, effect: "fs.write", resource: "fs:a.md", audit_seq: seq });
		return seq;
	}

	complete(id: string): this {
		this.emit("tool.completed", { call_id: id, tool: "edit_file", duration_ms: 3, output_bytes: 10, truncated: false });
		this.record("tool.outcome", { tool: "edit_file", outcome: "completed", duration_ms: 3, output_bytes: 10 }, id);
		return this;
	}
}

const ID = "call_1_1_1";

function completeCall(): Trail {
	const t = new Trail().model(1);
	t.emit("tool.proposed", { call_id: ID, tool: "edit_file", arguments: { path: "a.md" } });
	t.decide(ID, "allow");
	t.emit("tool.started", { call_id: ID, tool: "edit_file" });
	t.write(ID);
	return t.complete(ID);
}

function explained(t: Trail, id = ID, session?: string): CallExplanation {
	return explainCall({ events: t.events, audit: t.audit }, id, session);
}

describe("explainCall", () => {
	it("links a complete call: model call, decision, rule, diff, outcome", () => {
		const tree = explained(completeCall());
		expect(tree.missing).toEqual([]);
		expect(tree.complete).toBe(true);
		expect(tree).toMatchObject({ call: ID, session: "s1", turn: 1, step: 1, tool: "edit_file" });
		expect(tree.proposedBy).toMatchObject({ step: 1, event: 2, audit_seq: 1, spec: "scripted:plan.yaml", text: "editing" });
		expect(tree.decision).toMatchObject({ decision: "allow", layer: "mode-rule", rule: "allow edit_file", mode: "workspace-write", audit_seq: 2 });
		expect(tree.admittedBy.map((a) => a.kind)).toEqual(["layer", "rule", "ceiling"]);
		expect(tree.effects).toEqual([{ kind: "fs.write", resource: "fs:a.md", diff: "--- a.md\n+++ a.md\n-old\n+new\n", audit_seq: 3, event: 6 }]);
		expect(tree.outcome).toMatchObject({ status: "completed", duration_ms: 3, audit_seq: 4 });
	});

	it("names a missing permission.decided audit record and does not fill it in", () => {
		const t = new Trail().model(1);
		t.emit("tool.proposed", { call_id: ID, tool: "edit_file", arguments: {} });
		t.decide(ID, "allow", { record: false });
		t.emit("tool.started", { call_id: ID, tool: "edit_file" });
		t.complete(ID);
		const tree = explained(t);
		expect(tree.complete).toBe(false);
		expect(tree.missing).toEqual(["no permission.decided audit record (event #4)"]);
		expect(tree.decision).toMatchObject({ decision: "allow", event: 4 });
		expect(tree.decision && !isMissing(tree.decision) && tree.decision.audit_seq).toBeUndefined();
	});

	it("names a decision absent altogether", () => {
		const t = new Trail().model(1);
		t.emit("tool.proposed", { call_id: ID, tool: "edit_file", arguments: {} });
		t.emit("tool.started", { call_id: ID, tool: "edit_file" });
		t.complete(ID);
		const tree = explained(t);
		expect(tree.decision).toEqual({ missing: "no permission.decided event or audit record" });
		expect(tree.admittedBy).toEqual([]);
	});

	it("names an effect audit record without its event, and an event whose record is absent", () => {
		const t = new Trail().model(1);
		t.emit("tool.proposed", { call_id: ID, tool: "edit_file", arguments: {} });
		t.decide(ID, "allow");
		t.emit("tool.started", { call_id: ID, tool: "edit_file" });
		const orphan = t.write(ID, { event: false });
		t.emit("effect.recorded", { call_id: ID, effect: "fs.write", resource: "fs:b.md", audit_seq: 99 });
		t.complete(ID);
		const tree = explained(t);
		expect(tree.missing).toEqual(["effect.recorded event #6 has no audit record (#99)", `effect audit record #${orphan} has no effect.recorded event`]);
		expect(tree.effects.map((e) => [e.resource, e.audit_seq, e.event])).toEqual([
			["fs:b.md", undefined, 6],
			["fs:a.md", orphan, undefined],
		]);
	});

	it("links an approved ask to its confirmation, lease grant and consumption", () => {
		const t = new Trail().model(1);
		t.emit("tool.proposed", { call_id: ID, tool: "edit_file", arguments: {} });
		t.decide(ID, "ask");
		t.emit("permission.confirmed", { call_id: ID, tool: "edit_file", approved: true, by: "host", response: "allow_once", lease: "lease-1" });
		const confirmed = t.record("permission.confirmed", { tool: "edit_file", approved: true, by: "host", response: "allow_once", lease: "lease-1" }, ID);
		const granted = t.record("approval.granted", { lease: "lease-1", tool: "edit_file" }, ID);
		const consumed = t.record("approval.consumed", { lease: "lease-1", tool: "edit_file" }, ID);
		t.emit("tool.started", { call_id: ID, tool: "edit_file" });
		t.write(ID);
		t.complete(ID);
		const tree = explained(t);
		expect(tree.missing).toEqual([]);
		expect(tree.approval).toMatchObject({ approved: true, by: "host", lease: "lease-1", audit_seq: confirmed, granted_seq: granted, consumed_seq: consumed });
		expect(tree.admittedBy).toContainEqual({ kind: "lease", lease: "lease-1", audit_seq: consumed });
	});

	it("names an approved lease that the call started without spending", () => {
		const t = new Trail().model(1);
		t.emit("tool.proposed", { call_id: ID, tool: "edit_file", arguments: {} });
		t.decide(ID, "ask");
		t.emit("permission.confirmed", { call_id: ID, tool: "edit_file", approved: true, by: "host", lease: "lease-1" });
		t.record("permission.confirmed", { tool: "edit_file", approved: true, by: "host", lease: "lease-1" }, ID);
		t.emit("tool.started", { call_id: ID, tool: "edit_file" });
		t.complete(ID);
		expect(explained(t).missing).toEqual(["lease lease-1 has no approval.granted audit record", "lease lease-1 has no approval.consumed audit record, yet the call started"]);
	});

	it("shows a flow denial and the failed outcome it caused", () => {
		const t = new Trail().model(1);
		t.emit("tool.proposed", { call_id: ID, tool: "fetch", arguments: {} });
		t.decide(ID, "allow");
		t.emit("tool.started", { call_id: ID, tool: "fetch" });
		const flow = { call_id: ID, operation: "net.fetch", sink: "net:https://x.test:443", decision: "deny", label: {}, clearance: { rule: "default" }, payload_sha256: "ab", reason: "secret above internal" } as const;
		t.emit("flow.decided", flow as unknown as EventPayloads["flow.decided"]);
		const { call_id: _, ...data } = flow;
		const seq = t.record("flow.decided", data, ID);
		t.emit("tool.failed", { call_id: ID, tool: "fetch", duration_ms: 1, error: "flow denied" });
		t.record("tool.outcome", { tool: "fetch", outcome: "failed", error: "flow denied" }, ID);
		const tree = explained(t);
		expect(tree.complete).toBe(true);
		expect(tree.flow).toEqual([{ operation: "net.fetch", sink: "net:https://x.test:443", decision: "deny", reason: "secret above internal", event: 6, audit_seq: seq }]);
		expect(tree.outcome).toMatchObject({ status: "failed", detail: "flow denied" });
	});

	it("names an effect's release that has no flow.decided record", () => {
		const t = new Trail().model(1);
		t.emit("tool.proposed", { call_id: ID, tool: "edit_file", arguments: {} });
		t.decide(ID, "allow");
		t.emit("tool.started", { call_id: ID, tool: "edit_file" });
		const seq = t.write(ID, { flow: [{ sink: "fs:a.md", decision: "release", clearance: "host", release_id: "rel-9" }] });
		t.complete(ID);
		const tree = explained(t);
		expect(tree.missing).toEqual([`release rel-9 on effect #${seq} has no flow.decided record`]);
		expect(tree.admittedBy).toContainEqual({ kind: "release", release_id: "rel-9", sink: "fs:a.md" });
	});

	it("links a sub-agent call to its child session and the child's calls", () => {
		const t = new Trail().model(1);
		const child = new Trail("child-1", t);
		t.emit("tool.proposed", { call_id: ID, tool: "agent", arguments: { task: "x" } });
		t.decide(ID, "allow");
		t.emit("tool.started", { call_id: ID, tool: "agent" });
		t.emit("subagent.started", { call_id: ID, child_session: "child-1", depth: 1, mode: "workspace-write", tools: ["read_file"] });
		const started = t.record("subagent.started", { child_session: "child-1", depth: 1 }, ID);
		child.record("tool.outcome", { tool: "read_file", outcome: "completed" }, "call_1_1_1");
		child.record("tool.outcome", { tool: "read_file", outcome: "completed" }, "call_1_2_1");
		t.emit("subagent.completed", { call_id: ID, child_session: "child-1", status: "completed", result_used: "returned" });
		const completed = t.record("subagent.completed", { child_session: "child-1", status: "completed", result_used: "returned" }, ID);
		t.complete(ID);
		// The child holds a call with the same id: the parent's is asked for by session.
		expect(() => explained(t)).toThrow(/in 2 sessions; pass --session with one of: s1, child-1/);
		const tree = explained(t, ID, "s1");
		expect(tree.missing).toEqual([]);
		expect(tree.child).toEqual({ session: "child-1", status: "completed", result_used: "returned", started_event: 6, started_seq: started, completed_seq: completed, calls: ["call_1_1_1", "call_1_2_1"] });
	});

	it("names a started call with no terminal outcome", () => {
		const t = new Trail().model(1);
		t.emit("tool.proposed", { call_id: ID, tool: "edit_file", arguments: {} });
		t.decide(ID, "allow");
		t.emit("tool.started", { call_id: ID, tool: "edit_file" });
		const tree = explained(t);
		expect(tree.outcome).toEqual({ missing: "tool.started (event #5) without a terminal outcome" });
		expect(tree.complete).toBe(false);
	});

	it("does not expect a decision for an invalid proposal", () => {
		const t = new Trail().model(1);
		t.emit("tool.proposed", { call_id: ID, tool: "nope", arguments: {} });
		t.emit("tool.invalid", { call_id: ID, tool: "nope", error: "unknown tool" });
		t.record("tool.invalid", { tool: "nope", error: "unknown tool" }, ID);
		const tree = explained(t);
		expect(tree.decision).toBeUndefined();
		expect(tree.outcome).toMatchObject({ status: "invalid", detail: "unknown tool" });
		expect(tree.complete).toBe(true);
	});

	it("names the model call as missing when the turn holds no record of it", () => {
		const t = new Trail();
		t.emit("tool.proposed", { call_id: "call_1_2_1", tool: "edit_file", arguments: {} });
		t.decide("call_1_2_1", "allow");
		t.emit("tool.started", { call_id: "call_1_2_1", tool: "edit_file" });
		t.complete("call_1_2_1");
		const tree = explained(t, "call_1_2_1");
		expect(tree.proposedBy).toEqual({ missing: "no model.responded event or llm.complete audit record for turn 1 step 2" });
	});
});

describe("resolving an id", () => {
	it("resolves an effect's audit seq, with or without #, to its call", () => {
		const t = completeCall();
		for (const id of ["3", "#3"]) {
			const tree = explained(t, id);
			expect(tree.call).toBe(ID);
			expect(tree.resolved_from).toEqual({ audit_seq: 3, kind: "effect" });
		}
		expect(explainSessions(t.audit, "#3")).toEqual(["s1"]);
	});

	it("refuses unknown ids, records of no call and malformed ids with one line", () => {
		const t = completeCall();
		expect(() => explained(t, "call_9_9_9")).toThrow(new ExplainError("no call call_9_9_9 in the recorded evidence"));
		expect(() => explained(t, "#77")).toThrow("no audit record #77");
		expect(() => explained(t, "1")).toThrow("audit record #1 (llm.complete) belongs to no tool call");
		expect(() => explained(t, "effect-x")).toThrow(/neither a call id/);
		expect(() => explained(t, ID, "other")).toThrow("no call call_1_1_1 in session other");
	});
});
