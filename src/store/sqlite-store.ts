/**
 * The embedded Store: one SQLite file (warden.db) in the state dir, WAL mode. Methods return
 * Promises to honour the Store contract, though better-sqlite3 does the work synchronously.
 */
import type { McpPinStore } from "./mcp-pins.js";
import { SqliteMcpPins } from "./sqlite-mcp-pins.js";
import type { AskStore } from "./ask-rows.js";
import { EXPIRE_ORPHANED_ASKS, SqliteAsks } from "./sqlite-asks.js";
import type { MemoryRowStore } from "./memory-rows.js";
import { SqliteMemory } from "./sqlite-memory.js";
import { createHash, randomUUID } from "node:crypto";
import { hostname as osHostname } from "node:os";
import type { Database, Statement } from "better-sqlite3";
import { CommitQueue } from "./commit-queue.js";
import { crashPoint } from "./fault-injection.js";
import { oneLine } from "./sqlite-errors.js";
import { LockWaitLog } from "./lock-wait-log.js";
import { CoreSaturation, retryWhileBusy, WRITE_LOCK_WAIT, type WriteLockWait } from "./write-lock-wait.js";
import { BUSY_TIMEOUT_MS, openDatabase, prepareStateDir } from "./sqlite-open.js";
import { AUDIT_TABLE_SQL, auditLine, lineColumns, storedRecord, TEXT_LINE, VERIFY_LINE } from "./sqlite-audit-table.js";
import type { StoreRules, StoredRowTrust } from "./store-rules.js";
import {
	type AdoptedWork,
	type ApprovedRuleRow,
	type AuditRow,
	type AuditRowInput,
	type BlobRow,
	type ChainCheck,
	type EventRow,
	type LabelRow,
	type NewApprovedRuleRow,
	type OperationIntentRow,
	type OperationRowState,
	type StoredOperation,
	type FileLabelKey,
	type FileLabelRow,
	type OperationSettlement,
	type RunCommandRow,
	type SessionRow,
	type SnapshotView,
	type Store,
	type StoredMessage,
	StoreError,
	type TaskRunRow,
	type TaskRunState,
	type WriteOptions,
} from "./store.js";
import { describeFileLabelKey, labelFromJson, labelToJson } from "./stored-label.js";
import {
	goneReason,
	HEARTBEAT_MS,
	heldByMessage,
	type LeaseHolder,
	type LivenessProbe,
	processAlive,
	processStartTime,
	STALE_AFTER_MS,
} from "./process-lease.js";

export interface SqliteStoreOptions {
	/** The kernel's chain and label rules (src/kernel/evidence/store-rules.ts). */
	rules: StoreRules;
	/** The clock that stamps audit records; tests pin it. */
	now?: () => Date;
	/**
	 * For commands that only read: no process lease is taken and every write is refused. SQLite's
	 * WAL mode lets them read alongside any number of writers, and never block one.
	 */
	readOnly?: boolean;
	/** Pins the lease's pid, its start time, host, clock, liveness probe and heartbeat; tests use it. */
	leaseOptions?: ProcessLeaseOptions;
	/** A file the store appends its write-lock waits to when it closes (a benchmark's); else WARDEN_LOCK_WAIT_LOG's. */
	lockWaitLog?: string;
	/** How a write waits for another process's lock; tests shorten the bound. */
	writeLockWait?: WriteLockWait;
	/** Whether the cores are saturated (so SQLite's coarse handler waits); tests pin it. */
	coreSaturation?: CoreSaturation;
}

export interface ProcessLeaseOptions extends Partial<LivenessProbe> {
	pid?: number;
	/** null: the start time is unknown (as off Linux). */
	pidStart?: string | null;
	heartbeatMs?: number;
}

interface LeaseDbRow {
	token: string;
	pid: number;
	pid_start: string | null;
	hostname: string;
	started_at: string;
	heartbeat_at: string;
}

function toHolder(row: LeaseDbRow): LeaseHolder {
	return {
		token: row.token,
		pid: row.pid,
		...(row.pid_start === null ? {} : { pid_start: row.pid_start }),
		hostname: row.hostname,
		started_at: row.started_at,
		heartbeat_at: row.heartbeat_at,
	};
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

export class SqliteStore implements Store {
	private closed = false;
	private readonly now: () => Date;
	private readonly rules: StoreRules;
	private readonly readOnly: boolean;
	private readonly statements = new Map<string, Statement<unknown[]>>();
	/** This process's lease; undefined for a reader. */
	readonly holder: LeaseHolder | undefined;
	private readonly probe: LivenessProbe;
	private heartbeat: ReturnType<typeof setInterval> | undefined;
	private readonly lockWaits: LockWaitLog | undefined;
	private readonly writeLockWait: WriteLockWait;
	private readonly cores: CoreSaturation;
	/** The per-call writes, committed in groups (commit-queue.ts). */
	private readonly commits = new CommitQueue(
		(batch) => this.immediate(batch),
		(body) => {
			try {
				return this.savepoint(body);
			} catch (error) {
				// The savepoint took back what this write chained: the head is read again from the table.
				this.chainHead = undefined;
				throw error;
			}
		},
		(size) => this.batchSizes?.push(size),
	);
	/** The chain's last record as this write transaction left it; undefined outside one, or when it must be read again. */
	private chainHead: { seq: number; hash: string } | undefined;
	/** Whether this write transaction chained a record (so the remembered head must be written). */
	private chainMoved = false;
	/** Sizes of the committed groups, when a benchmark asks for them (observeBatches). */
	private batchSizes: number[] | undefined;
	readonly mcpPins: McpPinStore = new SqliteMcpPins({
		sql: (source) => this.sql(source),
		immediate: (body) => this.runNow(body),
		writable: () => {
			this.writable();
		},
	});

	readonly asks: AskStore = new SqliteAsks({
		sql: (source) => this.sql(source),
		immediate: (body) => this.runNow(body),
		writable: () => {
			this.writable();
		},
		ownToken: () => this.ownLease().token,
		ownerGone: (token) => this.leaseGone(token),
	});

	readonly memory: MemoryRowStore = new SqliteMemory({
		sql: (source) => this.sql(source),
		immediate: (body) => this.runNow(body),
		writable: () => {
			this.writable();
		},
		labels: {
			problem: (value) => this.rules.labels.problem(value),
			join: (a, b) => this.rules.labels.join(a, b),
		},
		// A memory write and its evidence: one savepoint of the commit queue's transaction.
		write: (body) => this.write(body),
		defer: (body) => this.write(body, DEFERRED_WRITE, "memory_records"),
		readOwnWrites: () => {
			this.readOwnWrites("memory_records");
		},
		evidence: (audit, events) => {
			const record = this.insertAudit(audit, auditData(audit));
			for (const event of events) {
				const filled = fillAuditSeq(event, record.seq);
				this.insertEvent(filled, toJson(filled, "an event of a memory change"));
			}
			return record;
		},
	});

	private constructor(
		private readonly db: Database,
		readonly stateDir: string,
		options: SqliteStoreOptions,
	) {
		this.now = options.now ?? (() => new Date());
		this.rules = options.rules;
		this.lockWaits = LockWaitLog.fromEnv(options.lockWaitLog === undefined ? process.env : { WARDEN_LOCK_WAIT_LOG: options.lockWaitLog });
		this.writeLockWait = options.writeLockWait ?? WRITE_LOCK_WAIT;
		this.cores = options.coreSaturation ?? new CoreSaturation();
		// SQLite's handler waits for the same bound as the short sleeps.
		if (this.writeLockWait.boundMs !== BUSY_TIMEOUT_MS) db.pragma(`busy_timeout = ${this.writeLockWait.boundMs}`);
		this.readOnly = options.readOnly === true;
		const lease = options.leaseOptions ?? {};
		this.probe = {
			hostname: lease.hostname ?? osHostname(),
			isAlive: lease.isAlive ?? processAlive,
			startTime: lease.startTime ?? processStartTime,
			now: lease.now ?? (() => new Date()),
			staleAfterMs: lease.staleAfterMs ?? STALE_AFTER_MS,
		};
		if (this.readOnly) return;
		const pid = lease.pid ?? process.pid;
		const pidStart = lease.pidStart === undefined ? processStartTime(pid) : (lease.pidStart ?? undefined);
		const at = this.probe.now().toISOString();
		this.holder = { token: randomUUID(), pid, ...(pidStart === undefined ? {} : { pid_start: pidStart }), hostname: this.probe.hostname, started_at: at, heartbeat_at: at };
	}

	/**
	 * Opens (creating if needed) warden.db in stateDir; throws a one-line StoreError if it cannot.
	 * A writer takes a process lease: any number of them write one state dir at once.
	 */
	static open(stateDir: string, options: SqliteStoreOptions): SqliteStore {
		if (!options.readOnly) prepareStateDir(stateDir);
		const db = openDatabase(stateDir);
		// A backstop under the StoreError guards: SQLite itself refuses a reader's write.
		if (options.readOnly) db.pragma("query_only = ON");
		const store = new SqliteStore(db, stateDir, options);
		try {
			store.takeLease(options.leaseOptions?.heartbeatMs ?? HEARTBEAT_MS);
		} catch (error) {
			db.close();
			throw error;
		}
		return store;
	}

	private takeLease(heartbeatMs: number): void {
		const holder = this.holder;
		if (!holder) return;
		this.immediate(() =>
			this.sql(
				"INSERT INTO process_leases (token, pid, pid_start, hostname, started_at, heartbeat_at) VALUES (@token, @pid, @pid_start, @hostname, @started_at, @heartbeat_at)",
			).run({ ...holder, pid_start: holder.pid_start ?? null }),
		);
		const beat = this.sql("UPDATE process_leases SET heartbeat_at = ? WHERE token = ?");
		this.heartbeat = setInterval(() => {
			try {
				beat.run(this.probe.now().toISOString(), holder.token);
			} catch {
				// A missed beat is made up by the next; the bound is many beats long.
			}
		}, heartbeatMs);
		// The heartbeat never keeps a process alive on its own.
		this.heartbeat.unref();
	}

	/**
	 * Takes over, in one write transaction, what holders that are gone left behind: their lease
	 * rows are removed (each recorded as store.lease_recovered), and their running sessions and
	 * pending operations (and those of no live holder, this one's included) become this process's.
	 * A live holder's are never touched; two processes recovering at once cannot both adopt a row.
	 */
	async adoptOrphans(): Promise<AdoptedWork> {
		const holder = this.ownLease();
		return this.runNow((): AdoptedWork => {
			const leases = (this.sql("SELECT * FROM process_leases ORDER BY started_at, token").all() as LeaseDbRow[]).map(toHolder);
			const gone: AdoptedWork["holders"] = [];
			const live = new Set<string>();
			for (const lease of leases) {
				const why = lease.token === holder.token ? undefined : goneReason(lease, this.probe);
				if (why === undefined) live.add(lease.token);
				else gone.push({ ...lease, why });
			}
			for (const previous of gone) {
				this.sql("DELETE FROM process_leases WHERE token = ?").run(previous.token);
				// A lease left by a process that is gone is what a crash leaves behind: the evidence says so.
				const record: AuditRowInput = {
					session: "host",
					turn: 0,
					kind: "store.lease_recovered",
					data: {
						previous_pid: previous.pid,
						previous_hostname: previous.hostname,
						previous_started_at: previous.started_at,
						previous_heartbeat_at: previous.heartbeat_at,
						why: previous.why,
						pid: holder.pid,
					},
				};
				this.insertAudit(record, auditData(record));
			}
			const orphaned = (owner: string | null) => owner === null || owner === holder.token || !live.has(owner);
			const rows = this.sql("SELECT * FROM operations WHERE state IN ('prepared', 'dispatched') ORDER BY created_at, rowid").all() as (OperationDbRow & { owner: string | null })[];
			const operations = rows.filter((row) => orphaned(row.owner));
			const ownOp = this.sql("UPDATE operations SET owner = ? WHERE id = ?");
			for (const row of operations) ownOp.run(holder.token, row.id);
			const active = this.sql("SELECT id, owner FROM sessions WHERE status = 'active' ORDER BY created_at, rowid").all() as { id: string; owner: string | null }[];
			const sessions = active.filter((row) => orphaned(row.owner)).map((row) => row.id);
			const ownSession = this.sql("UPDATE sessions SET owner = ? WHERE id = ?");
			for (const id of sessions) ownSession.run(holder.token, id);
			// An ask whose asker is gone can never be answered: it expires, it is never left half-answered.
			this.sql(EXPIRE_ORPHANED_ASKS).run({ at: this.now().toISOString(), live: JSON.stringify([...live]) });
			return { holders: gone, sessions, operations: operations.map(toOperation) };
		});
	}

	/**
	 * Makes a session that is not running this process's to run again (status active). Refused
	 * with one line naming the holder while a live process runs it; a session still active whose
	 * holder is gone must be recovered (by opening a Runtime) before it is resumed.
	 */
	async claimSession(id: string): Promise<void> {
		const holder = this.ownLease();
		this.runNow(() => {
			const row = this.sql("SELECT status, owner FROM sessions WHERE id = ?").get(id) as { status: string; owner: string | null } | undefined;
			if (!row) throw new StoreError(`unknown session ${id}`);
			if (row.owner !== null && row.owner !== holder.token) {
				const lease = this.sql("SELECT * FROM process_leases WHERE token = ?").get(row.owner) as LeaseDbRow | undefined;
				const current = lease ? toHolder(lease) : undefined;
				if (current && goneReason(current, this.probe) === undefined) {
					throw new StoreError(`${heldByMessage(`session ${id}`, current, this.probe.hostname)}; wait for it to finish`);
				}
			}
			if (row.status === "active") {
				throw new StoreError(`session ${id} is still active but the process running it is gone: open Warden again so recovery settles it, then resume`);
			}
			this.sql("UPDATE sessions SET status = 'active', owner = ?, ended_at = ? WHERE id = ?").run(holder.token, this.now().toISOString(), id);
		});
	}

	async sessionHolder(id: string): Promise<LeaseHolder | undefined> {
		const row = this.sql("SELECT l.* FROM sessions s JOIN process_leases l ON s.owner = l.token WHERE s.id = ? AND s.status = 'active'").get(id) as LeaseDbRow | undefined;
		const holder = row ? toHolder(row) : undefined;
		return holder && (holder.token === this.holder?.token || goneReason(holder, this.probe) === undefined) ? holder : undefined;
	}

	/** Why the lease `token` no longer holds, read inside the caller's transaction; undefined while its holder is live. */
	private leaseGone(token: string | null): string | undefined {
		if (token === null) return "no process lease owns it";
		if (token === this.holder?.token) return undefined;
		const lease = this.sql("SELECT * FROM process_leases WHERE token = ?").get(token) as LeaseDbRow | undefined;
		if (!lease) return "the process is gone";
		return goneReason(toHolder(lease), this.probe);
	}

	private ownLease(): LeaseHolder {
		this.writable();
		if (!this.holder) throw new StoreError(`the store for state dir ${this.stateDir} holds no process lease`);
		return this.holder;
	}

	async createSession(row: Omit<SessionRow, "status" | "turns" | "ended_at">): Promise<void> {
		this.writable();
		const insert = this.sql(
			"INSERT INTO sessions (id, workspace, mode, model, created_at, parent_session, parent_call, owner) VALUES (@id, @workspace, @mode, @model, @created_at, @parent_session, @parent_call, @owner)",
		);
		try {
			this.runNow(() =>
				insert.run({
					id: row.id,
					workspace: row.workspace,
					mode: row.mode,
					model: row.model,
					created_at: row.created_at,
					parent_session: row.parent_session ?? null,
					parent_call: row.parent_call ?? null,
					owner: this.holder?.token ?? null,
				}),
			);
		} catch (error) {
			if ((error as { code?: unknown }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
				throw new StoreError(`session ${row.id} already exists`);
			}
			throw error;
		}
	}

	async endSession(id: string, status: string, endedAt: string): Promise<void> {
		this.writable();
		return this.write(() => this.endSessionNow(id, status, endedAt));
	}

	private endSessionNow(id: string, status: string, endedAt: string): void {
		// A session that stops running is no process's any more; one made active again is this one's.
		const result = this.sql("UPDATE sessions SET status = @status, ended_at = @ended_at, owner = CASE WHEN @status = 'active' THEN @owner ELSE NULL END WHERE id = @id").run({
			status,
			ended_at: endedAt,
			owner: this.holder?.token ?? null,
			id,
		});
		if (result.changes === 0) throw new StoreError(`unknown session ${id}`);
	}

	async nextTurn(id: string): Promise<number> {
		this.writable();
		return this.write(() => {
			const row = this.sql("UPDATE sessions SET turns = turns + 1 WHERE id = ? RETURNING turns").get(id) as
				| { turns: number }
				| undefined;
			if (!row) throw new StoreError(`unknown session ${id}`);
			return row.turns;
		});
	}

	async getSession(id: string): Promise<SessionRow | undefined> {
		const row = this.sql("SELECT * FROM sessions WHERE id = ?").get(id) as SessionDbRow | undefined;
		return row ? toSession(row) : undefined;
	}

	async listSessions(limit?: number): Promise<SessionRow[]> {
		return this.sessionRows(limit);
	}

	private sessionRows(limit?: number): SessionRow[] {
		const rows = this.sql("SELECT * FROM sessions ORDER BY created_at DESC, rowid DESC LIMIT ?").all(
			limitOrAll(limit),
		) as SessionDbRow[];
		return rows.map(toSession);
	}

	async appendEvent(event: EventRow, options?: WriteOptions): Promise<void> {
		this.writable();
		const json = toJson(event, "event");
		return this.write(() => this.insertEvent(event, json), options, "events");
	}

	/** Inside the caller's transaction, so the crash point below falls before its commit. */
	private insertEvent(event: EventRow, json: string): void {
		this.sql(
			`INSERT INTO events (session, seq, turn, kind, time, json)
			 VALUES (@session, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session = @session), @turn, @kind, @time, @json)`,
		).run({
			session: event.session,
			turn: event.turn,
			kind: event.kind,
			time: event.time,
			json,
		});
		crashPoint("store.event-append");
	}

	async listEvents(session: string, after = 0): Promise<EventRow[]> {
		this.readOwnWrites("events");
		return this.eventRows(session, after);
	}

	private eventRows(session: string, after = 0): EventRow[] {
		// A session's events are numbered 1, 2, … as they are appended: past the first `after` is past seq `after`.
		const rows = this.sql("SELECT seq, json FROM events WHERE session = ? AND seq > ? ORDER BY seq").all(session, after) as {
			seq: number;
			json: string;
		}[];
		return rows.map((row) => fromJson(row.json, `event ${row.seq} of session ${session}`) as EventRow);
	}

	async appendMessage(session: string, message: unknown, label?: LabelRow, options?: WriteOptions): Promise<void> {
		this.writable();
		const json = toJson(message, "message");
		const labelJson = label === undefined ? null : labelToJson(this.rules.labels, label, `a message of session ${session}`);
		const insert = this.sql(
			`INSERT INTO messages (session, seq, json, label)
			 VALUES (@session, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session = @session), @json, @label)`,
		);
		return this.write(() => {
			insert.run({ session, json, label: labelJson });
		}, options, "messages");
	}

	async listMessages(session: string): Promise<StoredMessage[]> {
		this.readOwnWrites("messages");
		const rows = this.sql("SELECT seq, json, label FROM messages WHERE session = ? ORDER BY seq").all(session) as {
			seq: number;
			json: string;
			label: string | null;
		}[];
		return rows.map((row) => {
			const what = `message ${row.seq} of session ${session}`;
			const stored: StoredMessage = { session, seq: row.seq, message: fromJson(row.json, what) };
			if (row.label !== null) stored.label = labelFromJson(this.rules.labels, row.label, what);
			return stored;
		});
	}

	async appendAudit(input: AuditRowInput, options?: WriteOptions): Promise<AuditRow> {
		this.writable();
		const data = auditData(input);
		// The batch's transaction is IMMEDIATE: it takes the write lock before reading the last row,
		// so another process appending to the same file cannot slip a record in between.
		return this.write(() => this.insertAudit(input, data), options, "audit");
	}

	async barrier(): Promise<void> {
		this.live();
		return this.commits.barrier();
	}

	/**
	 * Chains one record onto the end. The one place records are chained (appendAudit and
	 * settleOperation both come here); it must run inside the caller's IMMEDIATE transaction.
	 */
	private insertAudit(input: AuditRowInput, data: Record<string, unknown>): AuditRow {
		const lastStmt = this.sql("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1");
		const insertStmt = this.sql("INSERT INTO audit (seq, line) VALUES (?, ?)");
		// The head read once per transaction: the write lock is held, so no one else moves it.
		const last = this.chainHead ?? (lastStmt.get() as { seq: number; hash: string } | undefined);
		const record: AuditRow = {
			seq: (last?.seq ?? 0) + 1,
			time: this.now().toISOString(),
			session: input.session,
			turn: input.turn,
			kind: input.kind,
			...(input.call_id === undefined || input.call_id === null ? {} : { call_id: input.call_id }),
			data,
			prev_hash: last?.hash ?? this.rules.chain.genesis,
			hash: "",
		};
		// The line holds exactly the canonical body the hash covers, so verification hashes what is stored.
		const dataJson = this.rules.chain.canonicalData(record.data);
		const { seq, time, session, turn, kind, call_id } = record;
		const linked = this.rules.chain.link(record.prev_hash, { seq, time, session, turn, kind, ...(call_id === undefined ? {} : { call_id }), data: dataJson });
		record.hash = linked.hash;
		insertStmt.run(seq, auditLine(seq, linked.hash, record.prev_hash, linked.body));
		this.chainHead = { seq: record.seq, hash: record.hash };
		this.chainMoved = true;
		crashPoint("store.audit-append");
		return record;
	}

	/**
	 * In chain order. With a limit, the most recent `limit` records (of the session, if given),
	 * still oldest first: a log view wants the tail, not the beginning.
	 */
	async listAudit(filter: { session?: string; limit?: number } = {}): Promise<AuditRow[]> {
		this.readOwnWrites("audit");
		return this.auditRows(filter);
	}

	async snapshot<T>(read: (view: SnapshotView) => T): Promise<T> {
		const db = this.live();
		this.readOwnWrites();
		const view: SnapshotView = {
			listSessions: (limit) => this.sessionRows(limit),
			listEvents: (session) => this.eventRows(session),
			listAudit: (filter) => this.auditRows(filter),
		};
		// One deferred read transaction: in WAL mode it sees one commit's state throughout and blocks no writer.
		return db.transaction(() => read(view)).deferred();
	}

	private auditRows(filter: { session?: string; limit?: number } = {}): AuditRow[] {
		const where = filter.session === undefined ? "" : "WHERE session = @session";
		const rows = this.sql(
			`SELECT * FROM (SELECT seq, line FROM audit ${where} ORDER BY seq DESC LIMIT @limit) ORDER BY seq`,
		).all({
			limit: limitOrAll(filter.limit),
			...(filter.session === undefined ? {} : { session: filter.session }),
		}) as { seq: number; line: unknown }[];
		return rows.map((row) => storedRecord(row.seq, row.line, filter.session));
	}

	async verifyAudit(): Promise<ChainCheck> {
		const db = this.live();
		this.readOwnWrites();
		// One read transaction, so a concurrent append cannot make the head and the chain disagree.
		const verify = db.transaction((): ChainCheck => {
			const walker = this.rules.chain.walker();
			// A table rebuilt with plain columns could hold values its lines do not: refused before any line is read.
			const table = this.sql("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'audit'").pluck().get();
			if (table !== AUDIT_TABLE_SQL) {
				return { ok: false, checked: 0, firstBad: { seq: 1, reason: "the audit table's definition is not the one Warden created (rebuilt or altered?)" } };
			}
			const { canonicalFrom, lineFrom } = this.auditFormat();
			// One value per row, its stored line (or its seq alone, where the line does not start with it).
			// Where the keys are exactly 1..n, the walker's own check that the k-th line names seq k
			// already holds each line to its key, and SQLite need not compare them.
			const keys = this.sql("SELECT count(*) AS n, max(seq) AS hi, min(seq) AS lo FROM audit").get() as { n: number; hi: number | null; lo: number | null };
			const dense = keys.n === 0 || (keys.lo === 1 && keys.hi === keys.n);
			const page = this.sql(`SELECT ${dense ? TEXT_LINE : VERIFY_LINE} FROM audit WHERE seq > ? ORDER BY seq LIMIT ?`).pluck();
			const whole = this.sql("SELECT line FROM audit WHERE seq = ?").pluck();
			// Keyset pages: each page is read whole (cheaper per row than stepping an iterator) and
			// the walk stops at the first problem, since the verifier does.
			let lines = page.all(Number.MIN_SAFE_INTEGER, VERIFY_PAGE) as (string | number)[];
			let problem: { seq: number; reason: string } | undefined;
			// The key of the row last read: counted where the keys are 1..n, else what VERIFY_LINE's value starts with.
			let key = 0;
			while (lines.length > 0 && !problem) {
				for (const line of lines) {
					key = dense ? key + 1 : seqOfLine(line);
					const fast = walker.pushHashed(line);
					if (fast !== false) problem = fast;
					else {
						// Not a line that checks: decided from the values the line holds, as far as its age allows.
						const columns = lineColumns(typeof line === "string" ? line : whole.get(key));
						const trust: StoredRowTrust = key < canonicalFrom ? "decoded" : key < lineFrom ? "columns" : "never";
						problem = walker.push(typeof columns === "string" ? { seq: key, unreadable: columns } : columns, trust);
					}
					if (problem) break;
				}
				if (lines.length < VERIFY_PAGE) break;
				lines = page.all(key, VERIFY_PAGE) as (string | number)[];
			}
			const head = this.sql("SELECT seq, hash FROM audit_head WHERE id = 1").get() as
				| { seq: number; hash: string }
				| undefined;
			return walker.finish(head ?? { seq: 0, hash: this.rules.chain.genesis });
		});
		return verify.deferred();
	}

	/**
	 * The first seq whose data is stored canonical (schema version 7 on) and the first written as a
	 * line by this code (version 13 on; earlier lines were spelled from the old columns). Without
	 * audit_format's row, every record must verify from its bytes: the strictest reading.
	 */
	private auditFormat(): { canonicalFrom: number; lineFrom: number } {
		let format: { canonical_from: unknown; line_from: unknown } | undefined;
		try {
			format = this.db.prepare("SELECT canonical_from, line_from FROM audit_format WHERE id = 1").get() as typeof format;
		} catch {
			// The table or its column removed after the store opened: no boundary is known.
			format = undefined;
		}
		const at = (value: unknown) => (typeof value === "number" && Number.isInteger(value) ? value : 1);
		return { canonicalFrom: at(format?.canonical_from), lineFrom: at(format?.line_from) };
	}

	async addApprovedRule(rule: NewApprovedRuleRow): Promise<ApprovedRuleRow> {
		this.writable();
		return this.runNow(() => {
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
		});
	}

	async listApprovedRules(filter: { workspace?: string; includeRevoked?: boolean } = {}): Promise<ApprovedRuleRow[]> {
		const rows = this.sql(
			`SELECT * FROM approved_rules WHERE (@workspace IS NULL OR workspace = @workspace)
			 AND (@all = 1 OR revoked_at IS NULL) ORDER BY id`,
		).all({ workspace: filter.workspace ?? null, all: filter.includeRevoked ? 1 : 0 }) as ApprovedRuleDbRow[];
		return rows.map(toApprovedRule);
	}

	async revokeApprovedRule(id: number, revokedAt: string, revokedBy: string): Promise<ApprovedRuleRow> {
		this.writable();
		const revoke = this.sql("UPDATE approved_rules SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS NULL RETURNING *");
		const row = this.runNow(() => revoke.get(revokedAt, revokedBy, id)) as ApprovedRuleDbRow | undefined;
		if (row) return toApprovedRule(row);
		const known = this.sql("SELECT revoked_at FROM approved_rules WHERE id = ?").get(id) as { revoked_at: string } | undefined;
		throw new StoreError(known ? `approved rule #${id} was already revoked at ${known.revoked_at}` : `no approved rule #${id}`);
	}

	async putFileLabel(row: FileLabelRow): Promise<void> {
		this.writable();
		const readStmt = this.sql("SELECT label FROM file_labels WHERE workspace = @workspace AND path = @path AND sha256 = @sha256");
		const insertStmt = this.sql(
			`INSERT INTO file_labels (workspace, path, sha256, label, session, created_at)
			 VALUES (@workspace, @path, @sha256, @label, @session, @created_at)`,
		);
		// The first recording's session and time stay: they say when the content was first labelled.
		const updateStmt = this.sql("UPDATE file_labels SET label = @label WHERE workspace = @workspace AND path = @path AND sha256 = @sha256");
		const key = { workspace: row.workspace, path: row.path, sha256: row.sha256 };
		const what = describeFileLabelKey(key);
		const incoming = labelToJson(this.rules.labels, row.label, what);
		// IMMEDIATE: another process joining a label onto the same content cannot have its join lost.
		return this.write(() => {
			const existing = readStmt.get(key) as { label: string } | undefined;
			if (!existing) {
				insertStmt.run({ ...key, label: incoming, session: row.session, created_at: row.created_at });
				return;
			}
			const joined = this.rules.labels.join(labelFromJson(this.rules.labels, existing.label, what), row.label);
			updateStmt.run({ ...key, label: labelToJson(this.rules.labels, joined, what) });
		});
	}

	async getFileLabel(key: FileLabelKey): Promise<LabelRow | undefined> {
		const row = this.sql("SELECT label FROM file_labels WHERE workspace = @workspace AND path = @path AND sha256 = @sha256").get({
			workspace: key.workspace,
			path: key.path,
			sha256: key.sha256,
		}) as { label: string } | undefined;
		return row ? labelFromJson(this.rules.labels, row.label, describeFileLabelKey(key)) : undefined;
	}

	async listFileLabels(workspace: string): Promise<(FileLabelKey & { label: LabelRow })[]> {
		const rows = this.sql("SELECT path, sha256, label FROM file_labels WHERE workspace = ? ORDER BY path, sha256").all(workspace) as { path: string; sha256: string; label: string }[];
		return rows.map((r) => {
			const key = { workspace, path: r.path, sha256: r.sha256 };
			return { ...key, label: labelFromJson(this.rules.labels, r.label, describeFileLabelKey(key)) };
		});
	}

	async prepareOperation(intent: OperationIntentRow, beforeImage?: BlobRow): Promise<void> {
		this.writable();
		const intentJson = toJson(intent.intent, `intent of operation ${intent.id}`);
		const reservedJson = toJson(intent.reserved, `reservations of operation ${intent.id}`);
		const consumedJson = intent.consumed === undefined ? null : toJson(intent.consumed, `authority consumed by operation ${intent.id}`);
		if (beforeImage) checkBlobHash(beforeImage.sha256, beforeImage.bytes, `the before-image of operation ${intent.id}`);
		const insertOp = this.sql(
			`INSERT INTO operations (id, session, turn, call_id, kind, resource, state, intent, reserved, consumed, created_at, updated_at, owner)
			 VALUES (@id, @session, @turn, @call_id, @kind, @resource, 'prepared', @intent, @reserved, @consumed, @created_at, @created_at, @owner)`,
		);
		const insertBlob = this.sql("INSERT OR IGNORE INTO blobs (sha256, bytes, created_at) VALUES (?, ?, ?)");
		return this.write(() => {
			try {
				insertOp.run({
					id: intent.id,
					session: intent.session,
					turn: intent.turn,
					call_id: intent.call_id,
					kind: intent.kind,
					resource: intent.resource,
					intent: intentJson,
					reserved: reservedJson,
					consumed: consumedJson,
					created_at: intent.created_at,
					owner: this.holder?.token ?? null,
				});
			} catch (error) {
				if ((error as { code?: unknown }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") throw new StoreError(`operation ${intent.id} already exists`);
				throw error;
			}
			if (beforeImage) insertBlob.run(beforeImage.sha256, beforeImage.bytes, intent.created_at);
		});
	}

	async markOperationDispatched(id: string): Promise<void> {
		this.writable();
		const update = this.sql("UPDATE operations SET state = 'dispatched', updated_at = ? WHERE id = ? AND state = 'prepared'");
		return this.write(() => {
			if (update.run(this.now().toISOString(), id).changes === 1) return;
			throw new StoreError(`cannot mark operation ${id} dispatched: ${this.describeOperationRowState(id)}, not prepared`);
		});
	}

	async settleOperation(id: string, settlement: OperationSettlement, options?: WriteOptions): Promise<AuditRow | undefined> {
		this.writable();
		// One transaction: the state, the chained record and the events commit together or not at all.
		return this.write(this.settlement(id, settlement), options);
	}

	async settleOperations(batch: readonly { id: string; settlement: OperationSettlement }[]): Promise<(AuditRow | undefined)[]> {
		this.writable();
		// Every settlement is checked before any is written; then all commit in one transaction, or none.
		const bodies = batch.map(({ id, settlement }) => this.settlement(id, settlement));
		return this.write(() => bodies.map((body) => body()));
	}

	/** Checks a settlement now and returns what writes it, to run inside a write transaction. */
	private settlement(id: string, settlement: OperationSettlement): () => AuditRow | undefined {
		const outcomeJson = toJson(settlement.outcome, `outcome of operation ${id}`);
		const data = settlement.audit ? auditData(settlement.audit) : undefined;
		const events = settlement.events ?? [];
		if (!settlement.audit && events.some(namesPendingAuditSeq)) {
			throw new StoreError(`settling operation ${id}: an event names the settlement's audit record (audit_seq 0) but none was given`);
		}
		const readState = this.sql("SELECT state FROM operations WHERE id = ?");
		const update = this.sql(
			"UPDATE operations SET state = @state, outcome = @outcome, audit_seq = @audit_seq, updated_at = @updated_at WHERE id = @id",
		);
		return (): AuditRow | undefined => {
			const row = readState.get(id) as { state: OperationRowState } | undefined;
			if (!row) throw new StoreError(`cannot settle operation ${id}: no such operation`);
			if (row.state !== "prepared" && row.state !== "dispatched") {
				throw new StoreError(`cannot settle operation ${id}: it is already ${row.state}`);
			}
			// A dispatched effect may have happened; calling it "not started" would be a lie.
			if (settlement.state === "abandoned" && row.state !== "prepared") {
				throw new StoreError(`cannot settle operation ${id} as abandoned: it was dispatched, so it may have happened`);
			}
			const record = settlement.audit && data ? this.insertAudit(settlement.audit, data) : undefined;
			update.run({
				id,
				state: settlement.state,
				outcome: outcomeJson,
				audit_seq: record?.seq ?? null,
				updated_at: this.now().toISOString(),
			});
			for (const event of events) {
				const filled = record ? fillAuditSeq(event, record.seq) : event;
				this.insertEvent(filled, toJson(filled, `an event settling operation ${id}`));
			}
			return record;
		};
	}

	async listPendingOperations(): Promise<StoredOperation[]> {
		this.readOwnWrites("operations");
		// The WHERE matches the partial index operations_pending word for word, so the planner can use it.
		const rows = this.sql(
			"SELECT * FROM operations WHERE state IN ('prepared', 'dispatched') ORDER BY created_at, rowid",
		).all() as OperationDbRow[];
		return rows.map(toOperation);
	}

	async listOperations(filter: { session?: string; call_id?: string; states?: readonly OperationRowState[]; limit?: number }): Promise<StoredOperation[]> {
		this.readOwnWrites("operations");
		const where: string[] = [];
		if (filter.session !== undefined) where.push("session = @session");
		if (filter.call_id !== undefined) where.push("call_id = @call_id");
		if (filter.states !== undefined) where.push("state IN (SELECT value FROM json_each(@states))");
		const rows = this.sql(
			`SELECT * FROM operations ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at, rowid LIMIT @limit`,
		).all({
			limit: limitOrAll(filter.limit),
			...(filter.session === undefined ? {} : { session: filter.session }),
			...(filter.call_id === undefined ? {} : { call_id: filter.call_id }),
			...(filter.states === undefined ? {} : { states: JSON.stringify(filter.states) }),
		}) as OperationDbRow[];
		return rows.map(toOperation);
	}

	async getBlob(sha256: string): Promise<Buffer | undefined> {
		const row = this.sql("SELECT bytes FROM blobs WHERE sha256 = ?").get(sha256) as { bytes: Buffer } | undefined;
		if (!row) return undefined;
		// Undo writes these bytes back into a workspace: an edited blob must not be restored.
		checkBlobHash(sha256, row.bytes, "the stored blob");
		return row.bytes;
	}

	async createTaskRun(row: TaskRunRow): Promise<void> {
		this.writable();
		const insert = this.sql(
			`INSERT INTO task_runs (id, session, state, attention, created_at, updated_at)
			 VALUES (@id, @session, @state, @attention, @created_at, @updated_at)`,
		);
		try {
			this.runNow(() =>
				insert.run({
					id: row.id,
					session: row.session,
					state: row.state,
					attention: row.attention ?? null,
					created_at: row.created_at,
					updated_at: row.updated_at,
				}),
			);
		} catch (error) {
			if ((error as { code?: unknown }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") throw new StoreError(`task run ${row.id} already exists`);
			throw error;
		}
	}

	async getTaskRun(id: string): Promise<TaskRunRow | undefined> {
		const row = this.sql("SELECT * FROM task_runs WHERE id = ?").get(id) as TaskRunDbRow | undefined;
		return row ? toTaskRun(row) : undefined;
	}

	async listTaskRuns(limit?: number): Promise<TaskRunRow[]> {
		const rows = this.sql("SELECT * FROM task_runs ORDER BY created_at DESC, rowid DESC LIMIT ?").all(limitOrAll(limit)) as TaskRunDbRow[];
		return rows.map(toTaskRun);
	}

	async updateTaskRun(id: string, change: { state: TaskRunState; attention?: string | null; updated_at: string }): Promise<void> {
		this.writable();
		// attention: a string sets it, null clears it, absent leaves it as it was.
		const update = this.sql(
			`UPDATE task_runs SET state = @state, updated_at = @updated_at,
			 attention = CASE WHEN @keep = 1 THEN attention ELSE @attention END WHERE id = @id`,
		);
		const result = this.runNow(() =>
			update.run({
				id,
				state: change.state,
				updated_at: change.updated_at,
				keep: change.attention === undefined ? 1 : 0,
				attention: change.attention ?? null,
			}),
		);
		if (result.changes === 0) throw new StoreError(`unknown task run ${id}`);
	}

	async recordRunCommand(row: Omit<RunCommandRow, "state" | "result">): Promise<{ row: RunCommandRow; inserted: boolean }> {
		this.writable();
		const insert = this.sql(
			`INSERT OR IGNORE INTO run_commands (run, command_id, kind, input, created_at)
			 VALUES (@run, @command_id, @kind, @input, @created_at)`,
		);
		const read = this.sql("SELECT * FROM run_commands WHERE run = ? AND command_id = ?");
		return this.runNow(() => {
			const inserted = insert.run({
				run: row.run,
				command_id: row.command_id,
				kind: row.kind,
				input: row.input ?? null,
				created_at: row.created_at,
			}).changes === 1;
			return { row: toRunCommand(read.get(row.run, row.command_id) as RunCommandDbRow), inserted };
		});
	}

	async finishRunCommand(run: string, commandId: string, result: Record<string, unknown>): Promise<void> {
		this.writable();
		const json = toJson(result, `result of command ${commandId} of run ${run}`);
		const update = this.sql("UPDATE run_commands SET state = 'done', result = ? WHERE run = ? AND command_id = ? AND state = 'accepted'");
		const read = this.sql("SELECT state FROM run_commands WHERE run = ? AND command_id = ?");
		this.runNow(() => {
			if (update.run(json, run, commandId).changes === 1) return;
			// A finished command's result is evidence of what it did; a second finish must not replace it.
			const known = read.get(run, commandId) as { state: string } | undefined;
			throw new StoreError(known ? `command ${commandId} of run ${run} is already done` : `no command ${commandId} in run ${run}`);
		});
	}

	async listRunCommands(run: string): Promise<RunCommandRow[]> {
		const rows = this.sql("SELECT * FROM run_commands WHERE run = ? ORDER BY rowid").all(run) as RunCommandDbRow[];
		return rows.map(toRunCommand);
	}

	/** "no such operation" or "it is <state>", for refusals. */
	private describeOperationRowState(id: string): string {
		const row = this.sql("SELECT state FROM operations WHERE id = ?").get(id) as { state: string } | undefined;
		return row ? `it is ${row.state}` : "no such operation";
	}

	async close(): Promise<void> {
		if (this.closed) return;
		// What is queued was asked for before close: it commits (and its callers hear) first.
		this.commits.flush();
		if (this.heartbeat) clearInterval(this.heartbeat);
		try {
			// What this process still owns is then a gone holder's: the next recovery settles it.
			if (this.holder) this.sql("DELETE FROM process_leases WHERE token = ?").run(this.holder.token);
		} catch {
			// Left in place, the row is judged by its pid like a crashed holder's.
		} finally {
			this.closed = true;
			this.db.close();
			this.lockWaits?.flush();
		}
	}

	/**
	 * One short write transaction, BEGIN IMMEDIATE: it takes the write lock before its first read,
	 * so what it reads (the chain's head, a row's state) cannot change under it. Another process's
	 * lock is waited out by SQLite's handler while the cores are saturated and by short sleeps while
	 * one is free (write-lock-wait.ts); a lock still held past the bound is refused in one line.
	 */
	private immediate<T>(body: () => T): T {
		const timing = this.lockWaits?.start();
		const transaction = this.db.transaction(() => {
			timing?.acquired();
			this.chainHead = undefined;
			this.chainMoved = false;
			const result = body();
			// The remembered head (which catches records removed from the end) is written once per transaction, as it stands at its end.
			if (this.chainMoved) {
				// Read again when a rolled-back write took its record back; an empty chain has no head to write.
				const head = this.chainHead ?? (this.sql("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").get() as { seq: number; hash: string } | undefined);
				if (head) {
					this.sql(
						"INSERT INTO audit_head (id, seq, hash) VALUES (1, @seq, @hash) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
					).run(head);
				}
			}
			return result;
		});
		const refuse = (error: unknown) =>
			new StoreError(`state dir ${this.stateDir}: the database stayed locked by another process for ${this.writeLockWait.boundMs / 1000} s (${oneLine(error)}); try again`);
		// On saturated cores SQLite's own handler waits inside each attempt (write-lock-wait.ts); inside a transaction the lock is held already.
		const short = !this.db.inTransaction && !this.cores.saturated();
		if (short) this.db.pragma("busy_timeout = 0");
		try {
			return retryWhileBusy(() => transaction.immediate(), { wait: this.writeLockWait, retryable: () => !this.db.inTransaction, onBusy: () => timing?.busy(), refuse });
		} finally {
			timing?.released();
			if (short && this.db.open) this.db.pragma(`busy_timeout = ${this.writeLockWait.boundMs}`);
		}
	}

	/** A write of the Store contract: queued, committed with whatever else is waiting, resolved once durable. */
	private write<T>(body: () => T, options?: WriteOptions, table?: string): Promise<T> {
		this.live();
		return options?.deferred ? this.commits.defer(body, table) : this.commits.enqueue(body, table);
	}

	/**
	 * A write that must be done before its caller goes on: committed now, in one transaction with
	 * every write queued before it, so the order writes were asked for is the order they commit.
	 */
	private runNow<T>(body: () => T): T {
		this.live();
		return this.commits.runNow(body);
	}

	/**
	 * Before a read of events, messages or audit records (the tables deferred writes go to): what
	 * is queued for that table (or for every table, without one) is committed first, so a reader
	 * sees every write this store was asked for.
	 */
	private readOwnWrites(table?: string): void {
		if (table === undefined ? this.commits.size > 0 : this.commits.holds(table)) this.commits.flush();
	}

	/** From now on, records how many writes each committed group held; returns the list it fills. */
	observeBatches(): number[] {
		this.batchSizes = [];
		return this.batchSizes;
	}

	private live(): Database {
		if (this.closed) throw new StoreError(`the store for state dir ${this.stateDir} is closed`);
		return this.db;
	}

	private writable(): Database {
		const db = this.live();
		if (this.readOnly) throw new StoreError(`the store for state dir ${this.stateDir} was opened read-only`);
		return db;
	}

	/** Prepared once per store and reused. */
	/**
	 * Runs one write in its own savepoint, so a refused write takes back only what it wrote. Spelled
	 * with cached statements: better-sqlite3's db.transaction(body) builds four wrapped functions
	 * per call, about 4.6 µs a write.
	 */
	private savepoint<T>(body: () => T): T {
		this.sql("SAVEPOINT write").run();
		let result: T;
		try {
			result = body();
		} catch (error) {
			// SQLite may have rolled the whole transaction back already (a full disk, say): nothing to take back then.
			if (this.db.inTransaction) {
				this.sql("ROLLBACK TO write").run();
				this.sql("RELEASE write").run();
			}
			throw error;
		}
		this.sql("RELEASE write").run();
		return result;
	}

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

function toApprovedRule(row: ApprovedRuleDbRow): ApprovedRuleRow {
	const rule: ApprovedRuleRow = {
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

/** A write asking for no commit of its own (CommitQueue.defer). */
const DEFERRED_WRITE: WriteOptions = { deferred: true };
const VERIFY_PAGE = 2048;

/** The seq a verification line starts with (VERIFY_LINE's text starts with its row's key), or is. */
function seqOfLine(line: string | number): number {
	return typeof line === "number" ? line : Number(line.slice(0, line.indexOf(" ")));
}

interface OperationDbRow {
	id: string;
	session: string;
	turn: number;
	call_id: string;
	kind: string;
	resource: string;
	state: OperationRowState;
	intent: string;
	reserved: string;
	consumed: string | null;
	outcome: string | null;
	audit_seq: number | null;
	created_at: string;
	updated_at: string;
}

function toOperation(row: OperationDbRow): StoredOperation {
	const what = `operation ${row.id}`;
	const op: StoredOperation = {
		id: row.id,
		session: row.session,
		turn: row.turn,
		call_id: row.call_id,
		kind: row.kind,
		resource: row.resource,
		intent: fromJson(row.intent, `${what} intent`) as Record<string, unknown>,
		reserved: fromJson(row.reserved, `${what} reservations`) as Record<string, number>,
		created_at: row.created_at,
		state: row.state,
		updated_at: row.updated_at,
	};
	if (row.outcome !== null) op.outcome = fromJson(row.outcome, `${what} outcome`) as Record<string, unknown>;
	if (row.audit_seq !== null) op.audit_seq = row.audit_seq;
	if (row.consumed !== null) op.consumed = fromJson(row.consumed, `${what} consumed authority`) as object;
	return op;
}

interface TaskRunDbRow {
	id: string;
	session: string;
	state: TaskRunState;
	attention: string | null;
	created_at: string;
	updated_at: string;
}

function toTaskRun(row: TaskRunDbRow): TaskRunRow {
	const run: TaskRunRow = { id: row.id, session: row.session, state: row.state, created_at: row.created_at, updated_at: row.updated_at };
	if (row.attention !== null) run.attention = row.attention;
	return run;
}

interface RunCommandDbRow {
	run: string;
	command_id: string;
	kind: RunCommandRow["kind"];
	input: string | null;
	state: RunCommandRow["state"];
	result: string | null;
	created_at: string;
}

function toRunCommand(row: RunCommandDbRow): RunCommandRow {
	const command: RunCommandRow = { run: row.run, command_id: row.command_id, kind: row.kind, state: row.state, created_at: row.created_at };
	if (row.input !== null) command.input = row.input;
	if (row.result !== null) command.result = fromJson(row.result, `result of command ${row.command_id} of run ${row.run}`) as Record<string, unknown>;
	return command;
}

/** The data as it will be read back (JSON drops undefined and applies toJSON), so the hash covers exactly that. */
function auditData(input: AuditRowInput): Record<string, unknown> {
	const data = JSON.parse(toJson(input.data, "audit data")) as unknown;
	if (data === null || typeof data !== "object" || Array.isArray(data)) throw new StoreError("audit data must be a JSON object");
	return data as Record<string, unknown>;
}

/** An event whose payload waits for the settlement's audit seq (audit_seq: 0). */
function namesPendingAuditSeq(event: EventRow): boolean {
	return (event.payload as Record<string, unknown>).audit_seq === 0;
}

function fillAuditSeq(event: EventRow, seq: number): EventRow {
	if (!namesPendingAuditSeq(event)) return event;
	return { ...event, payload: { ...event.payload, audit_seq: seq } } as EventRow;
}

function checkBlobHash(sha256: string, bytes: Buffer, what: string): void {
	const actual = createHash("sha256").update(bytes).digest("hex");
	if (actual !== sha256) throw new StoreError(`${what} does not match its hash (sha256 ${sha256.slice(0, 12)}, content ${actual.slice(0, 12)})`);
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
