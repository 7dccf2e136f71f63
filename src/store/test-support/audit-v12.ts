/**
 * Undoing migration 13 in a test: the audit table back in its version-12 shape (nine plain
 * columns, each record's values as its line holds them), so a test can stand in for a database
 * an older Warden wrote and watch it migrate.
 */
import type Database from "better-sqlite3";
import { lineColumns } from "../sqlite-audit-table.js";
import { V1_AUDIT_TABLE } from "../sqlite-migrations.js";

/** Undoes migration 13 (the schema version is left to the caller): the records keep their values. */
export function dropVersion13(db: Database.Database): void {
	const lines = db.prepare("SELECT line FROM audit ORDER BY seq").pluck().all();
	db.exec(`DROP TABLE audit; ${V1_AUDIT_TABLE}`);
	const hasFormat = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'audit_format'").get() !== undefined;
	if (hasFormat) db.exec("ALTER TABLE audit_format DROP COLUMN line_from");
	const insert = db.prepare("INSERT INTO audit (seq, time, session, turn, kind, call_id, data, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
	for (const line of lines) {
		const columns = lineColumns(line);
		if (typeof columns === "string") throw new Error(`dropVersion13: ${columns}`);
		insert.run(...columns);
	}
}

/** Inserts rows into a version-12 audit table, each with its nine values. */
export function insertV12Rows(db: Database.Database, rows: readonly { seq: number; time: string; session: string; turn: number; kind: string; call_id?: string; data: string; prev_hash: string; hash: string }[]): void {
	const insert = db.prepare(
		"INSERT INTO audit (seq, time, session, turn, kind, call_id, data, prev_hash, hash) VALUES (@seq, @time, @session, @turn, @kind, @call_id, @data, @prev_hash, @hash)",
	);
	for (const row of rows) insert.run({ ...row, call_id: row.call_id ?? null });
}
