/**
 * The memory contract kept in process memory (the benchmarks' store). Rows go through JSON both
 * ways, as a database would return them. Relevance counts the query's words in each field with the
 * weights the SQLite index gives its columns (title 4, tags 3, content and path hints 1), a plain
 * stand-in for bm25 that orders the same clear cases the same way.
 */
import {
	type MemoryCandidate,
	type MemoryCommitted,
	type MemoryEvidence,
	type MemoryFilter,
	type MemoryMatch,
	type MemoryMatchQuery,
	type MemoryRow,
	type MemoryRowStore,
	type MemoryScopeKey,
	memoryWords,
} from "./memory-rows.js";
import type { LabelRules } from "./store-rules.js";
import { type AuditRow, type AuditRowInput, type EventRow, StoreError } from "./store.js";
import { labelToJson } from "./stored-label.js";

const FIELD_WEIGHTS: readonly [(row: MemoryRow) => string, number][] = [
	[(r) => r.title, 4],
	[(r) => r.tags.join(" "), 3],
	[(r) => r.content, 1],
	[(r) => r.path_hints.join(" "), 1],
];

function copy(row: MemoryRow): MemoryRow {
	return JSON.parse(JSON.stringify(row)) as MemoryRow;
}

function inFilter(row: MemoryRow, filter: MemoryFilter): boolean {
	return (
		filter.scopes.some((s) => s.scope === row.scope && s.scope_key === row.scope_key) &&
		(filter.namespaces === undefined || filter.namespaces.includes(row.namespace)) &&
		(filter.kind === undefined || row.kind === filter.kind) &&
		(filter.now === undefined || row.expires_at === undefined || row.expires_at > filter.now) &&
		(filter.includeStale === true || !row.stale)
	);
}

/** Where a commit's evidence goes: the owning store's audit chain and event log. */
export interface InProcessEvidence {
	appendAudit(input: AuditRowInput): Promise<AuditRow>;
	appendEvent(event: EventRow): Promise<void>;
}

function ofTitle(a: MemoryRow, b: MemoryScopeKey & { namespace: string; title: string }): boolean {
	return a.scope === b.scope && a.scope_key === b.scope_key && a.namespace === b.namespace && a.title === b.title;
}

function limitOf(filter: MemoryFilter, fallback: number): number {
	const limit = filter.limit ?? fallback;
	if (!Number.isInteger(limit) || limit < 1) throw new StoreError(`a memory query's limit must be a positive whole number, got ${String(filter.limit)}`);
	return limit;
}

export class InProcessMemoryRows implements MemoryRowStore {
	/** By id, in insertion order. */
	private readonly rows = new Map<string, { row: MemoryRow; vector?: Float32Array; order: number }>();
	private inserted = 0;

	constructor(
		private readonly labels: LabelRules,
		private readonly evidence?: InProcessEvidence,
	) {}

	/**
	 * Nothing here can crash half-way, so "together" is: the audit record is appended first and the
	 * rows change only once it is, in the same synchronous step; a refused append changes nothing.
	 */
	private async commit(evidence: MemoryEvidence, field: "superseded" | "restored", ids: readonly string[], apply: () => void): Promise<AuditRow> {
		if (!this.evidence) throw new StoreError("this memory store keeps no evidence: a governed change to it cannot be committed");
		const audit = await this.evidence.appendAudit(ids.length === 0 ? evidence.audit : { ...evidence.audit, data: { ...evidence.audit.data, [field]: [...ids] } });
		apply();
		for (const event of evidence.events ?? []) {
			const payload = event.payload as Record<string, unknown>;
			await this.evidence.appendEvent(payload.audit_seq === 0 ? ({ ...event, payload: { ...payload, audit_seq: audit.seq } } as EventRow) : event);
		}
		return audit;
	}

	async commitWrite(row: MemoryRow, embedding: Float32Array | undefined, evidence: MemoryEvidence): Promise<MemoryCommitted> {
		if (this.rows.has(row.id)) throw new StoreError(`memory record ${row.id} already exists`);
		labelToJson(this.labels, row.label, `memory record ${row.id}`);
		const older = [...this.rows.values()].filter((e) => !e.row.stale && ofTitle(e.row, row)).map((e) => e.row.id);
		const audit = await this.commit(evidence, "superseded", older, () => {
			this.insert(row, embedding);
			this.setStale(older, true, row.created_at);
		});
		return { audit, superseded: older, restored: [] };
	}

	async commitForget(id: string, restore: readonly string[], at: string, evidence: MemoryEvidence): Promise<MemoryCommitted> {
		if (!this.rows.has(id)) throw new StoreError(`memory record ${id} does not exist`);
		const live = (r: MemoryRow) => [...this.rows.values()].some((e) => e.row.id !== id && !e.row.stale && ofTitle(e.row, r));
		const restored = restore.filter((rid) => {
			const e = this.rows.get(rid);
			return e !== undefined && rid !== id && e.row.stale && !live(e.row);
		});
		const audit = await this.commit(evidence, "restored", restored, () => {
			this.rows.delete(id);
			this.setStale(restored, false, at);
		});
		return { audit, superseded: [], restored };
	}

	private insert(row: MemoryRow, embedding?: Float32Array): void {
		const kept = copy(row);
		if (!embedding) delete kept.embedding_model;
		this.rows.set(row.id, { row: kept, ...(embedding ? { vector: Float32Array.from(embedding) } : {}), order: this.inserted++ });
	}

	private setStale(ids: readonly string[], stale: boolean, at: string): MemoryRow[] {
		const changed: MemoryRow[] = [];
		for (const id of ids) {
			const e = this.rows.get(id);
			if (!e || e.row.stale === stale) continue;
			e.row.stale = stale;
			e.row.updated_at = at;
			changed.push(copy(e.row));
		}
		return changed;
	}

	async put(row: MemoryRow, embedding?: Float32Array): Promise<void> {
		if (this.rows.has(row.id)) throw new StoreError(`memory record ${row.id} already exists`);
		labelToJson(this.labels, row.label, `memory record ${row.id}`);
		this.insert(row, embedding);
	}

	async putMany(rows: readonly MemoryRow[]): Promise<void> {
		const ids = new Set<string>();
		for (const row of rows) {
			if (this.rows.has(row.id) || ids.has(row.id)) throw new StoreError(`memory record ${row.id} already exists`);
			ids.add(row.id);
			labelToJson(this.labels, row.label, `memory record ${row.id}`);
		}
		for (const row of rows) await this.put(row);
	}

	async get(id: string): Promise<MemoryRow | undefined> {
		const hit = this.rows.get(id);
		return hit ? copy(hit.row) : undefined;
	}

	private newestFirst(filter: MemoryFilter) {
		return [...this.rows.values()].filter((e) => inFilter(e.row, filter)).sort((a, b) => (a.row.updated_at === b.row.updated_at ? b.order - a.order : a.row.updated_at < b.row.updated_at ? 1 : -1));
	}

	async list(filter: MemoryFilter): Promise<MemoryRow[]> {
		return this.newestFirst(filter)
			.slice(0, limitOf(filter, 1000))
			.map((e) => copy(e.row));
	}

	async match(query: MemoryMatchQuery): Promise<MemoryMatch[]> {
		const words = new Set(query.terms.flatMap((t) => memoryWords(t)));
		if (words.size === 0) return [];
		const limit = limitOf(query, 50);
		const scored: MemoryMatch[] = [];
		for (const e of this.rows.values()) {
			if (!inFilter(e.row, query)) continue;
			let relevance = 0;
			for (const [field, weight] of FIELD_WEIGHTS) relevance += weight * memoryWords(field(e.row)).filter((w) => words.has(w)).length;
			if (relevance > 0) scored.push({ row: copy(e.row), relevance });
		}
		return scored.sort((a, b) => b.relevance - a.relevance).slice(0, limit);
	}

	async candidates(query: MemoryMatchQuery): Promise<MemoryCandidate[]> {
		return (await this.match(query)).map(({ row, relevance }) => ({
			id: row.id,
			title: row.title,
			tags: row.tags,
			content: row.content,
			path_hints: row.path_hints,
			updated_at: row.updated_at,
			stale: row.stale,
			relevance,
		}));
	}

	async complete(candidates: readonly MemoryCandidate[]): Promise<MemoryRow[]> {
		return candidates.flatMap((c) => {
			const e = this.rows.get(c.id);
			return e ? [copy(e.row)] : [];
		});
	}

	async embeddings(filter: MemoryFilter): Promise<{ id: string; vector: Float32Array }[]> {
		return [...this.rows.values()]
			.filter((e) => e.vector !== undefined && inFilter(e.row, filter))
			.slice(0, limitOf(filter, 10_000))
			.map((e) => ({ id: e.row.id, vector: Float32Array.from(e.vector!) }));
	}

	async markStale(ids: readonly string[], stale: boolean, at: string): Promise<MemoryRow[]> {
		return this.setStale(ids, stale, at);
	}

	async forget(id: string): Promise<MemoryRow | undefined> {
		const e = this.rows.get(id);
		if (!e) return undefined;
		this.rows.delete(id);
		return copy(e.row);
	}

	async sameTitle(key: MemoryScopeKey & { namespace: string; title: string }): Promise<MemoryRow[]> {
		return [...this.rows.values()]
			.filter((e) => e.row.scope === key.scope && e.row.scope_key === key.scope_key && e.row.namespace === key.namespace && e.row.title === key.title && !e.row.stale)
			.sort((a, b) => a.order - b.order)
			.map((e) => copy(e.row));
	}
}
