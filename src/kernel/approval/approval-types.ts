/**
 * Approvals: what a host is shown when a call needs confirmation, what it may answer, and the
 * one-use lease an "allow once" becomes. A lease is bound to one call's exact arguments and to
 * the state of what the call would touch, so it authorizes that call as it was shown and nothing else.
 */
import type { DecisionResult } from "../admission/types.js";

/** What the host answered. `true` means allow_once and `false` deny. */
export type ApprovalResponseKind = "allow_once" | "always_allow" | "always_deny" | "deny";
export const APPROVAL_RESPONSE_KINDS: readonly ApprovalResponseKind[] = ["allow_once", "always_allow", "always_deny", "deny"];

export interface ApprovalResponse {
	kind: ApprovalResponseKind;
	/** Who answered, recorded as the persisted rule's creator (default `host`). */
	by?: string;
}

export type ApprovalAnswer = boolean | ApprovalResponse;

/** A pending approval: the call as it would run, and the state it would run against. */
export interface ApprovalRequest {
	requestId: string;
	session: string;
	callId: string;
	tool: string;
	/** Canonical resource: the workspace-relative real path for file tools, the normalized command for shell. */
	resource: string;
	/** The exact, schema-checked arguments. */
	arguments: unknown;
	/** sha256 of the arguments' canonical JSON. */
	argumentsDigest: string;
	/**
	 * For file targets, sha256 of the file's current content (`absent` when it does not exist);
	 * for shell, sha256 of the normalized command, which does not depend on the workspace.
	 */
	targetDigest: string;
	/** The decision that asked. */
	decision: DecisionResult;
	/** For write_file and edit_file: the unified diff of what would change. */
	diff?: string;
	/** The exact rules an "always allow" / "always deny" answer would persist, or why none could be. */
	always?: { allow: PersistPreview; deny: PersistPreview };
}

/** Rules as `tool(pattern)` text, or the reason an exact rule cannot be written. */
export type PersistPreview = { rules: string[] } | { why: string };

/** What a lease is bound to, and what is presented when the call is dispatched. */
export interface LeaseBinding {
	session: string;
	callId: string;
	tool: string;
	argumentsDigest: string;
	targetDigest: string;
}

export interface ApprovalLease extends LeaseBinding {
	id: string;
	/** The approval request it was granted for. */
	requestId: string;
}

export type LeaseCheck = { ok: true; lease: ApprovalLease } | { ok: false; reason: string };

/**
 * An "always allow" or "always deny" answer, persisted: one exact resource of one tool, in the
 * workspace it was given in. Revoked rules are kept, marked, and no longer loaded.
 */
export interface ApprovedRule {
	id: number;
	tool: string;
	/** The exact canonical resource: a workspace-relative path, or one normalized sub-command. */
	pattern: string;
	outcome: "allow" | "deny";
	/** Real path of the workspace the rule applies to. */
	workspace: string;
	/** ISO time. */
	created_at: string;
	/** Who answered (the ApprovalResponse's `by`, else `host`). */
	created_by: string;
	/** The session whose approval request created it. */
	session: string;
	revoked_at?: string;
	revoked_by?: string;
}

export type NewApprovedRule = Omit<ApprovedRule, "id" | "revoked_at" | "revoked_by">;
