import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import type { OperationRow } from "../../kernel/operations/operation-types.js";
import { checkRecoveryInvariants, type EvidenceState, evidenceFingerprint, type InvariantInput } from "./crash-harness.js";

function op(id: string, kind: OperationRow["kind"], state: OperationRow["state"], extra: Partial<OperationRow> = {}): OperationRow {
	return { id, session: "s1", turn: 1, call_id: `call_${id}`, kind, resource: "r", intent: {}, reserved: {}, created_at: "t", updated_at: "t", state, ...extra };
}

function record(seq: number, kind: AuditRecord["kind"], data: Record<string, unknown>): AuditRecord {
	return { seq, time: "t", session: "s1", turn: 1, kind, data, prev_hash: "p", hash: `h${seq}` };
}

/** A shell command that ran and was left unknown by recovery: every invariant holds. */
function healthy(): InvariantInput {
	const session = { id: "s1", workspace: "/w", mode: "full-access", model: "m", created_at: "t", turns: 1 };
	const atCrash: EvidenceState = { operations: [op("a", "shell.exec", "dispatched")], sessions: [{ ...session, status: "active" }], audit: [record(1, "session.started", {})], counterLines: 1 };
	const after: EvidenceState = {
		operations: [op("a", "shell.exec", "unknown", { audit_seq: 2, outcome: { recovered: true, by: "never run again" } })],
		sessions: [{ ...session, status: "interrupted" }],
		audit: [record(1, "session.started", {}), record(2, "operation.settled", { operation: "a", state: "unknown" }), record(3, "recovery.completed", { operations: [{ id: "a", state: "unknown" }] })],
		counterLines: 1,
	};
	const fp = evidenceFingerprint(after);
	return {
		crashed: true,
		atCrash,
		recovery: { operations: [{ id: "a", session: "s1", call_id: "call_a", kind: "shell.exec", resource: "r", state: "unknown", by: "x" }], unreadable: [], interrupted: ["s1"], released: {}, charged: {} },
		afterRecovery: after,
		afterSecondReopen: after,
		auditVerifyCode: 0,
		fingerprints: [fp, fp],
	};
}

function failed(input: InvariantInput): string[] {
	return checkRecoveryInvariants(input)
		.filter((i) => !i.ok)
		.map((i) => `${i.name}: ${i.detail}`);
}

describe("checkRecoveryInvariants", () => {
	it("holds for an unknown command surfaced once", () => {
		expect(failed(healthy())).toEqual([]);
	});

	it("catches a second dispatch on reopen", () => {
		const input = healthy();
		input.afterRecovery = { ...input.afterRecovery, counterLines: 2 };
		expect(failed(input)).toEqual([
			"at most one dispatch per intent: 2 counter line(s) but only 1 dispatched shell operation(s); the counter grew from 1 to 2 lines on reopen",
		]);
	});

	it("catches a duplicated settling record and a broken chain", () => {
		const input = healthy();
		input.afterRecovery = { ...input.afterRecovery, audit: [...input.afterRecovery.audit, record(4, "effect", { operation: "a" })] };
		input.auditVerifyCode = 1;
		expect(failed(input)).toEqual(["no lost or duplicated audit record: operation a (unknown) has 2 settling audit records; warden audit verify exited 1"]);
	});

	it("catches a dispatched command claimed committed, a session left active, and a changed fingerprint", () => {
		const input = healthy();
		input.afterRecovery = {
			...input.afterRecovery,
			operations: [op("a", "shell.exec", "committed", { audit_seq: 2 })],
			sessions: input.atCrash.sessions,
		};
		input.fingerprints = ["a".repeat(64), "b".repeat(64)];
		const problems = failed(input);
		expect(problems[0]).toMatch(/^unknown effects surfaced: dispatched shell.exec a is committed, not unknown; warden recover does not report a as committed; session s1 was active and is not interrupted/);
		expect(problems[1]).toBe("second reopen changes nothing: evidence fingerprint aaaaaaaaaaaa became bbbbbbbbbbbb");
	});

	it("fails a run the crash point never stopped", () => {
		expect(failed({ ...healthy(), crashed: false })).toEqual(["crashed: the run was not killed at the crash point (the plan never reached it)"]);
	});
});
