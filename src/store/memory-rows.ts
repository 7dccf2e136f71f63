/**
 * Rows of the memory tables (schema version 10): records an agent or the runtime kept for later,
 * in a scope (user, project, session) and a namespace, with the flow label of what each was written
 * from. The store keeps and finds rows; what a record may be used for, how hits are ranked and who
 * may read a scope are decided above it (src/kernel/memory).
 */
import type { AuditRow, AuditRowInput, EventRow, LabelRow, WriteOptions } from "./store.js";

export const MEMORY_SCOPES = ["user", "project", "session"] as const;
export type MemoryScopeRow = (typeof MEMORY_SCOPES)[number];

/** `note`: written by memory_write; `outcome`: the runtime's record of one tool call. */
export const MEMORY_KINDS = ["note", "outcome"] as const;
export type MemoryKindRow = (typeof MEMORY_KINDS)[number];

export interface MemoryRow {
	id: string;
	scope: MemoryScopeRow;
	/** Whose scope: "" for user, the workspace's real path for project, the session id for session. */
	scope_key: string;
	namespace: string;
	kind: MemoryKindRow;
	title: string;
	tags: string[];
	content: string;
	/** Workspace-relative paths the record is about. */
	path_hints: string[];
	/** JSON details (an outcome's tool, input digest and status). */
	metadata: Record<string, unknown>;
	created_at: string;
	updated_at: string;
	expires_at?: string;
	stale: boolean;
	/** The label of everything the record was written from. */
	label: LabelRow;
	/** The session and call that wrote it (a host's write names no call). */
	written_by_session: string;
	written_by_call?: string;
	/** Set when an embedding was stored: the model that made it. */
	embedding_model?: string;
}

/** One scope a query may look in. */
export interface MemoryScopeKey {
	scope: MemoryScopeRow;
	scope_key: string;
}

export interface MemoryFilter {
	/** Any of these scopes; an empty list finds nothing. */
	scopes: readonly MemoryScopeKey[];
	/** Exact namespaces; absent: every namespace. */
	namespaces?: readonly string[];
	kind?: MemoryKindRow;
	/** Rows whose expires_at is at or before this time are left out (ISO time); absent: none are. */
	now?: string;
	includeStale?: boolean;
	limit?: number;
}

export interface MemoryMatchQuery extends MemoryFilter {
	/** Words to look for; a row matches when it holds any of them (in title, tags, content or path hints). */
	terms: readonly string[];
}

/**
 * What ranking reads of a row found by words: its text, time and stale flag, with the text index's
 * relevance. The rest of the row (label, metadata, writer) is fetched for the top hits only.
 */
export interface MemoryCandidate {
	id: string;
	title: string;
	tags: string[];
	content: string;
	path_hints: string[];
	updated_at: string;
	stale: boolean;
	/** Larger is more relevant. */
	relevance: number;
}

/** A row found by words, with the text index's relevance: larger is more relevant, 0 for none. */
export interface MemoryMatch {
	row: MemoryRow;
	relevance: number;
}

/**
 * The evidence of a change to memory, committed in the change's own transaction: its audit record
 * (already redacted) and the events that follow it (an `audit_seq` of 0 in a payload is filled with
 * the record's seq).
 */
export interface MemoryEvidence {
	audit: AuditRowInput;
	events?: EventRow[];
}

/** What a committed change did: the audit record as chained, and the rows it marked stale or live. */
export interface MemoryCommitted {
	audit: AuditRow;
	/** commitWrite: older live rows of the same scope, namespace and title, now stale (their ids are in the audit data's `superseded`). */
	superseded: string[];
	/** commitForget: rows marked live again (their ids are in the audit data's `restored`). */
	restored: string[];
}

export interface MemoryRowStore {
	/**
	 * Inserts a new row; a StoreError if its id exists or its label is malformed. `deferred`: the
	 * row commits with the store's next write that asks for a commit or its next barrier (resolving
	 * then); the store's own memory reads see it before.
	 */
	put(row: MemoryRow, embedding?: Float32Array, options?: WriteOptions): Promise<void>;
	/** Inserts many rows (an import) in one transaction: all or none. */
	putMany(rows: readonly MemoryRow[]): Promise<void>;
	get(id: string): Promise<MemoryRow | undefined>;
	/** Newest first (updated_at), filtered. */
	list(filter: MemoryFilter): Promise<MemoryRow[]>;
	/** Rows holding any of the terms, most relevant first, at most `limit` (default 50). */
	match(query: MemoryMatchQuery): Promise<MemoryMatch[]>;
	/** The same rows as match, in the same order, with only what ranking reads. */
	candidates(query: MemoryMatchQuery): Promise<MemoryCandidate[]>;
	/** The whole rows of these candidates (those still there), in the order given: only what ranking did not read is read now. */
	complete(candidates: readonly MemoryCandidate[]): Promise<MemoryRow[]>;
	/** Rows of the filter that carry an embedding, with it (hybrid ranking compares them with the query's). */
	embeddings(filter: MemoryFilter): Promise<{ id: string; vector: Float32Array }[]>;
	/** Sets or clears the stale flag; returns the rows changed. */
	markStale(ids: readonly string[], stale: boolean, at: string): Promise<MemoryRow[]>;
	/** Removes the row and its index entry; returns it, or undefined for an unknown id. */
	forget(id: string): Promise<MemoryRow | undefined>;
	/**
	 * One write with its evidence, all or nothing: the row (with its label), the older live rows of
	 * its scope, namespace and title marked stale, and the audit record, in one transaction.
	 */
	commitWrite(row: MemoryRow, embedding: Float32Array | undefined, evidence: MemoryEvidence): Promise<MemoryCommitted>;
	/**
	 * Removes a row and appends its audit record in one transaction; each of `restore` that is still
	 * there and stale is marked live again, unless another live row of its title is left (so what an
	 * undone write superseded comes back, and what a later write superseded stays stale). A
	 * StoreError when the row is gone, and nothing changes.
	 */
	commitForget(id: string, restore: readonly string[], at: string, evidence: MemoryEvidence): Promise<MemoryCommitted>;
	/** Live rows of one scope, namespace and title that are not yet stale: what a newer record of the same title supersedes. */
	sameTitle(key: MemoryScopeKey & { namespace: string; title: string }): Promise<MemoryRow[]>;
}

/** The words the text index splits text into: lower-cased runs of letters and digits (as SQLite's unicode61 does). */
export function memoryWords(text: string): string[] {
	return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
