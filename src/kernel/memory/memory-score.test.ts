import { describe, expect, it } from "vitest";
import { cosine, explainScore, holdsWord, pathHintMatches, RECENCY_HALF_LIFE_DAYS, SCORE_TERMS, SCORE_WEIGHTS, type ScoreInput, scoreMemory, termValues } from "./memory-score.js";

const NOW = new Date("2026-03-01T00:00:00.000Z");
const base: ScoreInput = {
	words: ["deploy", "friday"],
	record: { title: "misc", tags: [], content: "", path_hints: [], updated_at: NOW.toISOString(), stale: false },
	relevance: 0,
	bestRelevance: 0,
	paths: [],
	now: NOW,
};
const withRecord = (over: Partial<ScoreInput["record"]>, rest: Partial<ScoreInput> = {}): ScoreInput => ({ ...base, ...rest, record: { ...base.record, ...over } });

/** One row per term: an input that gives the term its value, and that value. */
const ROWS: { term: (typeof SCORE_TERMS)[number]; input: ScoreInput; value: number }[] = [
	{ term: "tag", input: withRecord({ tags: ["Deploy", "ops"] }), value: 0.5 },
	{ term: "title", input: withRecord({ title: "Deploy on Friday" }), value: 1 },
	{ term: "keyword", input: withRecord({ content: "we deploy often", path_hints: ["friday/notes.md"] }), value: 1 },
	{ term: "content", input: withRecord({}, { relevance: 3, bestRelevance: 12 }), value: 0.25 },
	{ term: "path", input: withRecord({ path_hints: ["src/deploy"] }, { paths: ["./src/deploy/run.ts"] }), value: 1 },
	{ term: "recency", input: withRecord({ updated_at: new Date(NOW.getTime() - RECENCY_HALF_LIFE_DAYS * 86_400_000).toISOString() }), value: 0.5 },
	{ term: "stale", input: withRecord({ stale: true }), value: 1 },
	{ term: "semantic", input: withRecord({}, { similarity: 0.8 }), value: 0.8 },
];

describe("the interpretable memory score", () => {
	for (const row of ROWS) {
		it(`${row.term}: ${row.value} × ${SCORE_WEIGHTS[row.term]}`, () => {
			expect(termValues(row.input)[row.term]).toBeCloseTo(row.value, 6);
			const scored = scoreMemory(row.input).terms.find((t) => t.term === row.term)!;
			expect(scored.points).toBeCloseTo(row.value * SCORE_WEIGHTS[row.term], 6);
		});
	}

	it("has a row above for every term, and the total is the sum of the terms", () => {
		expect(ROWS.map((r) => r.term)).toEqual([...SCORE_TERMS]);
		const s = scoreMemory(withRecord({ title: "deploy", tags: ["friday"], stale: true }, { relevance: 1, bestRelevance: 1 }));
		expect(s.total).toBeCloseTo(s.terms.reduce((sum, t) => sum + t.points, 0), 9);
		expect(s.terms.map((t) => t.term)).toEqual(["tag", "title", "keyword", "content", "path", "recency", "stale"]);
	});

	it("stale sinks a record below the same record fresh; semantic appears only with a similarity", () => {
		const fresh = scoreMemory(withRecord({ title: "deploy friday" }));
		const stale = scoreMemory(withRecord({ title: "deploy friday", stale: true }));
		expect(stale.total).toBeLessThan(fresh.total);
		expect(fresh.terms.some((t) => t.term === "semantic")).toBe(false);
		expect(scoreMemory(withRecord({}, { similarity: -0.3 })).terms.find((t) => t.term === "semantic")?.value).toBe(0);
	});

	it("path hints cover the same path and either side of a directory, never a sibling with the same prefix", () => {
		expect(pathHintMatches(["src/a.ts"], ["src/a.ts"])).toBe(true);
		expect(pathHintMatches(["src"], ["src/a.ts"])).toBe(true);
		expect(pathHintMatches(["src/a.ts"], ["src/"])).toBe(true);
		expect(pathHintMatches(["src/a"], ["src/ab.ts"])).toBe(false);
		expect(pathHintMatches([""], ["x"])).toBe(false);
	});

	it("explains the terms that scored, and cosine is 1 for the same direction, 0 for none", () => {
		expect(explainScore(scoreMemory(withRecord({ title: "deploy" })))).toBe("title 1.25 (0.50 × 2.5), keyword 0.75 (0.50 × 1.5), recency 1.00 (1.00 × 1)");
		expect(cosine(Float32Array.from([1, 2]), Float32Array.from([2, 4]))).toBeCloseTo(1, 6);
		expect(cosine(Float32Array.from([1, 0]), Float32Array.from([0, 1]))).toBe(0);
		expect(cosine(Float32Array.from([1]), Float32Array.from([1, 2]))).toBe(0);
	});
});

describe("holdsWord", () => {
	it("agrees with the whole-word pattern over texts of letters, digits, marks, surrogate pairs and lone surrogates", () => {
		const pieces = ["ab", "a", "b", "1", " ", "-", "é", "\u0301", "𝐀", "😀", "\ud800", "\udc00", "ß", "ab1", "\n", "ｗ", "٣"];
		let seed = 7;
		const next = () => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed / 2147483648;
		};
		const words = ["ab", "a", "b1", "é", "𝐀", "ß", "٣", "1"];
		for (let n = 0; n < 3000; n++) {
			const text = Array.from({ length: 1 + Math.floor(next() * 8) }, () => pieces[Math.floor(next() * pieces.length)]).join("");
			for (const word of words) {
				const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${word}(?![\\p{L}\\p{N}])`, "u");
				expect(holdsWord(text, word), `${JSON.stringify(text)} / ${word}`).toBe(pattern.test(text));
			}
		}
		expect(holdsWord("abc ab", "ab")).toBe(true);
		expect(holdsWord("abc xab", "ab")).toBe(false);
	});
});
