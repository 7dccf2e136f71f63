/**
 * What the interpretable score costs a memory search: the same queries over the same SQLite table
 * of records, once as memory_search ranks them (the FTS5 candidates joined to their rows with
 * scopes, expiry and stale filtered in the same statement, every candidate scored term by term, the
 * hits handed back parsed whole, labels checked) and once as a
 * plain FTS5 MATCH ordered by bm25 returning the top rows (the yardstick), in the same run, on the
 * same file. Records are generated from a fixed seed: words from a Zipf-like vocabulary, so some
 * query words are common and some rare, as in real notes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { rankMemory } from "../../kernel/memory/memory-search.js";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { MemoryRow } from "../../store/memory-rows.js";
import { ftsAnyOf } from "../../store/sqlite-memory.js";
import type { MemorySearchReport } from "./bench-types.js";
import { callTiming } from "./call-timing.js";
import { mulberry32 } from "../../models/seeded-random.js";

export interface MemorySearchBenchOptions {
	records: number;
	queries: number;
	rounds: number;
	warmupRounds: number;
	/** Results asked for per query, by both. */
	limit: number;
	tempDir: string;
	onProgress: (line: string) => void;
}

/** The goals: p50 ≤ 5 ms at 100,000 records, and ≤ 1.5 × the plain FTS5 query. */
export const MEMORY_SEARCH_GOAL_US = 5000;
export const MEMORY_SEARCH_GOAL_RATIO = 1.5;
const VOCABULARY = 4000;
const INSERT_BATCH = 5000;
const WORKSPACE = "/bench/workspace";

function word(n: number): string {
	const letters = "abcdefghijklmnopqrstuvwxyz";
	let out = "";
	let k = n + 1;
	while (k > 0) {
		out += letters[k % 26];
		k = Math.floor(k / 26);
	}
	return `w${out}`;
}

/** Zipf-like: rank r is drawn with weight about 1/r. */
function zipf(next: () => number): number {
	return Math.min(VOCABULARY - 1, Math.floor(Math.exp(next() * Math.log(VOCABULARY)) - 1));
}

export function benchMemoryRecords(count: number, seed: number): MemoryRow[] {
	const next = mulberry32(seed);
	const words = (n: number) => Array.from({ length: n }, () => word(zipf(next))).join(" ");
	const at = Date.parse("2026-01-01T00:00:00.000Z");
	return Array.from({ length: count }, (_, i) => {
		const time = new Date(at + i * 1000).toISOString();
		return {
			id: `bench-${i}`,
			scope: "project" as const,
			scope_key: WORKSPACE,
			namespace: i % 10 === 0 ? "tool-outcomes" : "notes",
			kind: i % 10 === 0 ? ("outcome" as const) : ("note" as const),
			title: words(4),
			tags: [word(zipf(next)), word(zipf(next))],
			content: words(24),
			path_hints: [`src/${word(zipf(next))}.ts`],
			metadata: {},
			created_at: time,
			updated_at: time,
			stale: i % 50 === 0,
			label: { sensitivity: "internal", integrity: i % 7 === 0 ? "untrusted" : "trusted", sources: [] },
			written_by_session: "bench",
		};
	});
}

/** Two-word queries: one word of middling frequency and one rarer, as someone looks for a note. */
export function benchMemoryQueries(count: number, seed: number): string[] {
	const next = mulberry32(seed);
	return Array.from({ length: count }, () => `${word(100 + Math.floor(next() * 400))} ${word(500 + Math.floor(next() * (VOCABULARY - 500)))}`);
}

export async function benchMemorySearch(options: MemorySearchBenchOptions): Promise<MemorySearchReport> {
	const dir = mkdtempSync(join(options.tempDir, "warden-memory-search-bench-"));
	const store = openSqliteStore(join(dir, "state"));
	let raw: Database.Database | undefined;
	try {
		const all = benchMemoryRecords(options.records, 16);
		for (let i = 0; i < all.length; i += INSERT_BATCH) await store.memory.putMany(all.slice(i, i + INSERT_BATCH));
		options.onProgress(`memory search: ${options.records} records written`);
		raw = new Database(join(dir, "state", "warden.db"), { readonly: true });
		const plain = raw.prepare("SELECT rowid, title, content FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?");
		const texts = benchMemoryQueries(options.queries, 61);
		const now = new Date("2026-06-01T00:00:00.000Z");
		const scopes = [
			{ scope: "user" as const, scope_key: "" },
			{ scope: "project" as const, scope_key: WORKSPACE },
			{ scope: "session" as const, scope_key: "bench" },
		];
		const scored: number[] = [];
		const yardstick: number[] = [];
		let hits = 0;
		let plainHits = 0;
		for (let round = 0; round < options.warmupRounds + options.rounds; round++) {
			const measured = round >= options.warmupRounds;
			for (const [i, text] of texts.entries()) {
				const search = async () => {
					const t0 = performance.now();
					const found = await rankMemory(store.memory, { query: text, scopes, paths: ["src/wab.ts"], limit: options.limit, includeStale: false, now });
					return { us: (performance.now() - t0) * 1000, n: found.length };
				};
				const yard = () => {
					const t0 = performance.now();
					const rows = plain.all(ftsAnyOf(text.split(" ")), options.limit);
					return { us: (performance.now() - t0) * 1000, n: rows.length };
				};
				// Which goes first alternates, so neither always finds the pages the other just read.
				const [a, b] = i % 2 === 0 ? [await search(), yard()] : [yard(), await search()].reverse();
				if (measured) {
					scored.push(a!.us);
					yardstick.push(b!.us);
					hits += a!.n;
					plainHits += b!.n;
				}
			}
		}
		const governed = callTiming(scored);
		const bare = callTiming(yardstick);
		const ratio = governed.medianUs / bare.medianUs;
		options.onProgress(`memory search: p50 ${(governed.medianUs / 1000).toFixed(2)} ms, ${ratio.toFixed(2)}× plain FTS5`);
		return {
			records: options.records,
			queries: options.queries,
			rounds: options.rounds,
			warmupRounds: options.warmupRounds,
			limit: options.limit,
			meanHits: hits / scored.length,
			meanPlainHits: plainHits / yardstick.length,
			plainFts: bare,
			memorySearch: governed,
			ratio,
			goalMet: governed.medianUs <= MEMORY_SEARCH_GOAL_US && ratio <= MEMORY_SEARCH_GOAL_RATIO,
		};
	} finally {
		raw?.close();
		await store.close();
		rmSync(dir, { recursive: true, force: true });
	}
}
