import { describe, expect, it } from "vitest";
import { LeaseBook } from "./lease-book.js";

const binding = { session: "s1", callId: "call_1_1_1", tool: "write_file", argumentsDigest: "a".repeat(64), targetDigest: "absent" };

describe("LeaseBook", () => {
	it("admits the call it was granted for, exactly once", () => {
		const book = new LeaseBook();
		const lease = book.grant("approval_1", binding);
		expect(lease).toMatchObject({ ...binding, requestId: "approval_1" });
		expect(book.consume(lease.id, binding)).toEqual({ ok: true, lease });
		expect(book.consume(lease.id, binding)).toEqual({ ok: false, reason: `approval lease ${lease.id} was already used` });
		expect(book.outstanding).toBe(0);
	});

	it("refuses a replay under the same call id, even after a refusal burnt it", () => {
		const book = new LeaseBook();
		const lease = book.grant("approval_1", binding);
		expect(book.consume(lease.id, { ...binding, targetDigest: "b".repeat(64) })).toEqual({
			ok: false,
			reason: "approval lease no longer matches: target changed",
		});
		// The matching presentation that follows is too late: the first attempt spent the lease.
		expect(book.consume(lease.id, binding)).toEqual({ ok: false, reason: `approval lease ${lease.id} was already used` });
	});

	it("is useless for any other call: another call id, tool or session", () => {
		for (const other of [{ callId: "call_1_1_2" }, { tool: "edit_file" }, { session: "s2" }]) {
			const book = new LeaseBook();
			const lease = book.grant("approval_1", binding);
			const check = book.consume(lease.id, { ...binding, ...other });
			expect(check.ok).toBe(false);
			expect(check.ok ? "" : check.reason).toMatch(/was granted for call call_1_1_1 \(write_file\)/);
		}
	});

	it("refuses different arguments and a changed target, naming which", () => {
		const book = new LeaseBook();
		const args = book.grant("approval_1", binding);
		expect(book.consume(args.id, { ...binding, argumentsDigest: "c".repeat(64) })).toEqual({
			ok: false,
			reason: "approval lease no longer matches: arguments changed",
		});
		const target = book.grant("approval_2", binding);
		expect(book.consume(target.id, { ...binding, targetDigest: "d".repeat(64) })).toEqual({
			ok: false,
			reason: "approval lease no longer matches: target changed",
		});
	});

	it("knows no lease it did not grant, and grants distinct ids", () => {
		const book = new LeaseBook();
		expect(book.consume("lease_forged", binding)).toEqual({ ok: false, reason: "unknown approval lease lease_forged" });
		const a = book.grant("approval_1", binding);
		const b = book.grant("approval_1", binding);
		expect(a.id).not.toBe(b.id);
		expect(book.outstanding).toBe(2);
	});

	it("refuses a lease an earlier run consumed as already used", () => {
		const book = new LeaseBook(["lease_old"]);
		expect(book.consume("lease_old", binding)).toEqual({ ok: false, reason: "approval lease lease_old was already used" });
		expect(book.consume("lease_never", binding)).toEqual({ ok: false, reason: "unknown approval lease lease_never" });
	});
});
