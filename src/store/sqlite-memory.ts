/**
 * The memory tables in SQLite (schema version 10): `memory_records`, and `memory_fts`, an FTS5
 * index over their title, tags, content and path hints kept in step by triggers. Each write is one
 * short IMMEDIATE transaction; a governed write or forget goes through the store's commit queue
 * with its audit record and event, in one savepoint of that queue's transaction. Relevance is
 * FTS5's bm25 with title and tags weighted above content.
 */
import type { Statement } from "better-sqlite3";
import type { MemoryCandidate, MemoryCommitted, MemoryEvidence, MemoryFilter, MemoryMatch, MemoryMatchQuery, MemoryRow, MemoryRowStore, MemoryScopeKey } from "./memory-rows.js";
import { memoryWords } from "./memory-rows.js";
import type { LabelRules } from "./store-rules.js";
import { type AuditRow, type AuditRowInput, type EventRow, StoreError, type WriteOptions } from "./store.js";
import { labelFromJson, labelToJson } from "./stored-label.js";

export interface SqliteMemoryAccess {
	sql(source: string): Statement<unknown[]>;
	immediate<T>(body: () => T): T;
	/** Throws when the store was opened read-only. */
	writable(): void;
	labels: LabelRules;
	/** A write of the Store contract: queued with the others, in a savepoint of their transaction, resolved once durable. */
	write<T>(body: () => T): Promise<T>;
	/** Like write, committed with the next write that asks for a commit or at the next barrier. */
	defer<T>(body: () => T): Promise<T>;
	/** Commits what is deferred for memory_records, so a read sees every write this store was asked for. */
	readOwnWrites(): void;
	/** Chains the audit record and appends the events after it, inside the running transaction. */
	evidence(audit: AuditRowInput, events: readonly EventRow[]): AuditRow;
}

interface MemoryDbRow {
	id: string;
	scope: MemoryRow["scope"];
	scope_key: string;
	namespace: string;
	kind: MemoryRow["kind"];
	title: string;
	tags: string;
	content: string;
	path_hints: string;
	metadata: string;
	created_at: string;
	updated_at: string;
	expires_at: string | null;
	stale: number;
	label: string;
	written_by_session: string;
	written_by_call: string | null;
	embedding_model: string | null;
}

/**
 * The index's rank: bm25 with title and tags weighted above content and path hints (in the
 * index's column order), set once as the table's rank function so `ORDER BY rank` takes FTS5's
 * fast path for a top-n query.
 */
export const MEMORY_RANK = "bm25(4.0, 3.0, 1.0, 1.0)";

/** The same function called by name on the index, as a query's own column. */
const BM25_CALL = MEMORY_RANK.replace("bm25(", "bm25(memory_fts, ");

/**
 * Candidates first taken from the index per result asked for; widened while filters leave too few.
 * A little over one: each extra hit is a row read and filtered, and the filters refuse few.
 */
const WINDOW_PER_RESULT = 1.2;
const WIDEN = 8;
const MAX_WINDOW = 1 << 16;


const COLUMNS = `r.id, r.scope, r.scope_key, r.namespace, r.kind, r.title, r.tags, r.content, r.path_hints, r.metadata,
	r.created_at, r.updated_at, r.expires_at, r.stale, r.label, r.written_by_session, r.written_by_call, r.embedding_model`;

/** The audit data with the ids a commit changed under `field`, when it changed any. */
function withIds(audit: AuditRowInput, field: "superseded" | "restored", ids: readonly string[]): AuditRowInput {
	return ids.length === 0 ? audit : { ...audit, data: { ...audit.data, [field]: ids } };
}

/** The FTS5 query for rows holding any of the words: each one quoted, so no word is read as an operator. */
export function ftsAnyOf(terms: readonly string[]): string {
	const words = [...new Set(terms.flatMap((t) => memoryWords(t)))];
	return words.map((w) => `"${w}"`).join(" OR ");
}

/** The WHERE clause and its parameters for a filter (the scope list and namespaces as positional parameters). */
function where(filter: MemoryFilter): { clause: string; params: unknown[] } {
	const params: unknown[] = [];
	const parts: string[] = [];
	parts.push(`(${filter.scopes.map(() => "(r.scope = ? AND r.scope_key = ?)").join(" OR ") || "0"})`);
	for (const s of filter.scopes) params.push(s.scope, s.scope_key);
	if (filter.namespaces !== undefined) {
		parts.push(`r.namespace IN (${filter.namespaces.map(() => "?").join(", ") || "NULL"})`);
		params.push(...filter.namespaces);
	}
	if (filter.kind !== undefined) {
		parts.push("r.kind = ?");
		params.push(filter.kind);
	}
	if (filter.now !== undefined) {
		parts.push("(r.expires_at IS NULL OR r.expires_at > ?)");
		params.push(filter.now);
	}
	if (filter.includeStale !== true) parts.push("r.stale = 0");
	return { clause: parts.join(" AND "), params };
}

function limitOf(filter: MemoryFilter, fallback: number): number {
	const limit = filter.limit ?? fallback;
	if (!Number.isInteger(limit) || limit < 1) throw new StoreError(`a memory query's limit must be a positive whole number, got ${String(filter.limit)}`);
	return limit;
}

function jsonList(value: readonly string[], what: string): string {
	if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw new StoreError(`${what} must be a list of strings`);
	return JSON.stringify(value);
}

interface TitleKey {
	id: string;
	scope: string;
	scope_key: string;
	namespace: string;
	title: string;
}

/** A hit as ranking reads it, holding the row as read until complete() parses the rest. */
class SqliteCandidate implements MemoryCandidate {
	readonly id: string;
	readonly title: string;
	readonly tags: string[];
	readonly content: string;
	readonly path_hints: string[];
	readonly updated_at: string;
	readonly stale: boolean;
	readonly relevance: number;
	readonly #row: MemoryDbRow;

	constructor(r: MemoryDbRow & { relevance: number }) {
		this.id = r.id;
		this.title = r.title;
		this.tags = JSON.parse(r.tags) as string[];
		this.content = r.content;
		this.path_hints = JSON.parse(r.path_hints) as string[];
		this.updated_at = r.updated_at;
		this.stale = r.stale === 1;
		this.relevance = r.relevance;
		this.#row = r;
	}

	get row(): MemoryDbRow {
		return this.#row;
	}
}

export class SqliteMemory implements MemoryRowStore {
	constructor(private readonly db: SqliteMemoryAccess) {}

	/** `lists`: the tags and path hints, when already parsed. */
	private toRow(row: MemoryDbRow, lists?: { tags: string[]; path_hints: string[] }): MemoryRow {
		const out: MemoryRow = {
			id: row.id,
			scope: row.scope,
			scope_key: row.scope_key,
			namespace: row.namespace,
			kind: row.kind,
			title: row.title,
			tags: lists ? [...lists.tags] : (JSON.parse(row.tags) as string[]),
			content: row.content,
			path_hints: lists ? [...lists.path_hints] : (JSON.parse(row.path_hints) as string[]),
			metadata: JSON.parse(row.metadata) as Record<string, unknown>,
			created_at: row.created_at,
			updated_at: row.updated_at,
			stale: row.stale === 1,
			label: labelFromJson(this.db.labels, row.label, `memory record ${row.id}`),
			written_by_session: row.written_by_session,
		};
		if (row.expires_at !== null) out.expires_at = row.expires_at;
		if (row.written_by_call !== null) out.written_by_call = row.written_by_call;
		if (row.embedding_model !== null) out.embedding_model = row.embedding_model;
		return out;
	}

	private params(row: MemoryRow, embedding?: Float32Array) {
		return {
			id: row.id,
			scope: row.scope,
			scope_key: row.scope_key,
			namespace: row.namespace,
			kind: row.kind,
			title: row.title,
			tags: jsonList(row.tags, `memory record ${row.id}: tags`),
			content: row.content,
			path_hints: jsonList(row.path_hints, `memory record ${row.id}: path_hints`),
			metadata: JSON.stringify(row.metadata),
			created_at: row.created_at,
			updated_at: row.updated_at,
			expires_at: row.expires_at ?? null,
			stale: row.stale ? 1 : 0,
			label: labelToJson(this.db.labels, row.label, `memory record ${row.id}`),
			written_by_session: row.written_by_session,
			written_by_call: row.written_by_call ?? null,
			embedding: embedding ? Buffer.from(embedding.buffer, embedding.byteOffset, embedding.byteLength) : null,
			embedding_model: embedding ? (row.embedding_model ?? null) : null,
		};
	}

	private insert(params: ReturnType<SqliteMemory["params"]>): void {
		if (this.db.sql("SELECT 1 FROM memory_records WHERE id = ?").get(params.id) !== undefined) throw new StoreError(`memory record ${params.id} already exists`);
		this.db
			.sql(
				`INSERT INTO memory_records (id, scope, scope_key, namespace, kind, title, tags, content, path_hints, metadata, created_at, updated_at,
					expires_at, stale, label, written_by_session, written_by_call, embedding, embedding_model)
				 VALUES (@id, @scope, @scope_key, @namespace, @kind, @title, @tags, @content, @path_hints, @metadata, @created_at, @updated_at,
					@expires_at, @stale, @label, @written_by_session, @written_by_call, @embedding, @embedding_model)`,
			)
			.run(params);
	}

	async put(row: MemoryRow, embedding?: Float32Array, options?: WriteOptions): Promise<void> {
		this.db.writable();
		const params = this.params(row, embedding);
		if (options?.deferred) await this.db.defer(() => this.insert(params));
		else this.db.immediate(() => this.insert(params));
	}

	async putMany(rows: readonly MemoryRow[]): Promise<void> {
		this.db.writable();
		const all = rows.map((r) => this.params(r));
		this.db.immediate(() => {
			for (const params of all) this.insert(params);
		});
	}

	async get(id: string): Promise<MemoryRow | undefined> {
		this.db.readOwnWrites();
		const row = this.db.sql(`SELECT ${COLUMNS} FROM memory_records r WHERE r.id = ?`).get(id) as MemoryDbRow | undefined;
		return row ? this.toRow(row) : undefined;
	}

	async list(filter: MemoryFilter): Promise<MemoryRow[]> {
		this.db.readOwnWrites();
		const w = where(filter);
		const rows = this.db.sql(`SELECT ${COLUMNS} FROM memory_records r WHERE ${w.clause} ORDER BY r.updated_at DESC, r.rowid DESC LIMIT ?`).all(...w.params, limitOf(filter, 1000)) as MemoryDbRow[];
		return rows.map((r) => this.toRow(r));
	}

	/**
	 * The index ranks first and only the best `window` hits are joined to their rows and filtered
	 * (scopes, namespaces, kind, expiry, stale) in the same statement; when the filters leave fewer
	 * than asked, the window widens, and past MAX_WINDOW every hit is filtered: the result is the same
	 * as filtering all hits. The window ranks by the rank function called by name (BM25_CALL), ties by
	 * rowid as FTS5's own rank order breaks them: FTS5 then scores each hit once, where `ORDER BY
	 * rank` with the rank column read scores the hits handed out a second time, and computes the
	 * terms' document frequencies again to do it. CROSS JOIN keeps the index's hits outermost:
	 * otherwise the planner may walk every row of a scope.
	 */
	private hits(query: MemoryMatchQuery): (MemoryDbRow & { relevance: number })[] {
		const match = ftsAnyOf(query.terms);
		if (match === "") return [];
		const w = where(query);
		const limit = limitOf(query, 50);
		const statement = this.db.sql(`SELECT ${COLUMNS}, -f.score AS relevance
			FROM (SELECT rowid AS hit, ${BM25_CALL} AS score FROM memory_fts WHERE memory_fts MATCH ? ORDER BY score, rowid LIMIT ?) f
			CROSS JOIN memory_records r ON r.rowid = f.hit WHERE ${w.clause} ORDER BY f.score, f.hit LIMIT ?`);
		for (let window = Math.ceil(limit * WINDOW_PER_RESULT); ; window *= WIDEN) {
			const bounded = window <= MAX_WINDOW;
			const rows = statement.all(match, bounded ? window : -1, ...w.params, limit) as (MemoryDbRow & { relevance: number })[];
			if (rows.length >= limit || !bounded) return rows;
			// Fewer hits than the window held means the index has no more: filtering further finds nothing new.
			const hits = (this.db.sql("SELECT count(*) AS n FROM (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)").get(match, window) as { n: number }).n;
			if (hits < window) return rows;
		}
	}

	async match(query: MemoryMatchQuery): Promise<MemoryMatch[]> {
		this.db.readOwnWrites();
		return this.hits(query).map((r) => ({ row: this.toRow(r), relevance: r.relevance }));
	}

	/**
	 * The rest of each row (label, metadata, writer) comes in the same statement: reading it again
	 * for the top hits cost more than reading it here. It is parsed and checked in complete(), for
	 * the hits handed back only.
	 */
	async candidates(query: MemoryMatchQuery): Promise<MemoryCandidate[]> {
		this.db.readOwnWrites();
		return this.hits(query).map((r) => new SqliteCandidate(r));
	}

	async complete(candidates: readonly MemoryCandidate[]): Promise<MemoryRow[]> {
		this.db.readOwnWrites();
		const missing = candidates.filter((c) => !(c instanceof SqliteCandidate)).map((c) => c.id);
		const read = new Map<string, MemoryDbRow>();
		if (missing.length > 0) {
			// One statement for any number of ids: the list is one JSON parameter.
			const rows = this.db.sql(`SELECT ${COLUMNS} FROM json_each(?) j CROSS JOIN memory_records r ON r.id = j.value`).all(JSON.stringify(missing)) as MemoryDbRow[];
			for (const r of rows) read.set(r.id, r);
		}
		return candidates.flatMap((c) => {
			const r = c instanceof SqliteCandidate ? c.row : read.get(c.id);
			return r ? [this.toRow(r, c)] : [];
		});
	}

	async embeddings(filter: MemoryFilter): Promise<{ id: string; vector: Float32Array }[]> {
		this.db.readOwnWrites();
		const w = where(filter);
		const rows = this.db.sql(`SELECT r.id, r.embedding FROM memory_records r WHERE r.embedding IS NOT NULL AND ${w.clause} LIMIT ?`).all(...w.params, limitOf(filter, 10_000)) as {
			id: string;
			embedding: Buffer;
		}[];
		return rows.map((r) => ({ id: r.id, vector: new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength)) }));
	}

	async markStale(ids: readonly string[], stale: boolean, at: string): Promise<MemoryRow[]> {
		this.db.writable();
		const changed = this.db.immediate(() =>
			ids.flatMap((id) => {
				const hit = this.db.sql("UPDATE memory_records SET stale = ?, updated_at = ? WHERE id = ? AND stale != ? RETURNING id").get(stale ? 1 : 0, at, id, stale ? 1 : 0) as { id: string } | undefined;
				return hit ? [hit.id] : [];
			}),
		);
		const rows = await Promise.all(changed.map((id) => this.get(id)));
		return rows.filter((r): r is MemoryRow => r !== undefined);
	}

	async forget(id: string): Promise<MemoryRow | undefined> {
		this.db.writable();
		return this.db.immediate(() => {
			const row = this.db.sql(`SELECT ${COLUMNS} FROM memory_records r WHERE r.id = ?`).get(id) as MemoryDbRow | undefined;
			if (!row) return undefined;
			this.db.sql("DELETE FROM memory_records WHERE id = ?").run(id);
			return this.toRow(row);
		});
	}

	async commitWrite(row: MemoryRow, embedding: Float32Array | undefined, evidence: MemoryEvidence): Promise<MemoryCommitted> {
		this.db.writable();
		const params = this.params(row, embedding);
		return this.db.write(() => {
			const older = this.liveOfTitle(row).map((r) => r.id);
			this.insert(params);
			const superseded = older.filter((id) => this.setStale(id, true, row.created_at));
			return { audit: this.db.evidence(withIds(evidence.audit, "superseded", superseded), evidence.events ?? []), superseded, restored: [] };
		});
	}

	async commitForget(id: string, restore: readonly string[], at: string, evidence: MemoryEvidence): Promise<MemoryCommitted> {
		this.db.writable();
		return this.db.write(() => {
			if (this.db.sql("DELETE FROM memory_records WHERE id = ? RETURNING id").get(id) === undefined) throw new StoreError(`memory record ${id} does not exist`);
			// Decided before any is marked: a title whose live row is another's keeps every restore of it stale.
			const restorable = restore.filter((rid) => {
				const r = this.db.sql("SELECT id, scope, scope_key, namespace, title FROM memory_records WHERE id = ? AND stale = 1").get(rid) as TitleKey | undefined;
				return r !== undefined && this.liveOfTitle(r).length === 0;
			});
			const restored = restorable.filter((rid) => this.setStale(rid, false, at));
			return { audit: this.db.evidence(withIds(evidence.audit, "restored", restored), evidence.events ?? []), superseded: [], restored };
		});
	}

	private liveOfTitle(key: Omit<TitleKey, "id">): { id: string }[] {
		return this.db
			.sql("SELECT id FROM memory_records WHERE scope = ? AND scope_key = ? AND namespace = ? AND title = ? AND stale = 0 ORDER BY rowid")
			.all(key.scope, key.scope_key, key.namespace, key.title) as { id: string }[];
	}

	/** Inside the caller's transaction; whether the flag changed. */
	private setStale(id: string, stale: boolean, at: string): boolean {
		return this.db.sql("UPDATE memory_records SET stale = ?, updated_at = ? WHERE id = ? AND stale != ? RETURNING id").get(stale ? 1 : 0, at, id, stale ? 1 : 0) !== undefined;
	}

	async sameTitle(key: MemoryScopeKey & { namespace: string; title: string }): Promise<MemoryRow[]> {
		this.db.readOwnWrites();
		const rows = this.db
			.sql(`SELECT ${COLUMNS} FROM memory_records r WHERE r.scope = ? AND r.scope_key = ? AND r.namespace = ? AND r.title = ? AND r.stale = 0 ORDER BY r.rowid`)
			.all(key.scope, key.scope_key, key.namespace, key.title) as MemoryDbRow[];
		return rows.map((r) => this.toRow(r));
	}
}

/** Migration 10's statements (src/store/sqlite-migrations.ts runs them). */
export const MEMORY_SCHEMA = `
	CREATE TABLE memory_records (
		rowid INTEGER PRIMARY KEY,
		id TEXT NOT NULL UNIQUE,
		scope TEXT NOT NULL CHECK (scope IN ('user', 'project', 'session')),
		scope_key TEXT NOT NULL,
		namespace TEXT NOT NULL,
		kind TEXT NOT NULL CHECK (kind IN ('note', 'outcome')),
		title TEXT NOT NULL,
		tags TEXT NOT NULL CHECK (json_valid(tags)),
		content TEXT NOT NULL,
		path_hints TEXT NOT NULL CHECK (json_valid(path_hints)),
		metadata TEXT NOT NULL CHECK (json_valid(metadata)),
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL,
		expires_at TEXT,
		stale INTEGER NOT NULL DEFAULT 0 CHECK (stale IN (0, 1)),
		label TEXT NOT NULL CHECK (json_valid(label)),
		written_by_session TEXT NOT NULL,
		written_by_call TEXT,
		embedding BLOB,
		embedding_model TEXT
	);
	CREATE INDEX memory_scope ON memory_records (scope, scope_key, namespace, updated_at);
	CREATE VIRTUAL TABLE memory_fts USING fts5(title, tags, content, path_hints, content = 'memory_records', content_rowid = 'rowid', tokenize = 'unicode61');
	INSERT INTO memory_fts (memory_fts, rank) VALUES ('rank', '${MEMORY_RANK}');
	CREATE TRIGGER memory_fts_insert AFTER INSERT ON memory_records BEGIN
		INSERT INTO memory_fts (rowid, title, tags, content, path_hints) VALUES (new.rowid, new.title, new.tags, new.content, new.path_hints);
	END;
	CREATE TRIGGER memory_fts_delete AFTER DELETE ON memory_records BEGIN
		INSERT INTO memory_fts (memory_fts, rowid, title, tags, content, path_hints) VALUES ('delete', old.rowid, old.title, old.tags, old.content, old.path_hints);
	END;
	CREATE TRIGGER memory_fts_update AFTER UPDATE OF title, tags, content, path_hints ON memory_records BEGIN
		INSERT INTO memory_fts (memory_fts, rowid, title, tags, content, path_hints) VALUES ('delete', old.rowid, old.title, old.tags, old.content, old.path_hints);
		INSERT INTO memory_fts (rowid, title, tags, content, path_hints) VALUES (new.rowid, new.title, new.tags, new.content, new.path_hints);
	END;
`;
