/**
 * The embedded Store: one SQLite file (warden.db) in the state dir, WAL mode. Methods return
 * Promises to honour the Store contract, though better-sqlite3 does the work synchronously.
 */
import type { Database, Statement } from "better-sqlite3";
import { ChainVerifier, GENESIS_HASH, auditHash } from "../kernel/evidence/audit-chain.js";
import type { ApprovedRule, NewApprovedRule } from "../kernel/approval/approval-types.js";
import type { AuditInput, AuditKind, AuditRecord, AuditVerifyResult } from "../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import { type Label, join } from "../kernel/flow/label.js";
import { oneLine } from "./sqlite-errors.js";
import { openDatabase } from "./sqlite-open.js";
import { type FileLabelKey, type FileLabelRow, type SessionRow, type Store, type StoredMessage, StoreError } from "./store.js";
import { describeFileLabelKey, labelFromJson, labelToJson } from "./stored-label.js";

export interface SqliteStoreOptions {
	/** The clock that stamps audit records; tests pin it. */
	now?: () => Date;
}

interface SessionDbRow {
	id: string;
	workspace: string;
	mode: string;
	model: string;
	created_at: string;
	ended_at: string | null;
	status: string;
	turns: number;
	parent_session: string | null;
	parent_call: string | null;
}

interface AuditDbRow {
	seq: number;
	time: string;
	session: string;
	turn: number;
	kind: string;
	call_id: string | null;
	data: string;
	prev_hash: string;
	hash: string;
}

export class SqliteStore implements Store {
	private closed = false;
	private readonly now: () => Date;
	private readonly statements = new Map<string, Statement<unknown[]>>();

	private constructor(
		private readonly db: Database,
		readonly stateDir: string,
		options: SqliteStoreOptions,
	) {
		this.now = options.now ?? (() => new Date());
	}

	/** Opens (creating if needed) warden.db in stateDir; throws a one-line StoreError if it cannot. */
	static open(stateDir: string, options: SqliteStoreOptions = {}): SqliteStore {
		return new SqliteStore(openDatabase(stateDir), stateDir, options);
	}

	async createSession(row: Omit<SessionRow, "status" | "turns" | "ended_at">): Promise<void> {
		const insert = this.sql(
			"INSERT INTO sessions (id, workspace, mode, model, created_at, parent_session, parent_call) VALUES (@id, @workspace, @mode, @model, @created_at, @parent_session, @parent_call)",
		);
		try {
			insert.run({
				id: row.id,
				workspace: row.workspace,
				mode: row.mode,
				model: row.model,
				created_at: row.created_at,
				parent_session: row.parent_session ?? null,
				parent_call: row.parent_call ?? null,
			});
		} catch (error) {
			if ((error as { code?: unknown }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
				throw new StoreError(`session ${row.id} already exists`);
			}
			throw error;
		}
	}

	async endSession(id: string, status: string, endedAt: string): Promise<void> {
		const result = this.sql("UPDATE sessions SET status = ?, ended_at = ? WHERE id = ?").run(status, endedAt, id);
		if (result.changes === 0) throw new StoreError(`unknown session ${id}`);
	}

	async nextTurn(id: string): Promise<number> {
		const row = this.sql("UPDATE sessions SET turns = turns + 1 WHERE id = ? RETURNING turns").get(id) as
			| { turns: number }
			| undefined;
		if (!row) throw new StoreError(`unknown session ${id}`);
		return row.turns;
	}

	async getSession(id: string): Promise<SessionRow | undefined> {
		const row = this.sql("SELECT * FROM sessions WHERE id = ?").get(id) as SessionDbRow | undefined;
		return row ? toSession(row) : undefined;
	}

	async listSessions(limit?: number): Promise<SessionRow[]> {
		const rows = this.sql("SELECT * FROM sessions ORDER BY created_at DESC, rowid DESC LIMIT ?").all(
			limitOrAll(limit),
		) as SessionDbRow[];
		return rows.map(toSession);
	}

	async appendEvent(event: AnyWardenEvent): Promise<void> {
		const json = toJson(event, "event");
		const insert = this.sql(
			`INSERT INTO events (session, seq, turn, kind, time, json)
			 VALUES (@session, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session = @session), @turn, @kind, @time, @json)`,
		);
		insert.run({
			session: event.session,
			turn: event.turn,
			kind: event.kind,
			time: event.time,
			json,
		});
	}

	async listEvents(session: string): Promise<AnyWardenEvent[]> {
		const rows = this.sql("SELECT seq, json FROM events WHERE session = ? ORDER BY seq").all(session) as {
			seq: number;
			json: string;
		}[];
		return rows.map((row) => fromJson(row.json, `event ${row.seq} of session ${session}`) as AnyWardenEvent);
	}

	async appendMessage(session: string, message: unknown): Promise<void> {
		const json = toJson(message, "message");
		this.sql(
			`INSERT INTO messages (session, seq, json)
			 VALUES (@session, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session = @session), @json)`,
		).run({ session, json });
	}

	async listMessages(session: string): Promise<StoredMessage[]> {
		const rows = this.sql("SELECT seq, json FROM messages WHERE session = ? ORDER BY seq").all(session) as {
			seq: number;
			json: string;
		}[];
		return rows.map((row) => ({
			session,
			seq: row.seq,
			message: fromJson(row.json, `message ${row.seq} of session ${session}`),
		}));
	}

	async appendAudit(input: AuditInput): Promise<AuditRecord> {
		const db = this.live();
		// Hash what will be read back: JSON round-tripping drops undefined and applies toJSON.
		const data = JSON.parse(toJson(input.data, "audit data")) as Record<string, unknown>;
		if (data === null || typeof data !== "object" || Array.isArray(data)) {
			throw new StoreError("audit data must be a JSON object");
		}
		const lastStmt = this.sql("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1");
		const insertStmt = this.sql(
			`INSERT INTO audit (seq, time, session, turn, kind, call_id, data, prev_hash, hash)
			 VALUES (@seq, @time, @session, @turn, @kind, @call_id, @data, @prev_hash, @hash)`,
		);
		const headStmt = this.sql(
			"INSERT INTO audit_head (id, seq, hash) VALUES (1, @seq, @hash) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
		);
		// IMMEDIATE takes the write lock before reading the last row, so another process
		// appending to the same file cannot slip a record in between the read and the insert.
		const append = db.transaction((): AuditRecord => {
			const last = lastStmt.get() as { seq: number; hash: string } | undefined;
			const record: AuditRecord = {
				seq: (last?.seq ?? 0) + 1,
				time: this.now().toISOString(),
				session: input.session,
				turn: input.turn,
				kind: input.kind,
				...(input.call_id === undefined || input.call_id === null ? {} : { call_id: input.call_id }),
				data,
				prev_hash: last?.hash ?? GENESIS_HASH,
				hash: "",
			};
			record.hash = auditHash(record.prev_hash, record);
			insertStmt.run({
				...record,
				call_id: record.call_id ?? null,
				data: JSON.stringify(record.data),
			});
			headStmt.run({ seq: record.seq, hash: record.hash });
			return record;
		});
		return append.immediate();
	}

	/**
	 * In chain order. With a limit, the most recent `limit` records (of the session, if given),
	 * still oldest first: a log view wants the tail, not the beginning.
	 */
	async listAudit(filter: { session?: string; limit?: number } = {}): Promise<AuditRecord[]> {
		const where = filter.session === undefined ? "" : "WHERE session = @session";
		const rows = this.sql(
			`SELECT * FROM (SELECT * FROM audit ${where} ORDER BY seq DESC LIMIT @limit) ORDER BY seq`,
		).all({
			limit: limitOrAll(filter.limit),
			...(filter.session === undefined ? {} : { session: filter.session }),
		}) as AuditDbRow[];
		return rows.map((row) => {
			const record = toAuditRecord(row);
			if (typeof record === "string") throw new StoreError(`audit record ${row.seq}: ${record}`);
			return record;
		});
	}

	async verifyAudit(): Promise<AuditVerifyResult> {
		const db = this.live();
		// One read transaction, so a concurrent append cannot make the head and the chain disagree.
		const verify = db.transaction((): AuditVerifyResult => {
			const verifier = new ChainVerifier();
			const rows = this.sql("SELECT * FROM audit ORDER BY seq").iterate() as IterableIterator<AuditDbRow>;
			for (const row of rows) {
				const record = toAuditRecord(row);
				const problem = typeof record === "string" ? verifier.fail(row.seq, record) : verifier.push(record);
				// Leaving the loop early closes the statement's iterator.
				if (problem) break;
			}
			const head = this.sql("SELECT seq, hash FROM audit_head WHERE id = 1").get() as
				| { seq: number; hash: string }
				| undefined;
			return verifier.finish(head ?? { seq: 0, hash: GENESIS_HASH });
		});
		return verify.deferred();
	}

	async addApprovedRule(rule: NewApprovedRule): Promise<ApprovedRule> {
		const db = this.live();
		return db.transaction(() => {
			const existing = this.sql(
				`SELECT * FROM approved_rules WHERE tool = @tool AND pattern = @pattern AND outcome = @outcome
				 AND workspace = @workspace AND revoked_at IS NULL ORDER BY id LIMIT 1`,
			).get({ tool: rule.tool, pattern: rule.pattern, outcome: rule.outcome, workspace: rule.workspace }) as ApprovedRuleDbRow | undefined;
			if (existing) return toApprovedRule(existing);
			const row = this.sql(
				`INSERT INTO approved_rules (tool, pattern, outcome, workspace, created_at, created_by, session)
				 VALUES (@tool, @pattern, @outcome, @workspace, @created_at, @created_by, @session) RETURNING *`,
			).get({
				tool: rule.tool,
				pattern: rule.pattern,
				outcome: rule.outcome,
				workspace: rule.workspace,
				created_at: rule.created_at,
				created_by: rule.created_by,
				session: rule.session,
			}) as ApprovedRuleDbRow;
			return toApprovedRule(row);
		}).immediate();
	}

	async listApprovedRules(filter: { workspace?: string; includeRevoked?: boolean } = {}): Promise<ApprovedRule[]> {
		const rows = this.sql(
			`SELECT * FROM approved_rules WHERE (@workspace IS NULL OR workspace = @workspace)
			 AND (@all = 1 OR revoked_at IS NULL) ORDER BY id`,
		).all({ workspace: filter.workspace ?? null, all: filter.includeRevoked ? 1 : 0 }) as ApprovedRuleDbRow[];
		return rows.map(toApprovedRule);
	}

	async revokeApprovedRule(id: number, revokedAt: string, revokedBy: string): Promise<ApprovedRule> {
		const row = this.sql("UPDATE approved_rules SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS NULL RETURNING *").get(
			revokedAt,
			revokedBy,
			id,
		) as ApprovedRuleDbRow | undefined;
		if (row) return toApprovedRule(row);
		const known = this.sql("SELECT revoked_at FROM approved_rules WHERE id = ?").get(id) as { revoked_at: string } | undefined;
		throw new StoreError(known ? `approved rule #${id} was already revoked at ${known.revoked_at}` : `no approved rule #${id}`);
	}

	async putFileLabel(row: FileLabelRow): Promise<void> {
		const db = this.live();
		const readStmt = this.sql("SELECT label FROM file_labels WHERE workspace = @workspace AND path = @path AND sha256 = @sha256");
		const insertStmt = this.sql(
			`INSERT INTO file_labels (workspace, path, sha256, label, session, created_at)
			 VALUES (@workspace, @path, @sha256, @label, @session, @created_at)`,
		);
		// The first recording's session and time stay: they say when the content was first labelled.
		const updateStmt = this.sql("UPDATE file_labels SET label = @label WHERE workspace = @workspace AND path = @path AND sha256 = @sha256");
		const key = { workspace: row.workspace, path: row.path, sha256: row.sha256 };
		const what = describeFileLabelKey(key);
		const incoming = labelToJson(row.label, what);
		// IMMEDIATE: another process joining a label onto the same content cannot have its join lost.
		db.transaction(() => {
			const existing = readStmt.get(key) as { label: string } | undefined;
			if (!existing) {
				insertStmt.run({ ...key, label: incoming, session: row.session, created_at: row.created_at });
				return;
			}
			const joined = join(labelFromJson(existing.label, what), row.label);
			updateStmt.run({ ...key, label: labelToJson(joined, what) });
		}).immediate();
	}

	async getFileLabel(key: FileLabelKey): Promise<Label | undefined> {
		const row = this.sql("SELECT label FROM file_labels WHERE workspace = @workspace AND path = @path AND sha256 = @sha256").get({
			workspace: key.workspace,
			path: key.path,
			sha256: key.sha256,
		}) as { label: string } | undefined;
		return row ? labelFromJson(row.label, describeFileLabelKey(key)) : undefined;
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		this.db.close();
	}

	private live(): Database {
		if (this.closed) throw new StoreError(`the store for state dir ${this.stateDir} is closed`);
		return this.db;
	}

	/** Prepared once per store and reused. */
	private sql(source: string): Statement<unknown[]> {
		const db = this.live();
		let statement = this.statements.get(source);
		if (!statement) {
			statement = db.prepare(source);
			this.statements.set(source, statement);
		}
		return statement;
	}
}

interface ApprovedRuleDbRow {
	id: number;
	tool: string;
	pattern: string;
	outcome: "allow" | "deny";
	workspace: string;
	created_at: string;
	created_by: string;
	session: string;
	revoked_at: string | null;
	revoked_by: string | null;
}

function toApprovedRule(row: ApprovedRuleDbRow): ApprovedRule {
	const rule: ApprovedRule = {
		id: row.id,
		tool: row.tool,
		pattern: row.pattern,
		outcome: row.outcome,
		workspace: row.workspace,
		created_at: row.created_at,
		created_by: row.created_by,
		session: row.session,
	};
	if (row.revoked_at !== null) rule.revoked_at = row.revoked_at;
	if (row.revoked_by !== null) rule.revoked_by = row.revoked_by;
	return rule;
}

function toSession(row: SessionDbRow): SessionRow {
	const session: SessionRow = {
		id: row.id,
		workspace: row.workspace,
		mode: row.mode,
		model: row.model,
		created_at: row.created_at,
		status: row.status,
		turns: row.turns,
	};
	if (row.ended_at !== null) session.ended_at = row.ended_at;
	if (row.parent_session !== null) session.parent_session = row.parent_session;
	if (row.parent_call !== null) session.parent_call = row.parent_call;
	return session;
}

/** A record as stored, or a one-line reason it cannot be read back as one. */
function toAuditRecord(row: AuditDbRow): AuditRecord | string {
	let data: unknown;
	try {
		data = JSON.parse(row.data);
	} catch {
		return "data is not valid JSON (edited?)";
	}
	const record: AuditRecord = {
		seq: row.seq,
		time: row.time,
		session: row.session,
		turn: row.turn,
		kind: row.kind as AuditKind,
		data: data as Record<string, unknown>,
		prev_hash: row.prev_hash,
		hash: row.hash,
	};
	if (row.call_id !== null) record.call_id = row.call_id;
	return record;
}

/** SQLite treats a negative LIMIT as "no limit". */
function limitOrAll(limit: number | undefined): number {
	if (limit === undefined) return -1;
	if (!Number.isInteger(limit) || limit < 0) throw new StoreError(`limit must be a whole number >= 0, got ${limit}`);
	return limit;
}

function toJson(value: unknown, what: string): string {
	let json: string | undefined;
	try {
		json = JSON.stringify(value);
	} catch (error) {
		throw new StoreError(`${what} is not JSON-serializable (${oneLine(error)})`);
	}
	if (json === undefined) throw new StoreError(`${what} is not JSON-serializable`);
	return json;
}

function fromJson(json: string, what: string): unknown {
	try {
		return JSON.parse(json);
	} catch (error) {
		throw new StoreError(`${what} is not valid JSON (${oneLine(error)})`);
	}
}
