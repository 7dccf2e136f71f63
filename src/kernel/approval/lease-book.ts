/**
 * The one-use leases "allow once" grants. A lease is spent by the first attempt to use it, match
 * or not: a lease presented with anything other than what it was granted for is burnt, so it can
 * never be replayed, moved to another call, or kept for a later, matching moment.
 */
import { randomUUID } from "node:crypto";
import type { ApprovalLease, LeaseBinding, LeaseCheck } from "./approval-types.js";

export class LeaseBook {
	private readonly open = new Map<string, ApprovalLease>();
	private readonly spent: Set<string>;

	/** `spent`: leases earlier runs of the session consumed (their intents record them); they stay consumed. */
	constructor(spent: Iterable<string> = []) {
		this.spent = new Set(spent);
	}

	grant(requestId: string, binding: LeaseBinding): ApprovalLease {
		const lease: ApprovalLease = { id: `lease_${randomUUID()}`, requestId, ...binding };
		this.open.set(lease.id, lease);
		return lease;
	}

	/** Spends the lease; ok only when every bound field equals what is presented. */
	consume(leaseId: string, presented: LeaseBinding): LeaseCheck {
		const lease = this.open.get(leaseId);
		if (!lease) {
			return { ok: false, reason: this.spent.has(leaseId) ? `approval lease ${leaseId} was already used` : `unknown approval lease ${leaseId}` };
		}
		this.open.delete(leaseId);
		this.spent.add(leaseId);
		if (lease.session !== presented.session || lease.callId !== presented.callId || lease.tool !== presented.tool) {
			return { ok: false, reason: `approval lease ${leaseId} was granted for call ${lease.callId} (${lease.tool}), not ${presented.callId} (${presented.tool})` };
		}
		if (lease.argumentsDigest !== presented.argumentsDigest) return { ok: false, reason: "approval lease no longer matches: arguments changed" };
		if (lease.targetDigest !== presented.targetDigest) return { ok: false, reason: "approval lease no longer matches: target changed" };
		return { ok: true, lease };
	}

	/** Leases granted and not yet presented. */
	get outstanding(): number {
		return this.open.size;
	}
}
