/**
 * The host's side of memory (`warden memory list|search|show|forget|stale`): it reads every scope
 * a workspace has, ranks with the same score the memory_search tool uses, and removes or marks
 * records. Forgetting and stale marking are evidence: each is an audit record naming the record,
 * its scope and label, and who did it — never its text, which may be secret.
 */
import { rankMemory } from "../kernel/memory/memory-search.js";
import type { MemoryHit } from "../kernel/memory/memory-request.js";
import type { MemoryKindRow, MemoryRow, MemoryScopeKey, MemoryScopeRow } from "../store/memory-rows.js";
import { type Store, StoreError } from "../store/store.js";
import { RuntimeConfigError } from "./runtime-config-error.js";

export interface MemoryWhere {
	/** The workspace's real path: its project scope. */
	workspace: string;
	/** Limit to these scopes; default user and project (and session when one is named). */
	scopes?: readonly MemoryScopeRow[];
	/** A session whose session-scoped records to include. */
	session?: string;
	namespace?: string;
	kind?: MemoryKindRow;
}

function keysOf(where: MemoryWhere): MemoryScopeKey[] {
	const scopes = where.scopes ?? (where.session ? ["user", "project", "session"] : ["user", "project"]);
	if (scopes.includes("session") && where.session === undefined) throw new RuntimeConfigError("the session scope needs a session id (--session <id>)");
	return scopes.map((scope) => ({ scope, scope_key: scope === "user" ? "" : scope === "project" ? where.workspace : where.session! }));
}

function filterOf(where: MemoryWhere, all: boolean, now: Date) {
	return {
		scopes: keysOf(where),
		...(where.namespace ? { namespaces: [where.namespace] } : {}),
		...(where.kind ? { kind: where.kind } : {}),
		...(all ? { includeStale: true } : { now: now.toISOString() }),
	};
}

/** Newest first; `all` includes stale and expired records. */
export function listMemory(store: Store, where: MemoryWhere, opts: { all?: boolean; limit?: number; now?: Date } = {}): Promise<MemoryRow[]> {
	return store.memory.list({ ...filterOf(where, opts.all === true, opts.now ?? new Date()), ...(opts.limit ? { limit: opts.limit } : {}) });
}

export function searchMemory(store: Store, where: MemoryWhere, query: { text: string; paths?: readonly string[]; limit?: number; includeStale?: boolean; now?: Date }): Promise<MemoryHit[]> {
	const now = query.now ?? new Date();
	return rankMemory(store.memory, {
		query: query.text,
		scopes: keysOf(where),
		...(where.namespace ? { namespaces: [where.namespace] } : {}),
		...(where.kind ? { kind: where.kind } : {}),
		paths: query.paths ?? [],
		limit: query.limit ?? 10,
		includeStale: query.includeStale === true,
		now,
	});
}

export async function showMemory(store: Store, id: string): Promise<MemoryRow> {
	const row = await store.memory.get(id);
	if (!row) throw new RuntimeConfigError(`no memory record ${id}`);
	return row;
}

/** What the audit keeps of a record: where it was and how it was labelled; the title only when the record is not secret. */
function auditView(row: MemoryRow): Record<string, unknown> {
	return {
		id: row.id,
		scope: row.scope,
		scope_key: row.scope_key,
		namespace: row.namespace,
		kind: row.kind,
		...(row.label.sensitivity === "secret" ? {} : { title: row.title }),
		label: { sensitivity: row.label.sensitivity, integrity: row.label.integrity },
		written_by_session: row.written_by_session,
	};
}

/** The record and its `memory.forgotten` audit record go in one transaction: never one without the other. */
export async function forgetMemory(store: Store, id: string, by: string, now = new Date()): Promise<MemoryRow> {
	const row = await store.memory.get(id);
	if (!row) throw new RuntimeConfigError(`no memory record ${id}`);
	try {
		await store.memory.commitForget(id, [], now.toISOString(), { audit: { session: "host", turn: 0, kind: "memory.forgotten", data: { ...auditView(row), by } } });
	} catch (err) {
		// Forgotten by someone else since it was read.
		if (err instanceof StoreError && (await store.memory.get(id)) === undefined) throw new RuntimeConfigError(`no memory record ${id}`);
		throw err;
	}
	return row;
}

/** Forgets every expired record of the scopes; each one is its own audit record. */
export async function forgetExpired(store: Store, where: MemoryWhere, by: string, now = new Date()): Promise<MemoryRow[]> {
	const rows = await store.memory.list({ ...filterOf(where, true, now), limit: 100_000 });
	const expired = rows.filter((r) => r.expires_at !== undefined && r.expires_at <= now.toISOString());
	const out: MemoryRow[] = [];
	for (const row of expired) out.push(await forgetMemory(store, row.id, by, now));
	return out;
}

export async function markMemoryStale(store: Store, id: string, stale: boolean, by: string, now = new Date()): Promise<MemoryRow> {
	const row = await showMemory(store, id);
	const [changed] = await store.memory.markStale([id], stale, now.toISOString());
	if (changed) await store.appendAudit({ session: "host", turn: 0, kind: "memory.stale", data: { ...auditView(changed), stale, by } });
	return changed ?? row;
}
