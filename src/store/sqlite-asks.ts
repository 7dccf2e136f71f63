/**
 * The `asks` table in SQLite (schema versions 11 and 14). Each answer is one conditional UPDATE (`WHERE
 * answer IS NULL AND expired_at IS NULL`) inside an IMMEDIATE transaction that also checks the
 * asker's lease, so two surfaces answering at once cannot both land and no answer lands on the ask
 * of a process that is gone.
 */
import type { AskClaim, AskRow, AskStore, NewAskRow } from "./ask-rows.js";
import { notPendingError, pastExpiry } from "./ask-rows.js";
import type { SqliteAccess } from "./sqlite-mcp-pins.js";

export interface SqliteAskAccess extends SqliteAccess {
	/** This process's lease token (throws for a reader). */
	ownToken(): string;
	/** Why the lease `token` no longer holds (absent, or its process gone); undefined while it is live. */
	ownerGone(token: string | null): string | undefined;
}

interface AskDbRow {
	id: string;
	session: string;
	call_id: string;
	kind: string;
	body: string;
	owner: string | null;
	created_at: string;
	expires_at: string | null;
	answer: string | null;
	answered_by: string | null;
	answered_at: string | null;
	answer_content: string | null;
	expired_at: string | null;
	expired_why: string | null;
}

function toRow(db: AskDbRow): AskRow {
	const row: AskRow = {
		id: db.id,
		session: db.session,
		call_id: db.call_id,
		kind: db.kind,
		body: JSON.parse(db.body) as Record<string, unknown>,
		created_at: db.created_at,
		state: db.answer !== null ? "answered" : db.expired_at !== null ? "expired" : "pending",
	};
	if (db.expires_at !== null) row.expires_at = db.expires_at;
	if (db.answer !== null) row.answer = db.answer;
	if (db.answered_by !== null) row.answered_by = db.answered_by;
	if (db.answered_at !== null) row.answered_at = db.answered_at;
	if (db.answer_content !== null) row.answer_content = JSON.parse(db.answer_content) as Record<string, unknown>;
	if (db.expired_at !== null) row.expired_at = db.expired_at;
	if (db.expired_why !== null) row.expired_why = db.expired_why;
	return row;
}

const OPEN = "answer IS NULL AND expired_at IS NULL";

export class SqliteAsks implements AskStore {
	constructor(private readonly db: SqliteAskAccess) {}

	open(row: NewAskRow): AskRow {
		this.db.writable();
		const owner = this.db.ownToken();
		return this.db.immediate(() =>
			toRow(
				this.db
					.sql(
						`INSERT INTO asks (id, session, call_id, kind, body, owner, created_at, expires_at)
						 VALUES (@id, @session, @call_id, @kind, @body, @owner, @created_at, @expires_at) RETURNING *`,
					)
					.get({ ...row, body: JSON.stringify(row.body), owner, expires_at: row.expires_at ?? null }) as AskDbRow,
			),
		);
	}

	get(id: string): AskRow | undefined {
		const row = this.db.sql("SELECT * FROM asks WHERE id = ?").get(id) as AskDbRow | undefined;
		return row && toRow(row);
	}

	pending(at: string): AskRow[] {
		const rows = this.db.sql(`SELECT * FROM asks WHERE ${OPEN} ORDER BY created_at, rowid`).all() as AskDbRow[];
		return rows.filter((r) => this.db.ownerGone(r.owner) === undefined).map(toRow).filter((r) => !pastExpiry(r, at));
	}

	answer(id: string, answer: string, by: string, at: string, content?: Record<string, unknown>): AskClaim {
		this.db.writable();
		return this.db.immediate((): AskClaim => {
			const found = this.db.sql("SELECT * FROM asks WHERE id = ?").get(id) as AskDbRow | undefined;
			if (!found) return { ok: false, error: `unknown ask ${id}` };
			const row = toRow(found);
			if (row.state === "pending") {
				const gone = this.db.ownerGone(found.owner);
				const why = gone !== undefined ? `the process that asked is gone (${gone})` : pastExpiry(row, at) ? "its time ran out before an answer came" : undefined;
				if (why !== undefined) {
					const expired = this.expireNow(id, why, at) ?? row;
					return { ok: false, error: notPendingError(expired), row: expired };
				}
			}
			const updated = this.db
				.sql(`UPDATE asks SET answer = @answer, answered_by = @by, answered_at = @at, answer_content = @content WHERE id = @id AND ${OPEN} RETURNING *`)
				.get({ id, answer, by, at, content: content === undefined ? null : JSON.stringify(content) }) as AskDbRow | undefined;
			if (updated) return { ok: true, row: toRow(updated) };
			return { ok: false, error: notPendingError(row), row };
		});
	}

	forgetContent(id: string): void {
		this.db.writable();
		this.db.immediate(() => this.db.sql("UPDATE asks SET answer_content = NULL WHERE id = ?").run(id));
	}

	expire(id: string, why: string, at: string): AskRow | undefined {
		this.db.writable();
		return this.db.immediate(() => this.expireNow(id, why, at));
	}

	private expireNow(id: string, why: string, at: string): AskRow | undefined {
		this.db.sql(`UPDATE asks SET expired_at = @at, expired_why = @why WHERE id = @id AND ${OPEN}`).run({ id, why, at });
		const row = this.db.sql("SELECT * FROM asks WHERE id = ?").get(id) as AskDbRow | undefined;
		return row && toRow(row);
	}
}

/** Inside recovery's transaction: the pending asks of every lease not in `live` can never be answered. */
export const EXPIRE_ORPHANED_ASKS = `UPDATE asks SET expired_at = @at, expired_why = 'the process that asked is gone'
	WHERE ${OPEN} AND (owner IS NULL OR owner NOT IN (SELECT value FROM json_each(@live)))`;
