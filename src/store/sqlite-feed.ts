/**
 * Keyset reads for a reader that follows the store while other processes write it: events by their
 * rowid (one global key: SQLite has one writer at a time, so rowids grow in commit order and no
 * committed row ever appears below one already read) and audit records by seq, both through their
 * primary keys, so a read costs the same at a million rows as at ten thousand.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { oneLine } from "./sqlite-errors.js";
import { DB_FILE } from "./sqlite-open.js";
import { storedRecord } from "./sqlite-audit-table.js";
import { StoreError } from "./store.js";

export interface FeedEventRow {
	/** The global position: the events table's rowid. */
	id: number;
	session: string;
	seq: number;
	turn: number;
	kind: string;
	time: string;
	/** The event as appended (kind, session, turn, time, payload). */
	event: unknown;
}

export interface FeedFilter {
	session?: string;
	kind?: string;
	/** A permission.decided event's decision (allow, deny, ask, …); other kinds never match it. */
	decision?: string;
}

export interface FeedBatch {
	rows: FeedEventRow[];
	/** Where the next read starts: past every row this read looked at, matched or not. */
	cursor: number;
	/** True when the read stopped at its limit: more rows wait after the cursor. */
	more: boolean;
}

export interface AuditPageRow {
	seq: number;
	time: string;
	session: string;
	turn: number;
	kind: string;
	call_id?: string;
	data: unknown;
	hash: string;
}

export class SqliteFeed {
	private readonly db: Database.Database;

	private constructor(
		db: Database.Database,
		/** The WAL file every commit of another process writes to first: what a watcher wakes on. */
		readonly walPath: string,
	) {
		this.db = db;
	}

	/** Opens warden.db of the state dir for reading only; the file must exist (a Store opened it first). */
	static open(stateDir: string): SqliteFeed {
		const path = join(stateDir, DB_FILE);
		let db: Database.Database;
		try {
			db = new Database(path, { readonly: true, fileMustExist: true });
			db.pragma("busy_timeout = 5000");
		} catch (error) {
			throw new StoreError(`state dir ${stateDir}: ${DB_FILE} cannot be read (${oneLine(error)})`);
		}
		return new SqliteFeed(db, `${path}-wal`);
	}

	/** The newest event's position, 0 for none. */
	lastEventId(): number {
		const row = this.db.prepare("SELECT COALESCE(MAX(rowid), 0) AS id FROM events").get() as { id: number };
		return row.id;
	}

	/** The position just before the newest `count` events: where a fresh follower's backlog starts. */
	tailStart(count: number): number {
		const row = this.db.prepare("SELECT COALESCE(MIN(rowid), 1) - 1 AS id FROM (SELECT rowid FROM events ORDER BY rowid DESC LIMIT ?)").get(count) as { id: number };
		return Math.max(0, row.id);
	}

	/**
	 * Events after `after`, oldest first, up to `limit` rows looked at. The upper bound is read in
	 * the same transaction, so the cursor moves past rows the filter skipped and never past one
	 * this read did not see.
	 */
	eventsAfter(after: number, limit: number, filter: FeedFilter = {}): FeedBatch {
		return this.db.transaction((): FeedBatch => {
			const top = this.db.prepare("SELECT rowid AS id FROM events WHERE rowid > ? ORDER BY rowid LIMIT 1 OFFSET ?").get(after, limit - 1) as
				| { id: number }
				| undefined;
			const upper = top?.id ?? this.lastEventId();
			if (upper <= after) return { rows: [], cursor: after, more: false };
			const where = ["rowid > @after", "rowid <= @upper"];
			if (filter.session !== undefined) where.push("session = @session");
			if (filter.kind !== undefined) where.push("kind = @kind");
			if (filter.decision !== undefined) where.push("kind = 'permission.decided' AND json_extract(json, '$.payload.decision') = @decision");
			const rows = this.db
				.prepare(`SELECT rowid AS id, session, seq, turn, kind, time, json FROM events WHERE ${where.join(" AND ")} ORDER BY rowid`)
				.all({ after, upper, ...defined(filter) }) as { id: number; session: string; seq: number; turn: number; kind: string; time: string; json: string }[];
			return { rows: rows.map(({ json, ...row }) => ({ ...row, event: JSON.parse(json) as unknown })), cursor: upper, more: top !== undefined };
		}).deferred();
	}

	/** Newest first: the `limit` records before `before` (all when absent), of one session if given. */
	auditPage(options: { before?: number; limit: number; session?: string }): AuditPageRow[] {
		const where = ["seq < @before"];
		if (options.session !== undefined) where.push("session = @session");
		const rows = this.db
			.prepare(`SELECT seq, line FROM audit WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT @limit`)
			.all({ before: options.before ?? Number.MAX_SAFE_INTEGER, limit: options.limit, ...(options.session === undefined ? {} : { session: options.session }) }) as { seq: number; line: unknown }[];
		return rows.map((row) => {
			const { prev_hash: _prev, ...page } = storedRecord(row.seq, row.line, options.session);
			return page;
		});
	}

	close(): void {
		this.db.close();
	}
}

/** Only the filter's set fields: SQLite binds each named parameter the statement names, and no other. */
function defined(filter: FeedFilter): Record<string, string> {
	return Object.fromEntries(Object.entries(filter).filter((e): e is [string, string] => typeof e[1] === "string"));
}
