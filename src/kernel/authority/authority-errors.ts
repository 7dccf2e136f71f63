/** Refusals of the capability layer: each one line, naming what was refused and why. */
import type { Right } from "./resource.js";

export type DenialReason = "no-grant" | "denied" | "ceiling" | "expired" | "used-up" | "constraint" | "not-approved";

/** A kernel primitive was refused by the capability layer; nothing was touched. */
export class CapabilityDeniedError extends Error {
	override name = "CapabilityDeniedError";

	constructor(
		readonly resource: string,
		readonly right: Right,
		readonly reason: DenialReason,
		readonly why: string,
		readonly ceiling: string,
		readonly grant?: string,
	) {
		super(`capability refused: ${right} on ${resource}: ${why}`);
	}

	/** What the audit record of the refusal holds. */
	toRecord(): Record<string, unknown> {
		const record: Record<string, unknown> = { resource: this.resource, right: this.right, reason: this.reason, why: this.why, ceiling: this.ceiling };
		if (this.grant !== undefined) record.grant = this.grant;
		return record;
	}
}

/** A delegation asked for more than its parent grant holds. */
export class DelegationError extends Error {
	override name = "DelegationError";
}

/** A grant or ceiling given by the host is malformed. */
export class AuthorityFormatError extends Error {
	override name = "AuthorityFormatError";
}
