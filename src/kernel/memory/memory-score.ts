/**
 * The interpretable memory score: a sum of named terms, each a value in [0, 1] times a weight from
 * the table below, so `warden memory search --explain` can show why one record ranks above another.
 * The terms: the query's words found among the record's tags, in its title, anywhere in it
 * (keyword coverage), the text index's relevance of its content (relative to the best hit of the
 * same search), a path hint on a path the caller is working on, how recently it was written, the
 * stale flag (a negative weight), and, when embeddings are configured, semantic similarity.
 */
import { memoryWords } from "../../store/memory-rows.js";

export const SCORE_TERMS = ["tag", "title", "keyword", "content", "path", "recency", "stale", "semantic"] as const;
export type ScoreTerm = (typeof SCORE_TERMS)[number];

/** What each term is worth at its full value. Stale subtracts: an outdated record sinks but stays findable. */
export const SCORE_WEIGHTS: Readonly<Record<ScoreTerm, number>> = {
	tag: 3,
	title: 2.5,
	keyword: 1.5,
	content: 1,
	path: 2,
	recency: 1,
	stale: -3,
	semantic: 2,
};

/** Days after which the recency term has halved. */
export const RECENCY_HALF_LIFE_DAYS = 30;

export interface ScoredTerm {
	term: ScoreTerm;
	/** In [0, 1]. */
	value: number;
	weight: number;
	/** value × weight. */
	points: number;
}

export interface MemoryScore {
	total: number;
	terms: ScoredTerm[];
}

/** What the score reads of a record. */
export interface ScoredRecord {
	title: string;
	tags: readonly string[];
	content: string;
	path_hints: readonly string[];
	updated_at: string;
	stale: boolean;
}

export interface ScoreInput {
	/** The query's words (memoryWords of the query text). */
	words: readonly string[];
	record: ScoredRecord;
	/** The text index's relevance of this record and the largest of the same search (0 when the record came from embeddings alone). */
	relevance: number;
	bestRelevance: number;
	/** Workspace-relative paths the caller is working on. */
	paths: readonly string[];
	now: Date;
	/** Cosine similarity of the query's and the record's embeddings, when both exist. */
	similarity?: number;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether a code point is a letter or digit (what the text index splits words on); ASCII without a regex. */
function isWordChar(cp: number | undefined): boolean {
	if (cp === undefined) return false;
	if (cp < 128) return (cp >= 48 && cp <= 57) || (cp >= 97 && cp <= 122) || (cp >= 65 && cp <= 90);
	return WORD_CHAR.test(String.fromCodePoint(cp));
}

/** The code point that ends right before index i (a surrogate pair read whole). */
function codePointBefore(text: string, i: number): number | undefined {
	if (i <= 0) return undefined;
	const low = text.charCodeAt(i - 1);
	if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
		const high = text.charCodeAt(i - 2);
		if (high >= 0xd800 && high <= 0xdbff) return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
	}
	return low;
}

/**
 * Whether `text` holds `word` as a whole word: an occurrence with no letter or digit right before
 * or after it. The same test as the pattern (?<![\p{L}\p{N}])word(?![\p{L}\p{N}]) with the u flag,
 * without running one: a search tests every candidate's text, and most occurrences of a short
 * word are inside longer ones.
 */
export function holdsWord(text: string, word: string): boolean {
	if (word === "") return false;
	for (let i = text.indexOf(word); i !== -1; i = text.indexOf(word, i + 1)) {
		if (!isWordChar(codePointBefore(text, i)) && !isWordChar(text.codePointAt(i + word.length))) return true;
	}
	return false;
}

/** The share of the words found, as whole words, in any of the (lower-cased) texts. */
function fraction(words: readonly string[], texts: readonly string[]): number {
	if (words.length === 0) return 0;
	let found = 0;
	for (const w of words) if (texts.some((t) => holdsWord(t, w))) found++;
	return found / words.length;
}

function normalPath(p: string): string {
	return p.replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/+$/, "");
}

/** A hint covers a path when they are the same, or one is a directory holding the other. */
export function pathHintMatches(hints: readonly string[], paths: readonly string[]): boolean {
	return hints.some((h) => {
		const hint = normalPath(h);
		return paths.some((q) => {
			const path = normalPath(q);
			return hint !== "" && path !== "" && (hint === path || path.startsWith(`${hint}/`) || hint.startsWith(`${path}/`));
		});
	});
}

export function recencyValue(updatedAt: string, now: Date): number {
	const ageDays = Math.max(0, (now.getTime() - Date.parse(updatedAt)) / 86_400_000);
	return Number.isFinite(ageDays) ? 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS) : 0;
}

/** Each term's value for one record; the semantic term only when a similarity was given. */
/** The last query's words as given and as scored: a search scores every candidate with the same words. */
let lastWords: { given: string[]; words: string[] } | undefined;
function queryWords(given: readonly string[]): string[] {
	const last = lastWords;
	if (last && last.given.length === given.length && last.given.every((w, i) => w === given[i])) return last.words;
	lastWords = { given: [...given], words: [...new Set(given.flatMap((w) => memoryWords(w)))] };
	return lastWords.words;
}

export function termValues(input: ScoreInput): Partial<Record<ScoreTerm, number>> {
	const words = queryWords(input.words);
	const { record } = input;
	const tags = record.tags.join(" \n ").toLowerCase();
	const title = record.title.toLowerCase();
	const paths = record.path_hints.join(" \n ").toLowerCase();
	const values: Partial<Record<ScoreTerm, number>> = {
		tag: fraction(words, [tags]),
		title: fraction(words, [title]),
		keyword: fraction(words, [title, tags, record.content.toLowerCase(), paths]),
		content: input.bestRelevance > 0 ? Math.min(1, Math.max(0, input.relevance / input.bestRelevance)) : 0,
		path: pathHintMatches(record.path_hints, input.paths) ? 1 : 0,
		recency: recencyValue(record.updated_at, input.now),
		stale: record.stale ? 1 : 0,
	};
	if (input.similarity !== undefined) values.semantic = Math.max(0, Math.min(1, input.similarity));
	return values;
}

export function scoreMemory(input: ScoreInput): MemoryScore {
	const values = termValues(input);
	const terms: ScoredTerm[] = [];
	let total = 0;
	for (const term of SCORE_TERMS) {
		const value = values[term];
		if (value === undefined) continue;
		const weight = SCORE_WEIGHTS[term];
		const points = value * weight;
		terms.push({ term, value, weight, points });
		total += points;
	}
	return { total, terms };
}

export function cosine(a: Float32Array, b: Float32Array): number {
	if (a.length !== b.length || a.length === 0) return 0;
	let dot = 0;
	let na = 0;
	let nb = 0;
	for (let i = 0; i < a.length; i++) {
		dot += a[i]! * b[i]!;
		na += a[i]! * a[i]!;
		nb += b[i]! * b[i]!;
	}
	return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** `title 2.50 (1.00 × 2.5)` and so on, for the terms that scored. */
export function explainScore(score: MemoryScore): string {
	return score.terms
		.filter((t) => t.value !== 0)
		.map((t) => `${t.term} ${t.points.toFixed(2)} (${t.value.toFixed(2)} × ${t.weight})`)
		.join(", ");
}
