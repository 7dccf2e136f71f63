/**
 * The one storage contract. SQLite (better-sqlite3) is the embedded default; other backends
 * implement the same interface and pass the same contract tests (test-support/contract-tests.ts,
 * which takes a factory).
 */
import type { LeaseHolder } from "./process-lease.js";

import type { McpPinStore } from "./mcp-pins.js";
import type { AskStore } from "./ask-rows.js";
import type { MemoryRowStore } from "./memory-rows.js";

export type { StoreRules } from "./store-rules.js";

/**
 * The store speaks rows: these types say what a backend keeps and returns, not what the kernel
 * means by it. The kernel maps them to its domain types (src/kernel/evidence/store-rows.ts) and
 * gives a backend, at open, the few rules a row needs inside a transaction (StoreRules).
 */

/** A flow label as a row: levels and source references as text; the rules say which are valid. */
export interface LabelRow {
	sensitivity: string;
	integrity: string;
	sources: { kind: string; ref: string; sha256?: string }[];
	omitted?: number;
}

/** One event of a session, as appended. */
export interface EventRow {
	kind: string;
	session: string;
	turn: number;
	/** ISO time. */
	time: string;
	payload: object;
}

/** What a caller appends to the audit chain; the store assigns seq, time, prev_hash and hash. */
export interface AuditRowInput {
	session: string;
	turn: number;
	kind: string;
	call_id?: string;
	/** JSON-serializable details, already redacted. */
	data: Record<string, unknown>;
}

export interface AuditRow extends AuditRowInput {
	/** 1-based position in the chain. */
	seq: number;
	time: string;
	prev_hash: string;
	hash: string;
}

/** What walking the chain found: every row checked, or the first bad one. */
export type ChainCheck = { ok: true; checked: number } | { ok: false; checked: number; firstBad: { seq: number; reason: string } };

export interface ApprovedRuleRow {
	id: number;
	tool: string;
	pattern: string;
	outcome: "allow" | "deny";
	workspace: string;
	created_at: string;
	created_by: string;
	session: string;
	revoked_at?: string;
	revoked_by?: string;
}

export type NewApprovedRuleRow = Omit<ApprovedRuleRow, "id" | "revoked_at" | "revoked_by">;

/** The states an operation row moves through; the store enforces which moves are allowed. */
export type OperationRowState = "prepared" | "dispatched" | "committed" | "failed" | "unknown" | "abandoned";
export type SettledRowState = "committed" | "failed" | "unknown" | "abandoned";

export interface OperationIntentRow {
	id: string;
	session: string;
	turn: number;
	call_id: string;
	kind: string;
	resource: string;
	intent: Record<string, unknown>;
	reserved: Record<string, number>;
	/** JSON the kernel reads back (one-use authority spent with the intent). */
	consumed?: object;
	/** ISO time. */
	created_at: string;
}

export interface StoredOperation extends OperationIntentRow {
	state: OperationRowState;
	outcome?: Record<string, unknown>;
	audit_seq?: number;
	updated_at: string;
}

/** A blob kept by content hash (a file's content before the agent changed it). */
export interface BlobRow {
	sha256: string;
	bytes: Buffer;
}

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
	label?: LabelRow;
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
	label: LabelRow;
	/** The session whose write recorded it. */
	session: string;
	/** ISO time. */
	created_at: string;
}

/** How an operation settles: its state and outcome, and the evidence committed in the same transaction. */
export interface OperationSettlement {
	state: SettledRowState;
	outcome: Record<string, unknown>;
	/** Appended (chained) in the same transaction; its seq is stored on the operation row. */
	audit?: AuditRowInput;
	/**
	 * Events appended in the same transaction, after the audit record; a payload field `audit_seq`
	 * set to 0 is filled with that record's seq (the effect.recorded event names its record).
	 */
	events?: EventRow[];
}

/** What recovery on open took over from holders that are gone (Store.adoptOrphans). */
export interface AdoptedWork {
	/** The gone holders whose leases were removed, each with why it counts as gone. */
	holders: (LeaseHolder & { why: string })[];
	/** Sessions left active, now this process's to mark interrupted. */
	sessions: string[];
	/** Operations left prepared or dispatched, oldest first, now this process's to settle. */
	operations: StoredOperation[];
}

/** The reads a snapshot offers, synchronous because they all run inside one read transaction. */
export interface SnapshotView {
	/** Newest first. */
	listSessions(limit?: number): SessionRow[];
	listEvents(session: string): EventRow[];
	/** In chain order. */
	listAudit(filter?: { session?: string; limit?: number }): AuditRow[];
}

/**
 * How an append asks to be committed. `deferred`: it asks for no commit of its own and commits,
 * in order, with the next write that does, at the next barrier(), or after a short deadline; its
 * promise still resolves only once it is durable. Reads of the same store see it at once.
 */
export interface WriteOptions {
	deferred?: boolean;
}

/**
 * Every write resolves only once it is durable. A backend may commit writes that arrive together
 * in one transaction (group commit), but never resolves one before its transaction committed.
 */
export interface Store {
	createSession(row: Omit<SessionRow, "status" | "turns" | "ended_at">): Promise<void>;
	endSession(id: string, status: string, endedAt: string): Promise<void>;
	/** Increments the session's turn counter and returns the new turn number. */
	nextTurn(id: string): Promise<number>;
	getSession(id: string): Promise<SessionRow | undefined>;
	/** Newest first. */
	listSessions(limit?: number): Promise<SessionRow[]>;

	appendEvent(event: EventRow, options?: WriteOptions): Promise<void>;
	/** In append order; `after`: only the events past the first `after` of the session (a reader that keeps its place). */
	listEvents(session: string, after?: number): Promise<EventRow[]>;

	appendMessage(session: string, message: unknown, label?: LabelRow, options?: WriteOptions): Promise<void>;
	listMessages(session: string): Promise<StoredMessage[]>;

	/** Durable before it resolves: the record is committed and chained. */
	appendAudit(input: AuditRowInput, options?: WriteOptions): Promise<AuditRow>;
	/** Resolves once every write asked for before it (deferred ones included) is durable. */
	barrier(): Promise<void>;
	/** In chain order. */
	listAudit(filter?: { session?: string; limit?: number }): Promise<AuditRow[]>;
	/** Walks the whole chain and names the first bad record. */
	verifyAudit(): Promise<ChainCheck>;
	/**
	 * Reads that must agree with each other (explain's audit and events, a listing and its details):
	 * all of them see the state of one commit, never part of a call another writer is settling.
	 */
	snapshot<T>(read: (view: SnapshotView) => T): Promise<T>;

	/** Persists an "always" answer; an identical active rule (tool, pattern, outcome, workspace) is returned instead of a second one. */
	addApprovedRule(rule: NewApprovedRuleRow): Promise<ApprovedRuleRow>;
	/** Oldest first; revoked rules only when asked for. */
	listApprovedRules(filter?: { workspace?: string; includeRevoked?: boolean }): Promise<ApprovedRuleRow[]>;
	/** Marks the rule revoked (it is kept); a StoreError for an unknown or already revoked id. */
	revokeApprovedRule(id: number, revokedAt: string, revokedBy: string): Promise<ApprovedRuleRow>;

	/** Approved MCP tool definitions, by digest (src/store/mcp-pins.ts). */
	readonly mcpPins: McpPinStore;

	/** Pending approvals and exact-release requests, answerable from any process (src/store/ask-rows.ts). */
	readonly asks: AskStore;
	/** Memory records and their text index (src/store/memory-rows.ts). */
	readonly memory: MemoryRowStore;

	/** Records a label on written content; a second label for the same key is joined with the first, never replacing it. */
	putFileLabel(row: FileLabelRow): Promise<void>;
	/** The label recorded on exactly this content at this path, if any. */
	getFileLabel(key: FileLabelKey): Promise<LabelRow | undefined>;
	/** Every label recorded in one workspace, by path and content hash (what a scan of a directory checks its files against). */
	listFileLabels(workspace: string): Promise<(FileLabelKey & { label: LabelRow })[]>;

	/**
	 * Protected operations. prepare: the intent row (state `prepared`) and, when given, the
	 * before-image blob (kept once per content hash), in one transaction, before anything is dispatched.
	 */
	prepareOperation(intent: OperationIntentRow, beforeImage?: BlobRow): Promise<void>;
	/** prepared → dispatched, durably, right before the provider is called; a StoreError from any other state. */
	markOperationDispatched(id: string): Promise<void>;
	/** prepared | dispatched → a settled state, with its audit record and events, in one transaction; returns the audit record if one was given. */
	settleOperation(id: string, settlement: OperationSettlement, options?: WriteOptions): Promise<AuditRow | undefined>;
	/**
	 * Many settlements (recovery's batch), each checked and written as settleOperation would, in one
	 * transaction: all commit or none does. Returns each one's audit record, in order.
	 */
	settleOperations(batch: readonly { id: string; settlement: OperationSettlement }[]): Promise<(AuditRow | undefined)[]>;
	/** Operations still prepared or dispatched, oldest first: what recovery must look at (bounded by pending rows, not history). */
	listPendingOperations(): Promise<StoredOperation[]>;
	/** Operations of a session (and optionally one call or states), oldest first. */
	listOperations(filter: { session?: string; call_id?: string; states?: readonly OperationRowState[]; limit?: number }): Promise<StoredOperation[]>;
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
