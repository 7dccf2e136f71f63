/**
 * The one storage contract. SQLite (better-sqlite3) is the embedded default; other backends
 * implement the same interface and pass the same contract tests.
 */
import type { ApprovedRule, NewApprovedRule } from "../kernel/approval/approval-types.js";
import type { AuditInput, AuditRecord, AuditVerifyResult } from "../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import type { Label } from "../kernel/flow/label.js";
import type { LeaseHolder } from "./process-lease.js";
import type { McpPinStore } from "./mcp-pins.js";
import type { BeforeImage, OperationIntent, OperationRow, OperationState, SettledState } from "../kernel/operations/operation-types.js";

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

/** Conversation state kept with a session so it can be shown and resumed. */
export interface StoredMessage {
	session: string;
	seq: number;
	/** JSON of one models/provider Message, already redacted. */
	message: unknown;
	/** The flow label it carried in the model's context; absent for messages stored before labels were kept. */
	label?: Label;
}

export type TaskRunState = "running" | "completed" | "failed" | "cancelled" | "needs_attention";

/** A durable task run: one session's work, driven by idempotent commands. */
export interface TaskRunRow {
	id: string;
	session: string;
	state: TaskRunState;
	/** Why it needs attention (an unknown effect, an interrupted command), one line. */
	attention?: string;
	created_at: string;
	updated_at: string;
}

export type RunCommandKind = "start" | "follow-up" | "continue" | "cancel";

/** One command to a run, keyed by the client's id so a retry is recognised and not run twice. */
export interface RunCommandRow {
	run: string;
	command_id: string;
	kind: RunCommandKind;
	input?: string;
	/** `accepted` when recorded, `done` once its result is stored. */
	state: "accepted" | "done";
	result?: Record<string, unknown>;
	created_at: string;
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

/** How an operation settles: its state and outcome, and the evidence committed in the same transaction. */
export interface OperationSettlement {
	state: SettledState;
	outcome: Record<string, unknown>;
	/** Appended (chained) in the same transaction; its seq is stored on the operation row. */
	audit?: AuditInput;
	/**
	 * Events appended in the same transaction, after the audit record; a payload field `audit_seq`
	 * set to 0 is filled with that record's seq (the effect.recorded event names its record).
	 */
	events?: AnyWardenEvent[];
}

/** What recovery on open took over from holders that are gone (Store.adoptOrphans). */
export interface AdoptedWork {
	/** The gone holders whose leases were removed, each with why it counts as gone. */
	holders: (LeaseHolder & { why: string })[];
	/** Sessions left active, now this process's to mark interrupted. */
	sessions: string[];
	/** Operations left prepared or dispatched, oldest first, now this process's to settle. */
	operations: OperationRow[];
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

	appendMessage(session: string, message: unknown, label?: Label): Promise<void>;
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

	/** Approved MCP tool definitions, by digest (src/store/mcp-pins.ts). */
	readonly mcpPins: McpPinStore;

	/** Records a label on written content; a second label for the same key is joined with the first, never replacing it. */
	putFileLabel(row: FileLabelRow): Promise<void>;
	/** The label recorded on exactly this content at this path, if any. */
	getFileLabel(key: FileLabelKey): Promise<Label | undefined>;
	/** Every label recorded in one workspace, by path and content hash (what a scan of a directory checks its files against). */
	listFileLabels(workspace: string): Promise<(FileLabelKey & { label: Label })[]>;

	/**
	 * Protected operations. prepare: the intent row (state `prepared`) and, when given, the
	 * before-image blob (kept once per content hash), in one transaction, before anything is dispatched.
	 */
	prepareOperation(intent: OperationIntent, beforeImage?: BeforeImage): Promise<void>;
	/** prepared → dispatched, durably, right before the provider is called; a StoreError from any other state. */
	markOperationDispatched(id: string): Promise<void>;
	/** prepared | dispatched → a settled state, with its audit record and events, in one transaction; returns the audit record if one was given. */
	settleOperation(id: string, settlement: OperationSettlement): Promise<AuditRecord | undefined>;
	/** Operations still prepared or dispatched, oldest first: what recovery must look at (bounded by pending rows, not history). */
	listPendingOperations(): Promise<OperationRow[]>;
	/** Operations of a session (and optionally one call or states), oldest first. */
	listOperations(filter: { session?: string; call_id?: string; states?: readonly OperationState[]; limit?: number }): Promise<OperationRow[]>;
	/** A before-image by content hash. */
	getBlob(sha256: string): Promise<Buffer | undefined>;

	createTaskRun(row: TaskRunRow): Promise<void>;
	getTaskRun(id: string): Promise<TaskRunRow | undefined>;
	/** Newest first. */
	listTaskRuns(limit?: number): Promise<TaskRunRow[]>;
	updateTaskRun(id: string, change: { state: TaskRunState; attention?: string | null; updated_at: string }): Promise<void>;
	/**
	 * Records a command unless one with the same (run, command_id) exists; returns the stored row and
	 * whether this call inserted it — a retried command gets the first one back and must not run again.
	 */
	recordRunCommand(row: Omit<RunCommandRow, "state" | "result">): Promise<{ row: RunCommandRow; inserted: boolean }>;
	finishRunCommand(run: string, commandId: string, result: Record<string, unknown>): Promise<void>;
	listRunCommands(run: string): Promise<RunCommandRow[]>;

	/**
	 * Many processes, one state dir: takes over, atomically, the running sessions and pending
	 * operations whose holder is gone (or that no live holder owns), and records each stale lease
	 * taken over. A live process's work is never returned.
	 */
	adoptOrphans(): Promise<AdoptedWork>;
	/** Makes a stopped session this process's to run again; one line naming the holder while another live process runs it. */
	claimSession(id: string): Promise<void>;
	/** The live process running this session now, if any: what another process must not take for interrupted. */
	sessionHolder(id: string): Promise<LeaseHolder | undefined>;

	close(): Promise<void>;
}

/** A state dir that cannot be used: missing permissions, a corrupt database, an unknown schema. */
export class StoreError extends Error {
	override name = "StoreError";
}
