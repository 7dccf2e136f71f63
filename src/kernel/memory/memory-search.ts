/**
 * Ranking: the text index finds candidates (any of the query's words), embeddings add the nearest
 * records when configured (hybrid), and every candidate is scored with the interpretable score
 * (memory-score.ts) from what the score reads of it; the rest of a record is read for the hits
 * handed back only. Shared by the memory.read primitive and the host's `warden memory search`.
 */
import { type MemoryCandidate, type MemoryRow, type MemoryRowStore, type MemoryScopeKey, memoryWords } from "../../store/memory-rows.js";
import type { MemoryHit } from "./memory-request.js";
import { cosine, scoreMemory } from "./memory-score.js";

/** Candidates taken from the text index per result asked for (the score then reorders them): a few more than asked, since bm25 already weighs title and tags. */
const CANDIDATES_PER_RESULT = 1.5;
const MIN_CANDIDATES = 10;
/** Nearest records by embedding added to the candidates. */
const SEMANTIC_CANDIDATES = 20;

export interface RankQuery {
	query: string;
	scopes: readonly MemoryScopeKey[];
	namespaces?: readonly string[];
	kind?: MemoryRow["kind"];
	paths: readonly string[];
	limit: number;
	includeStale: boolean;
	now: Date;
	/** The query's embedding, when hybrid ranking is on. */
	vector?: Float32Array;
}

export async function rankMemory(rows: MemoryRowStore, q: RankQuery): Promise<MemoryHit[]> {
	const words = memoryWords(q.query);
	const filter = {
		scopes: q.scopes,
		...(q.namespaces ? { namespaces: q.namespaces } : {}),
		...(q.kind ? { kind: q.kind } : {}),
		now: q.now.toISOString(),
		includeStale: q.includeStale,
	};
	const matches = await rows.candidates({ ...filter, terms: words, limit: Math.max(MIN_CANDIDATES, Math.ceil(q.limit * CANDIDATES_PER_RESULT)) });
	const candidates = new Map<string, { record: MemoryCandidate; row?: MemoryRow; relevance: number; similarity?: number }>();
	for (const m of matches) candidates.set(m.id, { record: m, relevance: m.relevance });
	if (q.vector) {
		const near = (await rows.embeddings(filter))
			.map((e) => ({ id: e.id, similarity: cosine(q.vector!, e.vector) }))
			.sort((a, b) => b.similarity - a.similarity);
		const similarity = new Map(near.map((n) => [n.id, n.similarity]));
		for (const c of candidates.values()) {
			const s = similarity.get(c.record.id);
			if (s !== undefined) c.similarity = s;
		}
		for (const n of near.slice(0, SEMANTIC_CANDIDATES)) {
			if (candidates.has(n.id) || n.similarity <= 0) continue;
			const row = await rows.get(n.id);
			if (row) candidates.set(n.id, { record: { ...row, relevance: 0 }, row, relevance: 0, similarity: n.similarity });
		}
	}
	const best = Math.max(0, ...[...candidates.values()].map((c) => c.relevance));
	const ranked = [...candidates.values()]
		.map((c) => ({
			c,
			score: scoreMemory({
				words,
				record: c.record,
				relevance: c.relevance,
				bestRelevance: best,
				paths: q.paths,
				now: q.now,
				...(c.similarity !== undefined ? { similarity: c.similarity } : {}),
			}),
		}))
		.sort((a, b) => b.score.total - a.score.total || (a.c.record.updated_at < b.c.record.updated_at ? 1 : -1))
		.slice(0, q.limit);
	// Only the hits handed back are read whole (label, metadata, writer): one statement for all of them.
	const whole = new Map((await rows.complete(ranked.flatMap((r) => (r.c.row ? [] : [r.c.record])))).map((row) => [row.id, row]));
	return ranked.flatMap(({ c, score }) => {
		const record = c.row ?? whole.get(c.record.id);
		// Forgotten between the two reads: it is not handed back.
		return record ? [{ record, score }] : [];
	});
}

/** The store's scope keys for the scopes a session may see: user (one for everyone), its project, its own session. */
export function scopeKeys(scopes: readonly MemoryRow["scope"][], where: { project: string; session: string }): MemoryScopeKey[] {
	return scopes.map((scope) => ({ scope, scope_key: scope === "user" ? "" : scope === "project" ? where.project : where.session }));
}
