/**
 * The one storage contract. SQLite (better-sqlite3) is the embedded default; other backends
 * implement the same interface and pass the same contract tests.
 */
import type { ApprovedRule, NewApprovedRule } from "../kernel/approval/approval-types.js";
import type { AuditInput, AuditRecord, AuditVerifyResult } from "../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import type { Label } from "../kernel/flow/label.js";

export interface SessionRow {
	id: string;
	workspace: string;
	mode: string;
	model: string;
	/** ISO time. */
	created_at: string;
	ended_at?: string;
	/** "active" until ended; then the end status. */
	status: string;
	turns: number;
	/** For a sub-agent's session: the session whose `agent` call spawned it, and that call's id. */
	parent_session?: string;
	parent_call?: string;
}

/** Conversation state kept with a session so it can be shown (and later resumed). */
export interface StoredMessage {
	session: string;
	seq: number;
	/** JSON of one models/provider Message, already redacted. */
	message: unknown;
}

/** Which file content a label belongs to: a workspace (real path), a workspace-relative path and the content's hash. */
export interface FileLabelKey {
	workspace: string;
	path: string;
	sha256: string;
}

/** A label recorded on written content, so reading the same bytes later carries it (flow plane). */
export interface FileLabelRow extends FileLabelKey {
	label: Label;
	/** The session whose write recorded it. */
	session: string;
	/** ISO time. */
	created_at: string;
}

export interface Store {
	createSession(row: Omit<SessionRow, "status" | "turns" | "ended_at">): Promise<void>;
	endSession(id: string, status: string, endedAt: string): Promise<void>;
	/** Increments the session's turn counter and returns the new turn number. */
	nextTurn(id: string): Promise<number>;
	getSession(id: string): Promise<SessionRow | undefined>;
	/** Newest first. */
	listSessions(limit?: number): Promise<SessionRow[]>;

	appendEvent(event: AnyWardenEvent): Promise<void>;
	listEvents(session: string): Promise<AnyWardenEvent[]>;

	appendMessage(session: string, message: unknown): Promise<void>;
	listMessages(session: string): Promise<StoredMessage[]>;

	/** Durable before it resolves: the record is committed and chained. */
	appendAudit(input: AuditInput): Promise<AuditRecord>;
	/** In chain order. */
	listAudit(filter?: { session?: string; limit?: number }): Promise<AuditRecord[]>;
	/** Walks the whole chain and names the first bad record. */
	verifyAudit(): Promise<AuditVerifyResult>;

	/** Persists an "always" answer; an identical active rule (tool, pattern, outcome, workspace) is returned instead of a second one. */
	addApprovedRule(rule: NewApprovedRule): Promise<ApprovedRule>;
	/** Oldest first; revoked rules only when asked for. */
	listApprovedRules(filter?: { workspace?: string; includeRevoked?: boolean }): Promise<ApprovedRule[]>;
	/** Marks the rule revoked (it is kept); a StoreError for an unknown or already revoked id. */
	revokeApprovedRule(id: number, revokedAt: string, revokedBy: string): Promise<ApprovedRule>;

	/** Records a label on written content; a second label for the same key is joined with the first, never replacing it. */
	putFileLabel(row: FileLabelRow): Promise<void>;
	/** The label recorded on exactly this content at this path, if any. */
	getFileLabel(key: FileLabelKey): Promise<Label | undefined>;

	close(): Promise<void>;
}

/** A state dir that cannot be used: missing permissions, a corrupt database, an unknown schema. */
export class StoreError extends Error {
	override name = "StoreError";
}
